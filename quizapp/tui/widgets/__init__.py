"""Provides the widgets the screens are built from: heatmap, derivation, feedback, deck table, charts."""
