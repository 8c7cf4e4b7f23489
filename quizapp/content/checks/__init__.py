"""Provides the checks a deck must pass beyond its schema: static checks, seed checks, quality gates."""
