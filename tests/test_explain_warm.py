"""The study screen readies the explanation reader while an explain card is read: every accepted and
rejected form of the question is compiled then (some 15 ms a question), so the learner's answer, once
sent, is read without compiling anything."""

from __future__ import annotations

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading import explain_points
from quizapp.grading.explain_grade import read_answer, warm_reader


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_after_warming_a_question_reading_an_answer_compiles_no_form(catalog: Catalog) -> None:
    qid = next(q for q in catalog.questions if catalog.instance(q, 1).kind == "explain")
    inst = catalog.instance(qid, 7)
    warm_reader(inst)
    compiled = explain_points._compiled.cache_info().misses
    reversed_ = explain_points._reversed.cache_info().misses
    read_answer(inst, "it keeps the softmax out of saturation, though I am not sure why it is needed")
    assert explain_points._compiled.cache_info().misses == compiled
    assert explain_points._reversed.cache_info().misses == reversed_


def test_warming_a_question_that_is_not_an_explanation_does_nothing(catalog: Catalog) -> None:
    qid = next(q for q in catalog.questions if catalog.instance(q, 1).kind == "numeric")
    before = explain_points._compiled.cache_info()
    warm_reader(catalog.instance(qid, 1))
    assert explain_points._compiled.cache_info() == before
