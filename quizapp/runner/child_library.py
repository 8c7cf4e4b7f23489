"""Provides the text of the confinement's modules as the child runs it (`python -I -S -c`): one module's
text after another, in one namespace, each without its imports of the runner's own modules.

The modules are split for their readers, not for the child: there nothing but the standard library is
importable, and none is imported; the text of a module a later one imports from runs first and defines,
at its top level, the names that later one takes. In the app (and under mypy and the tests) those imports
are ordinary ones.
"""

import re
from collections.abc import Iterable
from pathlib import Path

CONFINEMENT = ("folder_child.py", "confine_child.py", "lockdown_child.py")
"""The confinement's modules, in the order their text runs: each imports only from those before it."""
_OWN_IMPORT = re.compile(r"^from quizapp\.runner\.\w+ import (?:\([^)]*\)|.*)\n", re.MULTILINE)
"""One import of a runner module's names (one line, or a parenthesised block): dropped from the text."""


def text(names: Iterable[str]) -> str:
    """The modules `names` (files beside this one), in that order, as the child runs them."""
    folder = Path(__file__).parent
    return "".join(_OWN_IMPORT.sub("", (folder / name).read_text(encoding="utf-8")) for name in names)
