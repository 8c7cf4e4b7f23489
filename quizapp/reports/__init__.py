"""Provides what the user reads about their progress: stats, the home overview, text tables, Anki and
backup files."""
