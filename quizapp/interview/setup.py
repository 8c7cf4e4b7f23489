"""Provides the mock interview's set-up: the limits and difficulty mixes the form offers, the defaults it
starts from, reading what was typed, and choosing the questions with a seeded rng (at most one coding
question and one case study). InterviewSession.start (quizapp.interview.session) runs it; the set-up
screen calls it to check and count a choice before anything starts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from quizapp.errors import QuizappError
from quizapp.store import InterviewConfig, Settings, Store, load_settings
from quizapp.store.interviews import last_setup
from quizapp.study import QuestionRef, QuestionSet

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog

INTERVIEW_KINDS: frozenset[str] = frozenset(
    {"numeric", "tensor", "shape", "choice", "explain", "code", "scenario"}
)
"""Kinds an interview asks: everything but flashcards, which are self-rated recall cards."""
MAX_CODE_QUESTIONS = 1
MAX_SCENARIOS = 1
"""A case study takes several minutes: a mock interview asks at most one."""
"""A coding question takes a real interview's whole slot; one per mock interview."""
MIN_FOR_CODE = 6
"""An interview of this many questions or more includes one coding question when its decks have one."""
MAX_QUESTIONS = 200
MAX_MINUTES = 600
DIFFICULTY_MIXES: dict[str, tuple[int, ...]] = {
    "any": (),
    "balanced": (1, 1, 1),
    "warm-up": (2, 2, 1),
    "hard": (0, 1, 2),
}
"""Named mixes: weights for difficulty 1, 2 and 3 (empty: as they come from the selected questions)."""


