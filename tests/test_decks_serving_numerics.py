"""The serving and numerics decks meet the bank's quality gates: varied answers, a trap that is always a
different number, no misconception inside the tolerance, and choice questions not won by length."""

from __future__ import annotations

from functools import cache

import pytest
from grading_cases import answer_text, same_under

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading import grade

DECKS = ("serving", "numerics")
COMPUTED = ("numeric", "tensor", "shape")


@cache
def _catalog() -> Catalog:
    return load_catalog(use_cache=False)


def _ids(kinds: tuple[str, ...]) -> list[str]:
    cat = _catalog()
    return sorted(
        q for q, question in cat.questions.items() if cat.deck_of(q).id in DECKS and question.type in kinds
    )


def test_both_decks_load_with_enough_questions() -> None:
    cat = _catalog()
    for deck in DECKS:
        assert deck in cat.decks, [p.message for p in cat.problems]
        questions = [q for q in cat.decks[deck].questions]
        assert len(questions) >= 20
        assert sum(q.type in COMPUTED for q in questions) >= 8
        assert all(q.id.startswith(deck + "-") for q in questions)


@pytest.mark.parametrize("qid", _ids(COMPUTED))
def test_every_computed_question_varies_and_its_trap_is_always_a_different_number(qid: str) -> None:
    cat = _catalog()
    question = cat.question(qid)
    trap = getattr(question, "trap", None)
    assert trap, f"{qid} names no trap"
    answers = set()
    for seed in range(500):
        inst = cat.instance(qid, seed)
        d = inst.derivation
        assert d is not None
        same = same_under(inst)
        if seed < 200:  # the gate: 8 distinct answers over 200 seeds
            answers.add(repr(inst.expected))
        ids = [m.id for m in d.misconceptions]
        assert trap in ids, (qid, seed, ids)
        for m in d.misconceptions:
            assert not same(inst.expected, m.value), (qid, seed, m.id, m.value, inst.expected)
        verdict = grade(inst, answer_text(d.misconception(trap).value, inst.base_unit))
        assert not verdict.correct
    if not getattr(question, "fixed", None):
        assert len(answers) >= 8, (qid, len(answers))


@pytest.mark.parametrize("qid", _ids(("choice",)))
def test_choice_questions_give_feedback_and_are_not_won_by_length(qid: str) -> None:
    question = _catalog().question(qid)
    options = question.options  # type: ignore[union-attr]
    longest = max(len(o.text) for o in options)
    correct = [o for o in options if o.correct]
    wrong = [o for o in options if not o.correct]
    assert all(o.feedback.strip() for o in wrong)
    assert not (
        len(correct) == 1
        and len(correct[0].text) == longest
        and sum(len(o.text) == longest for o in options) == 1
    )
