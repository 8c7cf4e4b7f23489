"""Provides DeckData, a valid deck as the catalog holds it, and its form in the validated-deck cache.

A cache payload is a header line (deck fields, question ids, where each question's JSON ends) followed by
the questions' JSON, written from the questions as parsed from YAML (which validate to the same models).
Reading it parses only the header; each question becomes a model when first used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from quizapp import paths
from quizapp.errors import QuizappError

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from quizapp.content.schema import Deck, Question

Parsed = tuple[list[Any], list[str | None]]
"""A valid deck's questions as parsed from YAML, with each one's check signature (deckcheck.signature)."""


@dataclass(frozen=True)
class DeckRef:
    """A deck as plans, readiness, counts and screens pass it around: its id, title and question ids
    (Catalog.deck_headers), the one deck shape between modules."""

    id: str
    title: str
    question_ids: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class DeckData:
    """A valid deck's header and questions. A question read from the cache stays a slice of JSON (it was
    validated before the cache was written) until `question(i)` first builds its model."""

    id: str
    title: str
    topic: str
    description: str
    ids: tuple[str, ...]
    _built: list[Question | None]
    _blob: bytes = b""
    _ends: tuple[int, ...] = ()
    after: tuple[str, ...] = ()
    difficulties: tuple[int, ...] = ()
    """Each question's difficulty, so queues can order new cards without building a single model."""
    tags: tuple[tuple[str, ...], ...] = ()
    types: tuple[str, ...] = ()
    """Each question's type, so the plan prices a day in minutes without building a single model."""

    def question(self, index: int) -> Question:
        """The model of question `index`, built once from the cached JSON if need be."""
        from pydantic import ValidationError

        built = self._built[index]
        if built is None:
            start = self._ends[index - 1] if index else 0

            try:
                built = question_adapter().validate_json(self._blob[start : self._ends[index]])
            except ValidationError as exc:  # only a cache written by other code could get here
                raise QuizappError(
                    f"the deck cache in {paths.cache_dir()} does not match this version; delete it "
                    f"({exc.error_count()} errors in question {self.ids[index]!r})"
                ) from None
            self._built[index] = built
        return built

    def to_deck(self) -> Deck:
        """The pydantic Deck, from questions that are already valid (no second validation)."""
        from quizapp.content.schema import Deck

        questions = tuple(self.question(i) for i in range(len(self.ids)))
        return Deck.model_construct(
            id=self.id,
            title=self.title,
            topic=self.topic,
            description=self.description,
            after=self.after,
            questions=questions,
        )

    @classmethod
    def from_deck(cls, deck: Deck) -> DeckData:
        """Wraps a freshly validated Deck."""
        ids = tuple(q.id for q in deck.questions)
        return cls(
            deck.id,
            deck.title,
            deck.topic,
            deck.description,
            ids,
            list(deck.questions),
            after=deck.after,
            difficulties=tuple(q.difficulty for q in deck.questions),
            tags=tuple(q.tags for q in deck.questions),
            types=tuple(q.type for q in deck.questions),
        )

    def to_cache(self, parsed: Parsed | None = None) -> list[bytes]:
        """A header line (deck fields, ids, where each question's JSON ends) then the questions' JSON,
        as pieces to join.

        `parsed` is the questions as parsed from the YAML, which serialise faster than the models and
        validate to the same questions, with their check signatures (see `questions_json`).
        """
        if parsed is not None:
            blobs = questions_json(*parsed)
        else:
            adapter = question_adapter()
            blobs = [adapter.dump_json(self.question(i), exclude_unset=True) for i in range(len(self.ids))]
        head: dict[str, Any] = {"id": self.id, "title": self.title, "topic": self.topic}
        head.update(description=self.description, ids=list(self.ids), ends=list(accumulate(map(len, blobs))))
        head.update(
            after=list(self.after), difficulties=list(self.difficulties), tags=[list(t) for t in self.tags]
        )
        head.update(types=list(self.types))
        return [json.dumps(head, separators=(",", ":")).encode(), b"\n", *blobs]

    @classmethod
    def from_cache(cls, payload: bytes) -> DeckData:
        """Reads what to_cache wrote: only the header is parsed now."""
        line, _, blob = payload.partition(b"\n")
        head = json.loads(line)
        ids, ends = tuple(head["ids"]), tuple(head["ends"])
        if len(ids) != len(ends) or (ends and ends[-1] != len(blob)):
            raise ValueError("cache index does not match its payload")
        built: list[Question | None] = [None] * len(ids)
        difficulties = tuple(head["difficulties"])
        tags = tuple(tuple(t) for t in head["tags"])
        types = tuple(str(t) for t in head["types"])  # a cache from before types were kept is rebuilt
        if len(difficulties) != len(ids) or len(tags) != len(ids) or len(types) != len(ids):
            raise ValueError("cache header does not match its questions")
        return cls(
            head["id"],
            head["title"],
            head["topic"],
            head["description"],
            ids,
            built,
            blob,
            ends,
            after=tuple(head["after"]),
            difficulties=difficulties,
            tags=tags,
            types=types,
        )


@cache
def question_adapter() -> TypeAdapter[Question]:
    """The pydantic adapter for one question, built on first use: a warm start never needs pydantic,
    because the deck headers in the cache hold what the home screen shows."""
    from pydantic import TypeAdapter

    from quizapp.content.schema import Question

    return TypeAdapter(Question)


_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def questions_json(items: list[Any], keys: list[str | None]) -> list[bytes]:
    """Each parsed question as JSON. pydantic_core writes them, several times faster than the json
    module; a question holding a value plain JSON cannot carry (a set, a non-text key) goes through the
    json module, which refuses it, so such a deck is not cached, as before. Questions with the same check
    signature have equal params and args, so those are looked at once per signature."""
    from pydantic_core import to_json

    plain: dict[str | None, bool] = {}
    out = []
    for item, key in zip(items, keys, strict=True):
        ok = plain.get(key)
        if ok is None:
            ok = _plain(item.get("params")) and _plain(item.get("args"))
            if key is not None:
                plain[key] = ok
        out.append(to_json(item) if ok else _JSON.encode(item).encode())
    return out


def _plain(value: Any) -> bool:
    """True when `value` is made only of what JSON gives back unchanged: text-keyed dicts, lists, text,
    numbers, booleans and null. Only params and args hold untyped values; the schema types the rest."""
    kind = type(value)
    if kind is dict:
        return all([type(k) is str and (type(v) is str or _plain(v)) for k, v in value.items()])
    if kind is list:
        return all([type(v) is str or _plain(v) for v in value])
    return kind is str or kind is int or kind is float or kind is bool or value is None
