"""Provides the memory of proven templates: a question's check signature, and which signatures passed.

A signature hashes what the checks of quizapp.content.checks.static depend on (params, answer spec,
placeholders, not
the words), so a parametrisation that passed once passes again: in this process, and in a later one that
reads the list an earlier one saved (its file name carries the code version).
"""

from __future__ import annotations

import hashlib
import marshal
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from quizapp.content.memos import MEMOS
from quizapp.content.questions import ChoiceQuestion
from quizapp.content.schema import Question
from quizapp.content.schema_common import ANSWER_TYPES


def passed(key: str | None) -> bool:
    """Whether the parametrisation with this signature passed every check."""
    return key in MEMOS.passed


def record(key: str) -> None:
    """Remembers that the parametrisation with this signature passed every check."""
    MEMOS.passed.add(key)
    MEMOS.new_passed.append(key)


_SIGNATURE_KEYS = ("type", "params", "calculator", "args", "unit", "tolerance", "estimate", "steps")


def signature(question: Question, raw: Mapping[str, Any] | None = None) -> str | None:
    """The hash of what a question's checks depend on: its params, answer spec and placeholders, not its
    words; None for a card with no params and no answer to compute. `raw` is the question as parsed
    from YAML (the same YAML always validates to the same question), which is faster to record."""
    if not question.params and question.type not in ANSWER_TYPES and question.type != "scenario":
        return None
    if raw is not None:
        # marshal (pickle for what it cannot write: PyYAML's dates) is a faithful, self-delimiting record
        # of the parsed values (1, 1.0 and True differ, a set is no list), faster than their repr. Equal
        # values may come out differently (shared objects): that costs a second check, never a skip.
        values = [raw.get(k) for k in _SIGNATURE_KEYS]
        try:
            spec = b"m" + marshal.dumps(values)
        except ValueError:
            spec = b"p" + pickle.dumps(values, protocol=5)
    else:
        spec = question.model_dump_json(include=set(_SIGNATURE_KEYS)).encode()
    marks = brace_marks(question.prompt).encode()
    options = len(question.options) if isinstance(question, ChoiceQuestion) else 0
    return hashlib.sha256(b"%b|%b|%d" % (spec, marks, options)).hexdigest()[:32]


def brace_marks(text: str) -> str:
    """Every brace with the text up to the next brace: all that parsing the template depends on (the
    words between a closing and an opening brace never matter). Each mark starts with a brace and holds
    no other, so joining them loses nothing. Split at each `}`, a piece keeps what follows its first `{`
    (the words before it follow a `}` or start the text): the same as joining the matches of
    `\\{[^{}]*|\\}`, without a match object per brace."""
    return "}".join([piece[piece.find("{") :] if "{" in piece else "" for piece in text.split("}")])


def remember_proven(path: Path) -> None:
    """Also trusts the template signatures listed in `path` (one hash a line), from earlier runs, so an
    edited deck re-checks only the templates that changed. The file name must carry the code version."""
    if path in MEMOS.proof_files:
        return
    MEMOS.proof_files.add(path)
    try:
        MEMOS.passed.update(line for line in path.read_text(encoding="ascii").split() if len(line) == 32)
    except (OSError, UnicodeDecodeError):
        return


def save_proven(path: Path) -> None:
    """Appends the signatures proven since the last save; a failure only costs time next run."""
    if not MEMOS.new_passed:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="ascii") as fh:
            fh.write("".join(f"{h}\n" for h in MEMOS.new_passed))
        MEMOS.new_passed.clear()
    except OSError:
        return
