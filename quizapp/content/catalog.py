"""Provides the Catalog: every valid deck and question, the problems of the rest, and seeded instances.

```python
cat = load_catalog()                    # bundled decks + QUIZAPP_HOME/decks + extra paths
inst = cat.instance("kv-cache-llama", seed=7)
```
Loading never runs a calculator for a cached deck; an Instance is computed only when asked for, and a
question read from the cache becomes a pydantic model only when first looked up.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from quizapp.collector import no_collections
from quizapp.content.deck import DeckData, DeckRef
from quizapp.content.deck_files import default_sources, display_path, find_deck_files
from quizapp.content.load import Loaded, load_file
from quizapp.content.problems import Problem, SkippedDeck, compose, locate
from quizapp.errors import QuizappError

if TYPE_CHECKING:
    import yaml

    from quizapp.content.instance import Instance
    from quizapp.content.schema import Deck, Question


class _Questions(Mapping[str, "Question"]):
    """Question id -> Question, each built from its deck's data on first access."""

    def __init__(self, where: Mapping[str, tuple[DeckData, int]]) -> None:
        self._where = where

    def __getitem__(self, question_id: str) -> Question:
        deck, index = self._where[question_id]
        return deck.question(index)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, question_id: object) -> bool:
        return question_id in self._where

    def type_of(self, question_id: str) -> str:
        deck, index = self._where[question_id]
        return deck.types[index]


class _Decks(Mapping[str, "Deck"]):
    """Deck id -> Deck, each assembled on first access from questions that are already valid."""

    def __init__(self, data: Mapping[str, DeckData]) -> None:
        self._data = data
        self._built: dict[str, Deck] = {}

    def __getitem__(self, deck_id: str) -> Deck:
        deck = self._built.get(deck_id)
        if deck is None:
            deck = self._built[deck_id] = self._data[deck_id].to_deck()
        return deck

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, deck_id: object) -> bool:
        return deck_id in self._data

    def fields(self, deck_id: str) -> DeckFields:
        """The deck's own fields, read from its cache header: not one question model is built."""
        d = self._data[deck_id]
        return DeckFields(d.id, d.title, d.topic, d.description, d.after)

    def refs(self) -> tuple[DeckRef, ...]:
        """Every deck's id, title and question ids, without building a single question model."""
        return tuple(DeckRef(d.id, d.title, d.ids) for d in self._data.values())

    def data(self) -> Iterable[DeckData]:
        return self._data.values()


@dataclass(frozen=True)
class DeckFields:
    """A deck's own fields without its questions: what an instance or a report shows of its deck."""

    id: str
    title: str
    topic: str
    description: str
    after: tuple[str, ...]


@dataclass(frozen=True)
class QuestionOutline:
    """What ordering and scheduling need to know of a question, without its text."""

    question_id: str
    deck_id: str
    difficulty: int
    tags: tuple[str, ...]
    deck_after: tuple[str, ...]
    """The prerequisites of its deck (the deck's `after`)."""
    type: str = ""
    """numeric, choice, code, ...: what the plan prices a question at."""