def config_from_settings(settings: Settings, **changes: object) -> InterviewConfig:
    """The set-up from the user's interview defaults (10 questions, 30 minutes) alone."""
    base = InterviewConfig(
        questions=settings.interview_questions,
        minutes=settings.interview_minutes,
        misses_to_review=settings.interview_misses_to_review,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def setup_defaults(store: Store) -> InterviewConfig:
    """The set-up the form starts from: the last one used (InterviewSession.start remembers it), else
    the interview settings."""
    settings = load_settings(store)
    last = last_setup(store)
    if last is None:
        return config_from_settings(settings)
    if last.misses_to_review is None:
        last = replace(last, misses_to_review=settings.interview_misses_to_review)
    return last


def _with_code(catalog: Catalog, pool: QuestionSet, chosen: list[QuestionRef]) -> list[QuestionRef]:
    """An interview of MIN_FOR_CODE questions or more asks one coding question when the chosen decks
    have one: it takes the place of the last (hardest) question drawn."""
    if len(chosen) < MIN_FOR_CODE or any(catalog.type_of(r.question_id) == "code" for r in chosen):
        return chosen
    code = [r for r in pool.ordered if catalog.type_of(r.question_id) == "code"]
    if not code:
        return chosen
    with_code = [*chosen[:-1], code[0]]
    order = {r.question_id: i for i, r in enumerate(with_code)}
    return sorted(with_code, key=lambda r: (r.difficulty, order[r.question_id]))


def parse_tags(text: str) -> tuple[str, ...]:
    """Tags typed as "kv-cache, gqa" or "kv-cache gqa", in order, without duplicates."""
    seen: dict[str, None] = {}
    for part in text.replace(",", " ").split():
        seen.setdefault(part.strip().lower(), None)
    return tuple(seen)


def parse_count(text: str, what: str, low: int, high: int) -> int:
    """A whole number typed in the set-up form, or QuizappError saying what is allowed."""
    try:
        value = int(text.strip())
    except ValueError:
        raise QuizappError(f"The {what} must be a whole number, got {text.strip()!r}.") from None
    if not low <= value <= high:
        raise QuizappError(f"The {what} must be between {low} and {high}, got {value}.")
    return value


def candidates(catalog: Catalog, questions: QuestionSet, config: InterviewConfig) -> QuestionSet:
    """The questions the set-up allows: in the chosen decks (all if none), with one of the chosen tags
    (any if none), of a kind an interview asks. Unknown decks or tags are a QuizappError naming them."""
    known_decks = {r.deck_id for r in questions.ordered}
    unknown = [d for d in config.deck_ids if d not in known_decks]
    if unknown:
        raise QuizappError(f"Unknown deck(s): {', '.join(unknown)}. Known: {', '.join(sorted(known_decks))}.")
    known_tags = {t for r in questions.ordered for t in r.tags}
    unknown = [t for t in config.tags if t not in known_tags]
    if unknown:
        raise QuizappError(
            f"No question has the tag(s) {', '.join(unknown)}. "
            f"Some tags: {', '.join(sorted(known_tags)[:12])}."
        )
    decks, tags = set(config.deck_ids), set(config.tags)
    kept = [
        r.question_id
        for r in questions.ordered
        if (not decks or r.deck_id in decks)
        and (not tags or tags.intersection(r.tags))
        and catalog.type_of(r.question_id) in INTERVIEW_KINDS
    ]
    if not kept:
        raise QuizappError("No interview question matches those decks and tags; choose more of them.")
    return questions.select(question_ids=kept)


def _at_most_one_code(catalog: Catalog, pool: QuestionSet, rng: random.Random) -> QuestionSet:
    """The pool with all but MAX_CODE_QUESTIONS coding questions, and all but MAX_SCENARIOS case
    studies (each picked with `rng`), left out: each is long, and one is enough to show the skill."""
    pool = _at_most(catalog, pool, rng, "code", MAX_CODE_QUESTIONS)
    return _at_most(catalog, pool, rng, "scenario", MAX_SCENARIOS)


def _at_most(catalog: Catalog, pool: QuestionSet, rng: random.Random, kind: str, most: int) -> QuestionSet:
    """The pool with all but `most` questions of `kind` (picked with `rng`) left out."""
    code = [r.question_id for r in pool.ordered if catalog.type_of(r.question_id) == kind]
    if len(code) <= most:
        return pool
    kept = set(rng.sample(code, most))
    return pool.select(
        question_ids=[
            r.question_id for r in pool.ordered if r.question_id not in code or r.question_id in kept
        ]
    )


def check_config(config: InterviewConfig) -> InterviewConfig:
    """The set-up if its numbers make sense, else a QuizappError saying what is allowed."""
    if not 1 <= config.questions <= MAX_QUESTIONS:
        raise QuizappError(f"An interview has 1 to {MAX_QUESTIONS} questions, got {config.questions}.")
    if not 1 <= config.minutes <= MAX_MINUTES:
        raise QuizappError(f"An interview lasts 1 to {MAX_MINUTES} minutes, got {config.minutes}.")
    mix = config.difficulty_mix
    if mix and (len(mix) != 3 or min(mix) < 0 or sum(mix) == 0):
        raise QuizappError(
            f"A difficulty mix is three weights for difficulty 1, 2 and 3, e.g. (1, 1, 1); got {mix}."
        )
    return config


def choose(pool: QuestionSet, count: int, mix: Sequence[int], rng: random.Random) -> list[QuestionRef]:
    """Up to `count` distinct questions drawn with `rng`, split across difficulties by `mix` (largest
    remainder; a level with too few questions is topped up from the others), asked easiest first."""
    refs = list(pool.ordered)
    count = min(count, len(refs))
    if not mix:
        chosen = rng.sample(refs, count)
    else:
        levels = {d: [r for r in refs if min(3, max(1, r.difficulty)) == d] for d in (1, 2, 3)}
        total = sum(mix)
        exact = [count * w / total for w in mix]
        want = [int(x) for x in exact]
        for i in sorted(range(3), key=lambda i: exact[i] - want[i], reverse=True)[: count - sum(want)]:
            want[i] += 1
        chosen = []
        for level, n in zip((1, 2, 3), want, strict=True):
            chosen += rng.sample(levels[level], min(n, len(levels[level])))
        rest = [r for r in refs if r not in chosen]
        chosen += rng.sample(rest, count - len(chosen))
    order = {r.question_id: i for i, r in enumerate(chosen)}
    return sorted(chosen, key=lambda r: (r.difficulty, order[r.question_id]))
