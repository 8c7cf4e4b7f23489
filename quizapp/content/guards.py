"""Provides the limits a deck must respect before a parser, the schema or NumPy sees it, and the cleaning
of its text.

Decks are shared between users, so a deck file is untrusted input. A 100,000-deep `[[[[` overflows a C
parser's stack, a 3000-deep block overflows Python's, a 1500 x 1500 literal matrix freezes the app, and
an escape sequence in a title drives the user's terminal. Each limit here is far above anything a real
deck needs, and each refusal names the line (or the place in the data) and the limit.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DECK_BYTES = 8 * 1024 * 1024
"""The bundled decks are under 40 KB each; ten thousand questions fit in 8 MB."""
MAX_FLOW_DEPTH = 48
"""Nesting of `[` and `{` in the text (a matrix is two deep)."""
MAX_INDENT = 240
"""Columns of leading space on a line: about a hundred nested blocks."""
MAX_DEPTH = 24
"""Nesting of the parsed data (deck -> questions -> question -> params -> ... is about eight)."""
MAX_QUESTION_NODES = 20_000
"""Values inside one question: a literal matrix of about 140 x 140."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls (tab and newline are kept), DEL, and the bidirectional overrides."""


def text_problem(text: str) -> tuple[int, int, str] | None:
    """(line, column, message) of the first place the raw text breaks a limit, before any parser runs."""
    if len(text) > MAX_DECK_BYTES:
        return 1, 1, f"the file is larger than the {MAX_DECK_BYTES // (1024 * 1024)} MB a deck may be"
    depth = 0
    for match in re.finditer(r"[\[\]{}]|\n", text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                return _position(text, match.start(), f"brackets nested more than {MAX_FLOW_DEPTH} deep")
        elif char in "]}":
            depth = max(0, depth - 1)
    for number, line in enumerate(text.splitlines(), start=1):
        indent = len(line) - len(line.lstrip(" -"))  # `- - - x` nests blocks on one line
        if indent > MAX_INDENT:
            return number, 1, f"blocks nest {indent} columns deep; they may nest at most {MAX_INDENT}"
    return None


def _position(text: str, offset: int, message: str) -> tuple[int, int, str]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column, message


def data_problem(data: Any) -> tuple[tuple[str | int, ...], str] | None:
    """(where, message) of the first place the parsed data breaks a limit, walked without recursion."""
    questions = data.get("questions") if isinstance(data, dict) else None
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    counts: dict[int, int] = {}
    while stack:
        node, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            return loc[:MAX_DEPTH], f"values nested more than {MAX_DEPTH} deep"
        if (
            isinstance(questions, list)
            and len(loc) >= 2
            and loc[0] == "questions"
            and isinstance(loc[1], int)
        ):
            counts[loc[1]] = counts.get(loc[1], 0) + 1
            if counts[loc[1]] > MAX_QUESTION_NODES:
                return loc[:2], f"the question holds more than {MAX_QUESTION_NODES:,} values"
        if isinstance(node, dict):
            stack.extend((value, (*loc, str(key))) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, (*loc, i)) for i, value in enumerate(node))
    return None


def may_hold_controls(text: str) -> bool:
    """Whether any string parsed from `text` can hold a control character: one written raw, or one a
    double-quoted YAML escape makes. False for nearly every deck, which then skips the walk."""
    return _CONTROL.search(text) is not None or re.search(r"\\[0abvfeN_LPxuU]", text) is not None


def line_of_id(text: str, question_id: str) -> int:
    """The line that declares `question_id` (1 when it cannot be found)."""
    match = re.search(rf"^\s*-?\s*id:\s*['\"]?{re.escape(question_id)}['\"]?\s*$", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def clean_text(data: Any) -> tuple[Any, list[tuple[tuple[str | int, ...], str]]]:
    """The data with every control character and escape sequence in its strings made visible (`\\x1b`),
    and where each was found, so `quizapp validate` can warn while the app stays safe."""
    found: list[tuple[tuple[str | int, ...], str]] = []

    def clean(value: Any, loc: tuple[str | int, ...]) -> Any:
        if isinstance(value, str):
            if _CONTROL.search(value) is None:
                return value
            codes = sorted({f"U+{ord(c):04X}" for c in _CONTROL.findall(value)})
            found.append((loc, f"control characters {', '.join(codes)} shown as escapes"))
            return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else "", value)
        return value

    root = _rebuild(data, (), clean)
    return root, found


def _rebuild(data: Any, loc: tuple[str | int, ...], clean: Any) -> Any:
    """Copies `data` bottom-up with `clean` applied to every string (keys included), without recursion."""
    if not isinstance(data, dict | list):
        return clean(data, loc)
    out: dict[Any, Any] | list[Any] = {} if isinstance(data, dict) else []
    stack: list[tuple[Any, Any, tuple[str | int, ...]]] = [(data, out, loc)]
    while stack:
        source, target, where = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in items:
            here = (*where, key if isinstance(source, list) else str(key))
            if isinstance(value, dict | list):
                child: dict[Any, Any] | list[Any] = {} if isinstance(value, dict) else []
                stack.append((value, child, here))
                value = child
            else:
                value = clean(value, here)
            if isinstance(target, dict):
                target[clean(key, here) if isinstance(key, str) else key] = value
            else:
                target.append(value)
    return out
