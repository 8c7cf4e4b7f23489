"""Provides the attention interview trainer's core: catalog, grading, progress store and scheduling."""

__version__ = "0.1.0"
