"""Provides the check of one deck file's bytes: decoded, its text held to the limits of
quizapp.content.guards (aliases included) before any parser sees it, parsed with yaml_rs (PyYAML's C
loader as a fallback), validated against the schema and checked by quizapp.content.checks.static, every
problem in the file reported at its line. While a big file is parsed, another thread checks the templates
at its head (quizapp.content.checks.during_parse).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    import yaml_rs
except ImportError:  # pragma: no cover (a dependency; without it, PyYAML's C loader parses: see parse_yaml)
    yaml_rs = None  # type: ignore[assignment]

from quizapp.collector import no_collections
from quizapp.content import guards
from quizapp.content.deck import DeckData, Parsed, question_adapter
from quizapp.content.deck_cache import Outcome
from quizapp.content.problems import (
    Issue,
    compose,
    field_text,
    issue_from_error,
    locate,
    split_question,
    syntax_problem,
)

if TYPE_CHECKING:
    from quizapp.content.checks.during_parse import Ahead
    from quizapp.content.schema import Deck


def parse_yaml(text: str) -> Any:
    """The fastest safe parse available: yaml_rs, else PyYAML's C safe loader. Raises ValueError."""
    if yaml_rs is None:  # pragma: no cover (yaml_rs is a dependency; the fallback keeps odd installs working)
        import yaml  # only without yaml_rs: importing PyYAML costs the catalog's start about 10 ms

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            with no_collections():
                return yaml.load(text, Loader=loader)
        except yaml.YAMLError as exc:
            raise ValueError(str(exc)) from None
    try:
        with no_collections():
            return yaml_rs.loads(text, parse_datetime=False)
    except BaseException as exc:  # a Rust panic arrives as PanicException, a BaseException: skip the deck
        if type(exc).__name__ != "PanicException":
            raise
        raise ValueError(f"the YAML parser failed on this file: {exc}") from None


def validate_deck(raw: bytes, proven: Path | None = None) -> tuple[Outcome, Parsed | None]:
    """Parses and checks a file's bytes; every problem in the file is reported, not just the first."""
    from pydantic import ValidationError

    from quizapp.content.checks import static as static_checks
    from quizapp.content.schema import Deck

    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark some editors write
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return Outcome(None, ((line, 1, "", "", "the file is not UTF-8 text"),)), None
    refused = guards.text_problem(text)
    if refused is not None:  # before any parser: a C parser's stack must never meet such a file
        return Outcome(None, ((*refused[:2], "", "", refused[2]),)), None
    ahead = _check_ahead(text, proven)
    try:
        data = parse_yaml(text)
    except ValueError as exc:
        return Outcome(None, (syntax_problem(text, str(exc)),)), None
    finally:
        if ahead is not None:
            ahead.stop()
    if not isinstance(data, dict):
        msg = "a deck file is a mapping with id, title, topic, description and questions"
        return Outcome(None, ((1, 1, "", "", msg),)), None
    too_big = guards.data_problem(data)
    if too_big is not None:
        qid, inner = split_question(*too_big[:1], data)
        line = guards.line_of_id(text, qid)  # composing a huge file for its marks would take seconds
        return Outcome(None, ((line, 1, qid, field_text(inner), too_big[1]),)), None
    if guards.may_hold_controls(raw):
        data, _ = guards.clean_text(data)
    issues: list[Issue] = []

    deck: Deck | None = None
    with no_collections():
        try:
            deck = Deck.model_validate(data)
        except ValidationError as exc:
            issues.extend(issue_from_error(e, data) for e in exc.errors())
    questions = _valid_questions(deck, data, issues)
    keys: list[str | None] = []
    if questions:
        if proven is not None:
            static_checks.remember_proven(proven)
        models = [question for _, question in questions]
        raws = [data["questions"][index] for index, _ in questions]
        keys = [static_checks.signature(question, item) for question, item in zip(models, raws, strict=True)]
        try:
            with no_collections():
                found = static_checks.check_questions(models, raws, keys)
        except (MemoryError, OverflowError, ValueError, RecursionError) as exc:
            # sizes or values no bound foresaw: this deck is skipped, the others load
            found = [[] for _ in questions]
            found[0] = [
                Issue((), "checking this question ran out of memory: its sizes or inputs are too large")
                if isinstance(exc, MemoryError)
                else Issue((), f"checking this deck's questions failed on a value too large: {exc}")
            ]
        for (index, _), problems in zip(questions, found, strict=True):
            if problems:
                issues.extend(Issue(("questions", index, *i.loc), i.message, i.offset) for i in problems)
        if proven is not None:
            static_checks.save_proven(proven)
    issues.extend(_duplicate_ids(questions))
    if deck is not None and not issues:  # then `questions` holds every question, in order
        return Outcome(DeckData.from_deck(deck), (), deck.id), (data["questions"], keys)
    deck_id = data.get("id") if isinstance(data.get("id"), str) else ""
    return Outcome(None, place(issues, text, data), str(deck_id)), None


def _check_ahead(text: str, proven: Path | None) -> Ahead | None:
    """For a big file, a thread that proves templates while `text` is parsed
    (quizapp.content.checks.during_parse), told
    first which templates earlier runs proved."""
    from quizapp.content.checks import during_parse
    from quizapp.content.checks import static as static_checks

    if len(text) < during_parse.MIN_TEXT:
        return None

    if proven is not None:
        static_checks.remember_proven(proven)
    return during_parse.Ahead(text)


def _valid_questions(deck: Deck | None, data: dict[str, Any], issues: list[Issue]) -> list[tuple[int, Any]]:
    """The schema-valid questions with their index (validated one by one when the deck failed)."""
    from pydantic import ValidationError

    if deck is not None:
        return list(enumerate(deck.questions))
    items = data.get("questions")
    if not isinstance(items, list):
        return []

    bad = {i.loc[1] for i in issues if len(i.loc) >= 2 and i.loc[0] == "questions"}
    out = []
    for index, item in enumerate(items):
        if index not in bad:
            try:
                out.append((index, question_adapter().validate_python(item)))
            except ValidationError:  # pragma: no cover (already reported by the deck validation)
                continue
    return out


def _duplicate_ids(questions: list[tuple[int, Any]]) -> list[Issue]:
    ids = [question.id for _, question in questions]
    if len(set(ids)) == len(ids):  # the usual case, told at C speed
        return []
    first: dict[str, int] = {}
    issues = []
    for index, question in questions:
        if question.id in first:
            issues.append(
                Issue(
                    ("questions", index, "id"),
                    f"duplicate question id {question.id!r}",
                    also=("questions", first[question.id], "id"),
                )
            )
        else:
            first[question.id] = index
    return issues


def place(issues: list[Issue], text: str, data: Any) -> tuple[tuple[int, int, str, str, str], ...]:
    """Gives each issue its line and column (composing the YAML once, on this error path only)."""
    root = compose(text)
    placed = []
    for issue in issues:
        line, col = locate(root, issue.loc, issue.offset, text)
        qid, inner = split_question(issue.loc, data)
        message = issue.message
        if issue.also is not None:
            message += f" (also at line {locate(root, issue.also)[0]})"
        placed.append((line, col, qid, field_text(inner), message))
    placed.sort(key=lambda p: (p[0], p[1]))
    return tuple(placed)
