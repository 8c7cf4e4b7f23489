"""Provides the order new cards are introduced in: topics mixed, easy before hard, prerequisites first.

Deck by deck in alphabetical order, a learner with 20 new cards a day would spend the week before an
interview on three decks and never meet the rest. Instead every deck is spread evenly over the whole
sequence (stride scheduling): card i of a deck with n new cards sits at (i + u) / n on a line from 0 to
1, where u is a per-deck offset fixed by the seed, and the cards are taken in the order of that line.
So the first cards come from as many decks as there are, and each deck runs out at about the same time.
Within a deck, easier questions come first. A deck that names prerequisites (`after:` in its YAML)
starts only where its prerequisites' easiest questions (difficulty 1) are done.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Placed:
    """A question to introduce, with what the order needs to know of it."""

    question_id: str
    deck_id: str
    difficulty: int


def interleave(
    questions: Sequence[Placed], after: Mapping[str, Iterable[str]], *, seed: int
) -> tuple[Placed, ...]:
    """The questions in the order to introduce them; the same for the same seed and questions."""
    decks: dict[str, list[Placed]] = {}
    for q in questions:
        decks.setdefault(q.deck_id, []).append(q)
    offsets = {deck_id: _uniform(seed, "deck", deck_id) for deck_id in decks}  # u per deck, in [0, 1)
    for cards in decks.values():
        cards.sort(key=lambda q: (q.difficulty, _uniform(seed, "card", q.question_id), q.question_id))
    starts = _starts(decks, after)
    keyed = []
    for deck_id, cards in decks.items():
        start, n = starts[deck_id], len(cards)
        for i, card in enumerate(cards):
            keyed.append((start + (1 - start) * (i + offsets[deck_id]) / n, card.question_id, card))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return tuple(card for _, _, card in keyed)


def _uniform(seed: int, kind: str, name: str) -> float:
    """A number in [0, 1) fixed by the seed and the name alone, so adding a deck or a question, or
    listing them in another order, leaves everyone else's place unchanged."""
    digest = hashlib.blake2b(f"{seed}:{kind}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


uniform = _uniform
"""The same number, for the plan's ranking (quizapp.study.priority): one card order in both."""


def _starts(decks: Mapping[str, list[Placed]], after: Mapping[str, Iterable[str]]) -> dict[str, float]:
    """Where on the line each deck may start: after the easy share of every prerequisite (transitively;
    a cycle or an unknown deck id is ignored rather than refused, since decks come from many authors)."""
    starts: dict[str, float] = {}

    def start(deck_id: str, visiting: frozenset[str]) -> float:
        if deck_id in starts:
            return starts[deck_id]
        at = 0.0
        for pre in after.get(deck_id, ()):
            if pre in decks and pre not in visiting and pre != deck_id:
                cards = decks[pre]
                easy = sum(1 for q in cards if q.difficulty <= 1) / len(cards)
                base = start(pre, visiting | {deck_id})
                at = max(at, base + (1 - base) * easy)
        starts[deck_id] = min(at, 0.9)  # a prerequisite never pushes a whole deck to the very end
        return starts[deck_id]

    for deck_id in decks:
        start(deck_id, frozenset())
    return starts