@dataclass(frozen=True, eq=False)
class Catalog:
    """The loaded question bank; `problems` lists every load error, `skipped` the decks they kept out."""

    decks: Mapping[str, Deck]
    questions: Mapping[str, Question]
    problems: tuple[Problem, ...]
    skipped: tuple[SkippedDeck, ...]
    files: Mapping[str, Path]
    """Deck id -> the file it came from."""
    _deck_of: Mapping[str, str]

    def deck_refs(self) -> tuple[DeckRef, ...]:
        """Every deck's id, title and question ids, in load order; cheap, for plans and counts."""
        decks = self.decks
        if isinstance(decks, _Decks):
            return decks.refs()
        return tuple(DeckRef(d.id, d.title, tuple(q.id for q in d.questions)) for d in decks.values())

    def question_outlines(self) -> tuple[QuestionOutline, ...]:
        """Every question's id, deck, difficulty and tags, and each deck's prerequisites, in load order,
        read from the deck headers: what the queues need, without building one question model."""
        decks = self.decks
        if isinstance(decks, _Decks):
            return tuple(
                QuestionOutline(qid, d.id, d.difficulties[i], d.tags[i], d.after, d.types[i])
                for d in decks.data()
                for i, qid in enumerate(d.ids)
            )
        return tuple(
            QuestionOutline(q.id, d.id, q.difficulty, q.tags, d.after, q.type)
            for d in decks.values()
            for q in d.questions
        )

    def question(self, question_id: str) -> Question:
        """One question by id; an unknown id is a QuizappError with the closest known ids."""
        try:
            return self.questions[question_id]
        except KeyError:
            close = difflib.get_close_matches(question_id, list(self.questions), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise QuizappError(f"no question with id {question_id!r}{hint}") from None

    def type_of(self, question_id: str) -> str:
        """A question's type (numeric, choice, code, ...) read from its deck's header, without building its
        model: the interview filters a 10,000-question deck by type while the set-up form is open."""
        questions = self.questions
        if isinstance(questions, _Questions) and question_id in questions:
            return questions.type_of(question_id)
        return self.question(question_id).type

    def deck_of(self, question_id: str) -> Deck:
        """The deck a question belongs to, with every question model built (for the deck's header alone,
        `deck_fields` is cheap: a 10,000-question deck costs a second to build)."""
        self.question(question_id)
        return self.decks[self._deck_of[question_id]]

    def deck_fields(self, question_id: str) -> DeckFields:
        """The id, title and topic of a question's deck, without building its questions; an unknown id is
        a QuizappError with the closest known ids."""
        if question_id not in self._deck_of:
            self.question(question_id)  # raises, naming the closest known ids
        deck_id = self._deck_of[question_id]
        decks = self.decks
        if isinstance(decks, _Decks):
            return decks.fields(deck_id)
        deck = decks[deck_id]
        return DeckFields(deck.id, deck.title, deck.topic, deck.description, tuple(deck.after))

    def instance(self, question_id: str, seed: int) -> Instance:
        """The question made concrete for `seed`; the same seed always gives the same instance."""
        from quizapp.content.instantiate import instantiate

        question = self.question(question_id)
        deck = self.deck_fields(question_id)
        return instantiate(question, deck_id=deck.id, deck_title=deck.title, seed=seed)


def load_catalog(
    extra_paths: Iterable[Path | str] = (), *, use_cache: bool = True, include_default: bool = True
) -> Catalog:
    """Loads the bundled decks, the user's decks and `extra_paths`; bad decks are skipped, never fatal.

    When two files use the same deck or question id, the one loaded first wins (bundled, then the user's
    folder, then extra paths in order) and the other deck is skipped with both places named.
    """
    with no_collections():  # loading builds many long-lived containers; collecting midway only costs time
        return _load(extra_paths, use_cache=use_cache, include_default=include_default)


def _load(extra_paths: Iterable[Path | str], *, use_cache: bool, include_default: bool) -> Catalog:
    sources = [*(default_sources() if include_default else ()), *extra_paths]
    files, problems = find_deck_files(sources)
    decks: dict[str, DeckData] = {}
    deck_files: dict[str, Path] = {}
    questions: dict[str, tuple[DeckData, int]] = {}
    deck_of: dict[str, str] = {}
    where: dict[str, tuple[Path, int]] = {}  # question id -> (file, index), for duplicate messages
    skipped: list[SkippedDeck] = []
    for path in files:
        loaded = load_file(path, use_cache=use_cache)
        clashes = _clashes(loaded, deck_files, where) if loaded.deck is not None else ()
        if loaded.deck is None or clashes:
            bad = loaded.problems or clashes
            problems.extend(bad)
            skipped.append(SkippedDeck(display_path(path), loaded.deck_id, tuple(bad)))
            continue
        deck = loaded.deck
        decks[deck.id] = deck
        deck_files[deck.id] = path
        n = len(deck.ids)  # the three maps filled at C speed: a deck can hold 10,000 questions
        questions.update(zip(deck.ids, zip(repeat(deck, n), range(n), strict=True), strict=True))
        deck_of.update(dict.fromkeys(deck.ids, deck.id))
        where.update(zip(deck.ids, zip(repeat(path, n), range(n), strict=True), strict=True))
    skipped_files = {s.file for s in skipped}
    for p in problems:
        if p.file not in skipped_files and p.message == "no such deck file or folder":
            skipped.append(SkippedDeck(p.file, "", (p,)))
    return Catalog(
        decks=_Decks(decks),
        questions=_Questions(questions),
        problems=tuple(problems),
        skipped=tuple(skipped),
        files=MappingProxyType(deck_files),
        _deck_of=MappingProxyType(deck_of),
    )


def _clashes(
    loaded: Loaded, deck_files: Mapping[str, Path], where: Mapping[str, tuple[Path, int]]
) -> tuple[Problem, ...]:
    """Problems for ids this deck shares with decks already loaded, naming both places."""
    deck = loaded.deck
    assert deck is not None
    found: list[tuple[tuple[str | int, ...], str, Path, tuple[str | int, ...]]] = []
    if deck.id in deck_files:
        found.append((("id",), "", deck_files[deck.id], ("id",)))
    shared = () if where.keys().isdisjoint(deck.ids) else deck.ids
    for index, question_id in enumerate(shared):
        if question_id in where:
            other, other_index = where[question_id]
            found.append((("questions", index, "id"), question_id, other, ("questions", other_index, "id")))
    if not found:
        return ()
    trees: dict[Path, yaml.Node | None] = {}
    out = []
    for loc, qid, other, other_loc in found:
        line, col = locate(_tree(loaded.path, trees), loc)
        other_line, other_col = locate(_tree(other, trees), other_loc)
        what = f"question id {qid!r}" if qid else f"deck id {deck.id!r}"
        field = "id"
        out.append(
            Problem(
                display_path(loaded.path),
                line,
                col,
                qid,
                field,
                f"duplicate {what}, already used at {display_path(other)}:{other_line}:{other_col}",
            )
        )
    return tuple(out)


def _tree(path: Path, trees: dict[Path, yaml.Node | None]) -> yaml.Node | None:
    if path not in trees:
        try:
            trees[path] = compose(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            trees[path] = None
    return trees[path]
