"""Provides load problems: where in a deck file something is wrong, and what to tell its author.

Positions come from re-reading a failing file with PyYAML's composer, whose nodes carry line and column;
this runs only on the error path, so valid decks never pay for it. Pydantic's error types are reworded
here into messages a deck author understands.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from quizapp.terminal_text import terminal_text

if TYPE_CHECKING:
    import yaml
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a deck file, as `file:line:col: question 'id', field 'f': message`."""

    file: str
    line: int
    col: int
    question_id: str
    field: str
    message: str

    def __str__(self) -> str:
        head = [f"question {self.question_id!r}"] if self.question_id else []
        if self.field:
            head.append(f"field {self.field!r}")
        where = ", ".join(head)
        text = f"{self.file}:{self.line}:{self.col}: " + (f"{where}: " if where else "") + self.message
        return terminal_text(text)  # ids and messages quote the deck's own text


@dataclass(frozen=True)
class SkippedDeck:
    """A deck file that was not loaded, with its problems; one line for the app's stderr."""

    file: str
    deck_id: str
    problems: tuple[Problem, ...]

    def __str__(self) -> str:
        name = self.deck_id or self.file
        first = self.problems[0] if self.problems else None
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        return terminal_text(f"skipped deck {name}: {first}{more}")


@dataclass(frozen=True)
class Issue:
    """A problem before it has a file position: a loc inside the deck data, the message, a text offset."""

    loc: Loc
    message: str
    offset: int | None = None
    also: Loc | None = None
    """Another place the message is about (the first of two duplicates)."""


# --------------------------------------------------------------------------- positions


@cache
def schema_names() -> SimpleNamespace:
    """The question types and param kinds, from the schema, imported only when a deck has a problem
    (the schema brings in pydantic, which a warm start does without)."""
    from quizapp.content.schema_common import PARAM_KINDS, QUESTION_TYPES

    return SimpleNamespace(question_types=QUESTION_TYPES, param_kinds=PARAM_KINDS)


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree (with marks) of a file, or None when even PyYAML cannot read it."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        return None


def locate(root: yaml.Node | None, loc: Loc, offset: int | None = None, text: str = "") -> tuple[int, int]:
    """1-based line and column of `loc` (keys point at the key, items at the item; a missing key at its
    parent); with `offset`, the position inside a literal or one-line scalar."""
    import yaml

    if root is None:
        return 1, 1
    node: yaml.Node = root
    mark = root.start_mark
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                    mark, node = key.start_mark, value
                    break
            else:
                break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            mark = node.start_mark
        else:
            break
    else:
        if offset is not None and isinstance(node, yaml.ScalarNode):
            return _inside_scalar(node, offset, text) or (mark.line + 1, mark.column + 1)
    return mark.line + 1, mark.column + 1


def _inside_scalar(node: yaml.ScalarNode, offset: int, text: str) -> tuple[int, int] | None:
    before = node.value[:offset]
    if node.style == "|" and text:
        lines = text.splitlines()
        first = node.start_mark.line + 1
        body = [ln for ln in lines[first : node.end_mark.line + 1] if ln.strip()]
        if not body:
            return None
        indent = len(body[0]) - len(body[0].lstrip(" "))
        row = before.count("\n")
        return first + row + 1, indent + len(before) - (before.rfind("\n") + 1) + 1
    if node.start_mark.line == node.end_mark.line:
        quote = 1 if node.style in ('"', "'") else 0
        return node.start_mark.line + 1, node.start_mark.column + quote + offset + 1
    return None


# --------------------------------------------------------------------------- YAML syntax errors


