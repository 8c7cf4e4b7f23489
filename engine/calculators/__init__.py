"""Provides every calculator; importing this package registers them in engine.CALCULATORS."""
