"""New cards come interleaved: every topic early, easy before hard, prerequisites first, same per seed."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from quizapp.content.catalog import load_catalog
from quizapp.study.interleave import Placed, interleave

decks_strategy = st.dictionaries(
    st.sampled_from([f"deck-{c}" for c in "abcdefgh"]),
    st.lists(st.integers(1, 3), min_size=1, max_size=12),
    min_size=1,
)


def _questions(decks: dict[str, list[int]]) -> list[Placed]:
    return [Placed(f"{d}-{i}", d, level) for d, levels in decks.items() for i, level in enumerate(levels)]


@given(decks_strategy, st.integers(0, 2**32 - 1))
def test_the_order_is_a_permutation_fixed_by_the_seed_with_easy_cards_first_in_each_deck(
    decks: dict[str, list[int]], seed: int
) -> None:
    questions = _questions(decks)
    order = interleave(questions, {}, seed=seed)
    assert sorted(q.question_id for q in order) == sorted(q.question_id for q in questions)
    assert order == interleave(list(reversed(questions)), {}, seed=seed)
    for deck in decks:
        levels = [q.difficulty for q in order if q.deck_id == deck]
        assert levels == sorted(levels)


@given(st.integers(2, 8), st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_decks_of_equal_size_each_give_one_card_before_any_gives_a_second(
    n_decks: int, size: int, seed: int
) -> None:
    decks = {f"deck-{d}": [1] * size for d in range(n_decks)}
    order = interleave(_questions(decks), {}, seed=seed)
    for round_ in range(size):
        chunk = order[round_ * n_decks : (round_ + 1) * n_decks]
        assert len({q.deck_id for q in chunk}) == n_decks


@given(decks_strategy, st.integers(0, 2**32 - 1))
def test_a_deck_starts_only_after_the_easy_questions_of_its_prerequisite(
    decks: dict[str, list[int]], seed: int
) -> None:
    decks = {**decks, "base": [1, 1, 2, 3], "next": [1, 2]}
    order = interleave(_questions(decks), {"next": ["base"], "base": ["missing"]}, seed=seed)
    position = {q.question_id: i for i, q in enumerate(order)}
    first_next = min(position[q] for q in ("next-0", "next-1"))
    assert position["base-0"] < first_next and position["base-1"] < first_next


def test_a_cycle_of_prerequisites_still_orders_every_card() -> None:
    decks = {"a": [1, 2], "b": [1, 1], "c": [3]}
    order = interleave(_questions(decks), {"a": ["b"], "b": ["c"], "c": ["a", "c"]}, seed=3)
    assert len(order) == 5


def test_in_the_bundled_bank_the_first_ten_new_cards_span_at_least_four_decks() -> None:
    outlines = load_catalog().question_outlines()
    placed = [Placed(o.question_id, o.deck_id, o.difficulty) for o in outlines]
    after = {o.deck_id: o.deck_after for o in outlines}
    for seed in range(20):
        first = interleave(placed, after, seed=seed)[:10]
        assert len(Counter(q.deck_id for q in first)) >= 4
