"""Provides the mock interview: its session and its report."""
