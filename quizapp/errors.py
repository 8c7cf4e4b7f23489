"""Provides the one exception type the core raises for problems a user can fix."""


class QuizappError(Exception):
    """A problem with the user's input, files or environment, worded for the user; never a bug."""
