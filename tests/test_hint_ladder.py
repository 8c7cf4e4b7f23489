"""The hint ladder climbs: each rung reveals more than the one before, and none gives away the last step
(the answer), for every question in the bank that has hints (those with a derivation)."""

from __future__ import annotations

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.study.hints import hint_ladder


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_cache=False)


def test_every_rung_reveals_more_than_the_last_and_never_the_answer(catalog: Catalog) -> None:
    checked = 0
    for qid in sorted(catalog.questions):
        for seed in (0, 7):
            derivation = catalog.instance(qid, seed).derivation
            if derivation is None or len(derivation.steps) < 2:
                continue
            steps = derivation.steps
            first, second, third = hint_ladder(steps, derivation.misconceptions)
            last = steps[-1].substituted
            if all(last != s.substituted for s in steps[:-1]):
                assert all(last not in rung for rung in (first, second, third)), (qid, seed, second)
            shown = [s.substituted for s in steps if s.substituted in second and s.substituted not in first]
            assert shown, (qid, seed, second)  # rung 2 adds the numbers of a step ...
            assert all(number in third for number in shown), (qid, seed, second, third)  # ... rung 3 keeps
            assert all(s.substituted in third for s in steps[:-1])  # and works every step before the last
            checked += 1
    assert checked > 20


def test_a_question_whose_mistakes_sit_in_the_last_step_still_hides_that_step() -> None:
    """Every misconception of the KV-cache anchor might point at its last step: the second rung then
    names that step in symbols only, and shows the numbers of the step before it."""
    catalog = load_catalog(use_cache=False)
    derivation = catalog.instance("kv-cache-anchor-gqa", 7).derivation
    assert derivation is not None
    steps = derivation.steps

    class Slip:
        step = steps[-1].label

    _, second, third = hint_ladder(steps, (Slip(), Slip()))
    assert steps[-1].substituted not in second and steps[-2].substituted in second
    assert f"most slips come in the last step, {steps[-1].label}" in second
    assert steps[-2].substituted in third
