"""Provides the app's screens: home, study (study/drill/cram), stats, settings and help."""
