"""Provides the subcommands of the `quizapp` command line, one module per area."""
