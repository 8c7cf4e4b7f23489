"""Provides question content: deck schema, loading and caching, templates, params and instances."""
