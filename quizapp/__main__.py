"""Provides `python -m quizapp`."""

import sys

from quizapp.cli import main

sys.exit(main())