def syntax_problem(text: str, message: str) -> tuple[int, int, str, str, str]:
    """A YAML syntax error with PyYAML's position (or the one yaml_rs names), and a one-line reason."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            reason = str(exc.problem or exc.context)
            ctx = exc.context_mark
            if exc.context and ctx is not None and exc.problem_mark is not None and ctx.line != mark.line:
                reason += f" ({exc.context} started at line {ctx.line + 1}:{ctx.column + 1})"
            return (mark.line + 1, mark.column + 1, "", "", f"YAML syntax error: {reason}")
    except yaml.YAMLError:
        pass
    return _yaml_rs_position(text, message)


def _yaml_rs_position(text: str, message: str) -> tuple[int, int, str, str, str]:
    found = re.search(r"line (\d+), column (\d+)", message)
    reason = message.strip().splitlines()[-1] if message.strip() else "unreadable YAML"
    if "duplicate mapping key" in message:
        line, col, first = _duplicate_key_position(text, message)
        key = message.split(":", 1)[-1].strip()
        reason = f"the key {key} appears twice in one mapping (first at line {first})"
        return (line, col, "", "", f"YAML syntax error: {reason}")
    if found:
        return (int(found.group(1)), int(found.group(2)), "", "", f"YAML syntax error: {reason}")
    return (1, 1, "", "", f"YAML syntax error: {reason}")


def _duplicate_key_position(text: str, message: str) -> tuple[int, int, int]:
    """Where a repeated key is (yaml_rs names the key but not the place; PyYAML's nodes know it)."""
    import yaml

    root = compose(text)
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen and repr(key.value) in message:
                        return key.start_mark.line + 1, key.start_mark.column + 1, seen[key.value]
                    seen.setdefault(key.value, key.start_mark.line + 1)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return 1, 1, 1


# --------------------------------------------------------------------------- pydantic errors


def normalise_loc(loc: Sequence[str | int]) -> Loc:
    """Drops the union tags pydantic adds (the question type, the param kind) so a loc follows the YAML."""
    out = list(loc)
    if (
        len(out) >= 3
        and out[0] == "questions"
        and isinstance(out[1], int)
        and out[2] in schema_names().question_types
    ):
        del out[2]
    i = 0
    while i < len(out) - 2:
        if out[i] == "params" and isinstance(out[i + 1], str) and out[i + 2] in schema_names().param_kinds:
            del out[i + 2]
        i += 1
    return tuple(p for p in out if p != "[key]")


def field_text(loc: Loc) -> str:
    """A loc as authors write paths: `args.n_heads`, `options[1].feedback`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def split_question(loc: Loc, data: Any) -> tuple[str, Loc]:
    """The question id (or `#n` without one) a deck-level loc belongs to, and the loc inside it."""
    if len(loc) >= 2 and loc[0] == "questions" and isinstance(loc[1], int):
        qid = f"#{loc[1] + 1}"
        questions = data.get("questions") if isinstance(data, Mapping) else None
        if isinstance(questions, list) and loc[1] < len(questions):
            item = questions[loc[1]]
            if isinstance(item, Mapping) and isinstance(item.get("id"), str):
                qid = item["id"]
        return qid, loc[2:]
    return "", loc


def issue_from_error(err: ErrorDetails, data: Any) -> Issue:
    """Rewords one pydantic error for a deck author and gives its loc in YAML terms."""
    kind = err["type"]
    raw_loc = tuple(err["loc"])
    loc = normalise_loc(raw_loc)
    ctx: Mapping[str, Any] = err.get("ctx") or {}
    got = _short(err.get("input"))
    msg = err["msg"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        allowed = _allowed_keys(loc[:-1], data)
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        hint = (
            f" (did you mean {close[0]!r}?)"
            if close
            else (f"; allowed: {', '.join(allowed)}" if allowed else "")
        )
        return Issue(loc, f"unknown key {key!r}{hint}")
    if kind == "missing":
        return Issue(loc, f"missing required key {loc[-1]!r}")
    if kind == "union_tag_invalid":
        known = ", ".join(schema_names().question_types)
        return Issue((*loc, "type"), f"unknown question type {ctx.get('tag')!r}; use one of {known}")
    if kind == "union_tag_not_found":
        return Issue((*loc, "type"), f"missing 'type' (one of {', '.join(schema_names().question_types)})")
    if kind == "param_kind":
        return Issue(loc, f"{msg}, got {got}")
    if kind == "string_pattern_mismatch":
        return Issue(loc, _pattern_message(loc, got))
    if kind in ("value_error", "assertion_error"):
        return Issue(loc, msg.removeprefix("Value error, ").removeprefix("Assertion failed, "))
    if kind in ("string_too_short",) and ctx.get("min_length") == 1:
        return Issue(loc, "should not be empty")
    text = msg
    for subject in ("Input", "List", "Tuple", "String", "Dictionary", "Value"):
        if text.startswith(subject + " should"):
            text = "should" + text[len(subject) + len(" should") :]
            break
    text = text.replace("a valid dictionary", "a mapping (key: value lines)").replace("valid list", "list")
    text = text.replace("a valid tuple", "a list").replace(" after validation", "")
    text = text.replace(" or object to extract fields from", "").replace("valid dictionary", "mapping")
    if kind == "model_attributes_type":
        text = "should be a mapping (key: value lines)"
    if kind.endswith(("_type", "_parsing", "literal_error")) or kind in (
        "enum",
        "int_from_float",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
    ):
        text = text.split(",")[0] if kind.endswith("_parsing") else text
        text = f"{text}, got {got}"
    return Issue(loc, text)


def _pattern_message(loc: Loc, got: str) -> str:
    if loc and loc[-1] in ("id", "topic"):
        return f"use lowercase letters, digits and hyphens (kebab-case), got {got}"
    if len(loc) >= 2 and loc[-2] == "params":
        return f"param names are letters, digits and _ (not starting with a digit), got {got}"
    return f"has characters that are not allowed, got {got}"


_PARAM_KEYS: dict[str, tuple[str, ...]] = {
    "value": ("value",),
    "choices": ("choices",),
    "range": ("range", "step"),
    "preset": ("preset",),
    "calc": ("calc", "args"),
    "matrix": ("matrix",),
}


def _allowed_keys(parent: Loc, data: Any) -> list[str]:
    """The keys allowed where an unknown key was found, for a 'did you mean' hint."""
    from quizapp.content import code_question, param_specs, questions, scenario_question, schema

    node = data
    for part in parent:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return []
    if not parent:
        return list(schema.Deck.model_fields)
    if len(parent) == 2 and parent[0] == "questions":
        models: dict[str, type[BaseModel]] = {
            "numeric": questions.NumericQuestion,
            "tensor": questions.TensorQuestion,
            "shape": questions.ShapeQuestion,
            "choice": questions.ChoiceQuestion,
            "flashcard": questions.FlashcardQuestion,
            "explain": questions.ExplainQuestion,
            "code": code_question.CodeQuestion,
            "scenario": scenario_question.ScenarioQuestion,
        }
        model = models.get(str(node.get("type"))) if isinstance(node, Mapping) else None
        return list(model.model_fields) if model is not None else []
    if len(parent) >= 2 and parent[-2] == "params" and isinstance(node, Mapping):
        kinds = [k for k in schema_names().param_kinds if k in node]
        return list(_PARAM_KEYS[kinds[0]]) if len(kinds) == 1 else list(schema_names().param_kinds)
    last = parent[-1]
    if last == "matrix":
        return list(param_specs.MatrixSpec.model_fields)
    if last == "tolerance":
        return ["kind", "value"]
    if isinstance(last, int) and len(parent) >= 2 and parent[-2] == "options":
        return list(questions.Option.model_fields)
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
