"""Provides the Explore sandbox: an attention layer the user can reshape and watch."""
