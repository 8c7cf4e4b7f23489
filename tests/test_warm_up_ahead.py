"""The warm-up (quizapp.tui.warm_up) does, in a fresh interpreter, what the first card would otherwise do on
the event loop: the screens' modules imported, and the code blocks' lexer compiled."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from quizapp.tui.warm_up import LEXERS, MODULES, import_ahead
from pygments.lexers import find_lexer_class_by_name
before = [name for name in MODULES if name in sys.modules]
compiled_before = ["_tokens" in vars(find_lexer_class_by_name(lang)) for lang in LEXERS]
import_ahead()
print(json.dumps({
    "before": before,
    "missing_after": [name for name in MODULES if name not in sys.modules],
    "compiled_before": compiled_before,
    "compiled_after": ["_tokens" in vars(find_lexer_class_by_name(lang)) for lang in LEXERS],
}))
"""


def test_warm_up_imports_the_screens_and_compiles_the_code_lexer() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert "quizapp.tui.screens.study" not in seen["before"]  # the probe starts cold
    assert seen["missing_after"] == []
    assert seen["compiled_before"] == [False]
    assert seen["compiled_after"] == [True]
