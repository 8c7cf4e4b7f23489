"""The catalog loads valid decks, skips bad ones with a reason, and makes seeded instances from the engine.

The second half covers the bundled bank in content/: every deck validates and every question instantiates
at 50 seeds with a finite answer, a derivation and no placeholder left in its prompt.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import engine
from quizapp import paths
from quizapp.content import load as loader
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instantiate import InstanceError
from quizapp.content.template import parse_template
from quizapp.content.units import to_display
from quizapp.errors import QuizappError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "decks"
BROKEN = ROOT / "tests" / "broken_decks"
SEEDS = range(50)
_PLACEHOLDER_LEFT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*(:[^{}]*)?\}")


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog([FIXTURES], include_default=False, use_cache=False)


def test_the_sample_deck_loads_every_question(sample: Catalog) -> None:
    assert not sample.problems and not sample.skipped
    assert list(sample.decks) == ["sample"]
    deck = sample.decks["sample"]
    assert [q.id for q in deck.questions] == list(sample.questions)
    assert sample.deck_of("sample-card") == deck
    assert sample.files["sample"] == FIXTURES / "sample.yaml"


def test_the_same_seed_gives_the_same_instance(sample: Catalog) -> None:
    for qid in sample.questions:
        a, b = sample.instance(qid, seed=11), sample.instance(qid, seed=11)
        assert (a.prompt, a.expected, a.unit, a.tolerance) == (b.prompt, b.expected, b.unit, b.tolerance)
        assert [o.text for o in a.options] == [o.text for o in b.options]


def test_different_seeds_give_different_numbers(sample: Catalog) -> None:
    prompts = {sample.instance("sample-kv-cache", seed=s).prompt for s in SEEDS}
    assert len(prompts) > 10


def test_an_unknown_question_id_is_a_clear_error(sample: Catalog) -> None:
    with pytest.raises(QuizappError, match=r"no question with id 'sample-crad'; did you mean sample-card"):
        sample.instance("sample-crad", seed=0)
    with pytest.raises(QuizappError):
        sample.deck_of("nope")
    with pytest.raises(InstanceError, match="non-negative"):
        sample.instance("sample-card", seed=-1)


def test_a_numeric_answer_is_the_engine_result_for_the_numbers_in_the_prompt(sample: Catalog) -> None:
    for seed in SEEDS:
        inst = sample.instance("sample-head-dim", seed=seed)
        d_model, n_heads = (int(x) for x in re.findall(r"= (\d+)", inst.prompt))
        assert inst.expected == engine.calculate("head_dim", d_model=d_model, n_heads=n_heads).value
        assert inst.derivation is not None and inst.derivation.calculator == "head_dim"
        assert inst.tolerance is not None and inst.tolerance.kind == "exact"


def test_a_preset_question_uses_the_model_config(sample: Catalog) -> None:
    inst = sample.instance("sample-kv-cache", seed=5)
    model = next(m for m in engine.MODELS.values() if inst.prompt.startswith(m.name + " "))
    assert f"{model.n_layers} layers" in inst.prompt
    assert inst.unit == "GiB" and inst.base_unit == "B"
    # a model's KV cache in GiB is an estimate: its "3 significant figures" reads as one (within 0.5%)
    assert inst.tolerance is not None and inst.tolerance.kind == "estimate"
    assert inst.derivation is not None
    assert inst.expected == inst.derivation.value
    assert inst.expected_display == to_display(inst.derivation.value, "GiB")
    assert inst.target_seconds == 90 and inst.difficulty == 2 and inst.tags == ("kv-cache",)


def test_a_tensor_question_has_a_heatmap_labelled_with_its_tokens(sample: Catalog) -> None:
    inst = sample.instance("sample-weight", seed=2)
    assert inst.heatmap is not None
    assert inst.heatmap.row_labels == ("the", "cat", "sat")
    assert inst.heatmap.weights.shape == (1, 3, 3)
    assert "```" in inst.prompt and "{{" not in inst.prompt and "{this}" in inst.prompt
    assert inst.tolerance is not None and inst.tolerance.kind == "absolute"


def test_a_shape_question_expects_a_tuple(sample: Catalog) -> None:
    inst = sample.instance("sample-shape", seed=4)
    assert isinstance(inst.expected, tuple) and inst.unit == "shape"
    assert inst.derivation is not None and inst.expected == inst.derivation.value


def test_choice_options_are_shuffled_by_seed_and_lettered(sample: Catalog) -> None:
    orders = set()
    for seed in SEEDS:
        inst = sample.instance("sample-choice", seed=seed)
        assert [o.key for o in inst.options] == ["a", "b", "c"]
        assert inst.expected == frozenset(o.key for o in inst.options if o.correct)
        assert len(inst.expected) == 1 and not inst.multiple
        orders.add(tuple(o.text for o in inst.options))
    assert len(orders) == 6
    multi = sample.instance("sample-multi", seed=1)
    assert multi.multiple and len(multi.expected) == 2  # type: ignore[arg-type]
    assert all(o.feedback for o in multi.options if not o.correct)


def test_flashcards_and_explain_questions_carry_their_text(sample: Catalog) -> None:
    card = sample.instance("sample-card", seed=0)
    assert card.kind == "flashcard" and card.prompt == "What is an induction head?"
    assert isinstance(card.expected, str) and card.expected.startswith("A two-head circuit")
    explain = sample.instance("sample-explain", seed=0)
    assert explain.kind == "explain" and len(explain.key_points) == 3
    assert explain.target_seconds == 150 and explain.deck_title == "Sample deck for tests"


def test_a_bad_deck_is_skipped_and_good_decks_still_load() -> None:
    catalog = load_catalog([FIXTURES, BROKEN / "wrong_types.yaml"], include_default=False, use_cache=False)
    assert "sample-card" in catalog.questions
    assert [s.deck_id for s in catalog.skipped] == ["wrong-types"]
    assert str(catalog.skipped[0]).startswith("skipped deck wrong-types: ")
    assert all(p.file.endswith("wrong_types.yaml") for p in catalog.problems)


def test_user_decks_in_quizapp_home_are_loaded(tmp_path: Path) -> None:
    decks = paths.user_decks_dir()
    decks.mkdir(parents=True)
    (decks / "mine.yaml").write_text((FIXTURES / "sample.yaml").read_text())
    catalog = load_catalog(include_default=False)
    assert not catalog.decks
    catalog = load_catalog()
    assert catalog.files["sample"] == decks / "mine.yaml"
    assert catalog.instance("sample-card", seed=0).deck_id == "sample"


# --------------------------------------------------------------------------- the bundled bank


def _bundled() -> Catalog:
    """Only content/ (not the user's folder: collection runs before the fixture that isolates HOME)."""
    loader.reset_memos()
    return load_catalog([paths.bundled_content_dir()], include_default=False, use_cache=False)


_BANK = _bundled()


def test_every_bundled_deck_validates() -> None:
    assert [str(p) for p in _BANK.problems] == []
    assert _BANK.decks, "no bundled decks found in " + str(paths.bundled_content_dir())


def _template_ids() -> list[str]:
    return [qid for qid, q in _BANK.questions.items() if q.params or q.type in ("numeric", "tensor", "shape")]


@pytest.mark.parametrize("question_id", _template_ids() or ["(no templates yet)"])
def test_every_template_instantiates_at_50_seeds(question_id: str) -> None:
    if question_id not in _BANK.questions:
        pytest.skip("the bundled bank has no templates")
    question = _BANK.questions[question_id]
    escapes = any(s in ("{", "}") for s in parse_template(question.prompt) if isinstance(s, str))
    for seed in SEEDS:
        inst = _BANK.instance(question_id, seed=seed)
        assert not _PLACEHOLDER_LEFT.search(inst.prompt), inst.prompt
        if not escapes:
            assert "{" not in inst.prompt and "}" not in inst.prompt, inst.prompt
        if inst.kind in ("numeric", "tensor", "shape"):
            assert inst.derivation is not None and inst.derivation.steps
            assert inst.expected == inst.derivation.value
        if inst.kind in ("numeric", "tensor"):
            assert isinstance(inst.expected, (int, float)) and math.isfinite(inst.expected)
            assert inst.tolerance is not None
        if inst.kind == "shape":
            assert isinstance(inst.expected, tuple) and all(isinstance(v, int) for v in inst.expected)


def test_an_instance_builds_only_its_own_question_not_its_whole_deck() -> None:
    """At 10,000 questions building the deck to read its title blocked the first card for a second."""
    from quizapp.content.load import reset_memos

    reset_memos()  # this test's home has no cache yet: the first load parses and writes it
    load_catalog([FIXTURES], include_default=False)
    reset_memos()  # as a new process: the decks come from the cache, their questions unbuilt
    cached = load_catalog([FIXTURES], include_default=False)
    inst = cached.instance("sample-card", seed=3)
    assert (inst.deck_id, inst.deck_title) == ("sample", "Sample deck for tests")
    assert cached.deck_fields("sample-kv-cache").title == "Sample deck for tests"
    (data,) = cached.decks.data()  # type: ignore[attr-defined]
    assert [q is not None for q in data._built].count(True) == 1
    with pytest.raises(QuizappError, match="did you mean sample-card"):
        cached.deck_fields("sample-crad")


def test_question_outlines_give_each_type_from_the_cache_without_building_a_question() -> None:
    """The plan prices a day by question type: at 10,000 questions building every model to read its type
    held the GIL for a second on the way home."""
    from quizapp.content.load import reset_memos

    reset_memos()
    fresh = load_catalog([FIXTURES], include_default=False)
    expected = {qid: q.type for qid, q in fresh.questions.items()}
    reset_memos()  # as a new process: from the cache
    cached = load_catalog([FIXTURES], include_default=False)
    assert {o.question_id: o.type for o in cached.question_outlines()} == expected
    assert len(set(expected.values())) > 3
    (data,) = cached.decks.data()  # type: ignore[attr-defined]
    assert not any(q is not None for q in data._built)


def test_type_of_reads_each_type_from_the_cache_without_building_a_question() -> None:
    """The interview's set-up filters the pool by type while its form is open: at 10,000 questions
    building every model froze the screen for 0.4 s."""
    from quizapp.content.load import reset_memos

    reset_memos()
    fresh = load_catalog([FIXTURES], include_default=False)
    expected = {qid: q.type for qid, q in fresh.questions.items()}
    reset_memos()
    cached = load_catalog([FIXTURES], include_default=False)
    assert {qid: cached.type_of(qid) for qid in expected} == expected
    (data,) = cached.decks.data()  # type: ignore[attr-defined]
    assert not any(q is not None for q in data._built)
    with pytest.raises(QuizappError, match="did you mean sample-card"):
        cached.type_of("sample-crad")
