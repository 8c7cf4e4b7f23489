"""Provides Explore's model: an attention layer the user can reshape and watch."""
