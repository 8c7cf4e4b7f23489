"""Random valid arguments per calculator area (one module each, with an `ARGS` dict) for grading tests."""
