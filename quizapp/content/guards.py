"""Provides the limits a deck must respect before a parser, the schema or NumPy sees it, and the cleaning
of its text.

Decks are shared between users, so a deck file is untrusted input. A 100,000-deep `[[[[` overflows a C
parser's stack, a 3000-deep block overflows Python's, a 1500 x 1500 literal matrix freezes the app, and
an escape sequence in a title drives the user's terminal. Each limit here is far above anything a real
deck needs, and each refusal names the line (or the place in the data) and the limit. The text of a deck
passes quizapp.terminal_text, the cleaning every text from a file passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from quizapp.terminal_text import terminal_text, unsafe_characters

Loc = tuple[str | int, ...]

MAX_DECK_BYTES = 32 * 1024 * 1024
"""The bundled decks are under 40 KB each; ten thousand questions take about 9 MB."""
MAX_FLOW_DEPTH = 48
"""Nesting of `[` and `{` in the text (a matrix is two deep)."""
MAX_INDENT = 240
"""Columns of leading space on a line: about a hundred nested blocks."""
MAX_DEPTH = 24
"""Nesting of the parsed data (deck -> questions -> question -> params -> ... is about eight)."""
MAX_QUESTION_NODES = 20_000
"""Values inside one question: a literal matrix of about 140 x 140."""
_CONTAINERS = (dict, list)
"""What a parsed YAML value nests in (a tuple: isinstance is faster with one than with `dict | list`)."""


def text_problem(text: str) -> tuple[int, int, str] | None:
    """(line, column, message) of the first place the raw text breaks a limit, before any parser runs."""
    if len(text) > MAX_DECK_BYTES:
        return 1, 1, f"the file is larger than the {MAX_DECK_BYTES // (1024 * 1024)} MB a deck may be"
    deep = _too_deep_brackets(text)
    if deep is not None:
        return _position(text, deep, f"brackets nested more than {MAX_FLOW_DEPTH} deep")
    indented = _TOO_INDENTED.search("\n" + text)  # `- - - x` nests blocks on one line: dashes count too
    if indented is not None:
        line, _, _ = _position(text, indented.start(), "")
        return line, 1, f"blocks nest over {MAX_INDENT} columns deep; they may nest at most {MAX_INDENT}"
    return alias_problem(text)


MAX_ALIASES = 10_000
"""Aliases (`*name`) in one deck; the bundled decks use none."""
MAX_EXPANDED = MAX_DECK_BYTES
"""The size of a deck with every alias written out in full, counted as the characters of its scalars
plus one for each value: aliases may make a deck no bigger than a deck may be. (yaml_rs copies what an
alias names: 4,000 aliases of a 250 KB string took 1 GB, and where memory is short it aborts the process,
SIGABRT, which no `except` catches.)"""
_ANCHOR = re.compile(r"(?:^|[\s\[\]{},])&[^\s\[\]{},]")
"""Where an anchor can stand (a node's start: after a space, a bracket or a comma): without one, no
alias can name anything, and the check below is skipped (the bundled decks have none)."""


def alias_problem(text: str) -> tuple[int, int, str] | None:
    """(line, column, message) of the alias that takes the deck past MAX_ALIASES or MAX_EXPANDED, found
    by walking libyaml's events (a linear pass that never expands anything), before yaml_rs sees the text.
    A text libyaml cannot read is refused here with its syntax error."""
    import yaml

    if _ANCHOR.search(text) is None:
        return None

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    sizes: dict[str, int] = {}  # an anchor's node, expanded
    open_nodes: list[list[Any]] = []  # [anchor, size so far] of each collection being read
    expanded = aliases = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                size = sizes.get(event.anchor or "", 0)  # a node that names itself: yaml_rs reads None
                expanded += size
                if aliases > MAX_ALIASES or expanded > MAX_EXPANDED:
                    line, column = (
                        (event.start_mark.line, event.start_mark.column) if event.start_mark else (0, 0)
                    )
                    limit = (
                        f"more than {MAX_ALIASES:,} aliases"
                        if aliases > MAX_ALIASES
                        else f"aliases that expand it past the {MAX_EXPANDED >> 20} MB a deck may be"
                    )
                    return line + 1, column + 1, f"the deck holds {limit}"
            elif isinstance(event, yaml.ScalarEvent):
                size = len(event.value) + 1
                expanded += size
                if event.anchor is not None:
                    sizes[event.anchor] = size
            elif isinstance(event, yaml.CollectionStartEvent):
                expanded += 1
                open_nodes.append([event.anchor, 1])
                continue
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, size = open_nodes.pop()
                if anchor is not None:
                    sizes[anchor] = size
            else:
                continue
            if open_nodes:
                open_nodes[-1][1] += size
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return *where, f"YAML syntax error: {getattr(exc, 'problem', None) or exc}"
    return None


_TOO_INDENTED = re.compile(rf"\n[ -]{{{MAX_INDENT + 1}}}")
"""A newline then the run: the engine jumps from newline to newline, ten times faster than `^` with
MULTILINE."""


def _too_deep_brackets(text: str) -> int | None:
    """Offset of the first `[` or `{` nested deeper than MAX_FLOW_DEPTH, counting as a parser would
    (a stray closer never takes the depth below zero), or None."""
    import numpy as np

    brackets = text.encode("utf-8").translate(None, _NOT_BRACKETS)  # only [ ] { }, in order: C speed
    if len(brackets) <= MAX_FLOW_DEPTH:
        return None

    codes = np.frombuffer(brackets, dtype=np.uint8)  # (k,) the brackets
    walk = np.cumsum(np.where((codes == 91) | (codes == 123), 1, -1))  # (k,) depth without the floor
    depth = walk - np.minimum(np.minimum.accumulate(walk), 0)  # (k,) depth reflected at zero
    over = np.flatnonzero(depth > MAX_FLOW_DEPTH)  # (m,) brackets past the limit
    if over.size == 0:
        return None
    nth = int(over[0])
    for offset, char in enumerate(text):  # only for a refused file: find where that bracket stands
        if char in "[]{}":
            if nth == 0:
                return offset
            nth -= 1
    return None


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_CONTROLS = bytes(b for b in range(256) if not (b < 32 and b not in b"\t\n") and b != 127)


def _position(text: str, offset: int, message: str) -> tuple[int, int, str]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column, message


def data_problem(data: Any) -> tuple[Loc, str] | None:
    """(where, message) of the first question whose free values break a limit: a param's `value` or
    `choices` and a literal list argument are the only places a deck can hand NumPy arbitrary data (the
    schema stops anything odd elsewhere), so only those are walked."""
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list):
        return None
    for index, question in enumerate(questions):
        if isinstance(question, dict) and not _small(question):
            free = list(_free_values(question, ("questions", index)))
            if _within_limits(free):
                continue
            found = _walk(free)  # only on the error path: the walk that says where
            if found is not None:
                return found
    return None


def _small(question: dict[str, Any]) -> bool:
    """The common case, decided without building locations: every free value is a flat mapping or list,
    or a list of flat mappings, with far fewer values than the limit and no nesting to speak of."""
    params = question.get("params")
    count = 0
    for spec in params.values() if isinstance(params, dict) else ():
        if not isinstance(spec, dict):
            continue
        for key in ("value", "choices", "args"):
            value = spec.get(key)
            if isinstance(value, _CONTAINERS):
                size = _flat_size(value)
                if size < 0:
                    return False
                count += size
    args = question.get("args")
    if isinstance(args, dict):
        size = _flat_size(args)
        if size < 0:
            return False
        count += size
    return count <= MAX_QUESTION_NODES


def _flat_size(node: dict[str, Any] | list[Any]) -> int:
    """Values in `node` if it is at most two levels deep (a list of flat mappings), else -1."""
    n = len(node)
    for value in node.values() if isinstance(node, dict) else node:
        if isinstance(value, _CONTAINERS):
            n += len(value)
            inner = value.values() if isinstance(value, dict) else value
            if any(isinstance(v, _CONTAINERS) for v in inner):
                return -1
    return n


class _TooDeep(Exception):
    pass


def _within_limits(free: list[tuple[Any, Loc]]) -> bool:
    """Whether a question's free values stay within both limits, counted the way `_walk` counts them but
    without building a location for every node (the common case, at a fraction of the cost)."""
    try:
        total = sum(_size(node, len(loc)) for node, loc in free)
    except _TooDeep:
        return False
    return total <= MAX_QUESTION_NODES


def _size(node: Any, depth: int) -> int:
    if depth > MAX_DEPTH:
        raise _TooDeep
    n = len(node)
    for value in node.values() if isinstance(node, dict) else node:
        if isinstance(value, _CONTAINERS):
            n += _size(value, depth + 1)
    return n


def _free_values(question: dict[str, Any], loc: tuple[str | int, ...]) -> Iterator[tuple[Any, Loc]]:
    params = question.get("params")
    for name, spec in params.items() if isinstance(params, dict) else ():
        if isinstance(spec, dict):
            for key in ("value", "choices"):
                if isinstance(spec.get(key), _CONTAINERS):
                    yield spec[key], (*loc, "params", str(name), key)
            if isinstance(spec.get("args"), dict):
                yield spec["args"], (*loc, "params", str(name), "args")
    if isinstance(question.get("args"), dict):
        yield question["args"], (*loc, "args")


def _walk(stack: list[tuple[Any, Loc]]) -> tuple[Loc, str] | None:
    nodes = 0
    while stack:
        node, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            return loc[:MAX_DEPTH], f"values nested more than {MAX_DEPTH} deep"
        nodes += len(node) if isinstance(node, _CONTAINERS) else 1
        if nodes > MAX_QUESTION_NODES:
            return loc[:2], f"the question holds more than {MAX_QUESTION_NODES:,} values"
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((value, (*loc, key)) for key, value in items if isinstance(value, _CONTAINERS))
    return None


def may_hold_controls(raw: bytes) -> bool:
    """Whether any string parsed from the file can hold a character terminal_text removes: one written
    raw, or one a double-quoted YAML escape makes. False for nearly every deck, which then skips the
    cleaning walk."""
    if raw.translate(None, _NOT_CONTROLS):  # C0 controls and DEL, at C speed
        return True
    return any(lead in raw and pattern.search(raw) is not None for lead, pattern in _CONTROL_BYTES)


_CONTROL_BYTES = tuple(
    (lead, re.compile(pattern))
    for lead, pattern in (
        (b"\xc2", rb"\xc2[\x80-\x9f]"),
        (b"\xd8", rb"\xd8\x9c"),
        (b"\xe2", rb"\xe2(?:\x80[\x8b-\x8f\xaa-\xae]|\x81[\xa0\xa6-\xa9])"),
        (b"\xef", rb"\xef\xbb\xbf"),
        (b"\\", rb"\\[0abvfreNxuU]"),
    )
)
"""C1 controls, the bidirectional controls U+061C, U+200E-F, U+202A-E, U+2066-9 and the zero-width
U+200B-D, U+2060 and U+FEFF in UTF-8, and the double-quoted escapes that can make any of them (a `\\r`
too); each searched only when its first byte occurs at all."""


def line_of_id(text: str, question_id: str) -> int:
    """The line that declares `question_id` (1 when it cannot be found)."""
    match = re.search(rf"^\s*-?\s*id:\s*['\"]?{re.escape(question_id)}['\"]?\s*$", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def clean_text(data: Any) -> tuple[Any, list[tuple[tuple[str | int, ...], str]]]:
    """The data with every string (keys included) passed through terminal_text, and where something was
    removed, so `quizapp validate` can warn while the app stays safe."""
    found: list[tuple[tuple[str | int, ...], str]] = []

    def clean(value: Any, loc: tuple[str | int, ...]) -> Any:
        if isinstance(value, str):
            cleaned = terminal_text(value)
            if cleaned is not value:
                codes = ", ".join(f"U+{ord(c):04X}" for c in unsafe_characters(value))
                found.append((loc, f"control, bidi or zero-width characters {codes} removed"))
            return cleaned
        return value

    root = _rebuild(data, (), clean)
    return root, found


def _rebuild(data: Any, loc: tuple[str | int, ...], clean: Any) -> Any:
    """Copies `data` bottom-up with `clean` applied to every string (keys included), without recursion."""
    if not isinstance(data, _CONTAINERS):
        return clean(data, loc)
    out: dict[Any, Any] | list[Any] = {} if isinstance(data, dict) else []
    stack: list[tuple[Any, Any, tuple[str | int, ...]]] = [(data, out, loc)]
    while stack:
        source, target, where = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in items:
            here = (*where, key if isinstance(source, list) else str(key))
            if isinstance(value, _CONTAINERS):
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
