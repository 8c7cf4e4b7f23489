"""The trained toy as the learner meets it: Explore's trained mode (quizapp.explore.trained), `quizapp
heads`, and the toy_heads calculator behind the "what heads learn" deck."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import engine
from engine import toy
from quizapp.cli import main
from quizapp.errors import QuizappError
from quizapp.explore.trained import (
    TrainedInputs,
    toggled,
    toggled_head,
    toy_model,
    trained_view,
    user_model_path,
)


@pytest.fixture(scope="module")
def shipped() -> toy.ToyModel:
    return toy.pretrained()


@pytest.fixture(scope="module")
def roles(shipped: toy.ToyModel) -> tuple[tuple[int, int], tuple[int, int]]:
    scores = toy.head_scores(shipped, seed=0)
    return scores.best_prev_token[:2], scores.best_induction[:2]


# -- Explore's trained mode -------------------------------------------------------------------------------


def test_the_heads_are_labelled_with_their_job_on_the_sequence_shown(shipped: toy.ToyModel, roles) -> None:
    (pl, ph), (il, ih) = roles
    view = trained_view(TrainedInputs(seed=3, length=8), shipped)
    assert len(view.layers) == shipped.n_layers
    for heatmap in view.layers:
        assert heatmap.weights.shape == (shipped.n_heads, 16, 16)
        assert heatmap.row_labels == view.tokens and len(view.tokens) == 16
    assert view.tokens[:8] == view.tokens[8:] and view.period == 8
    assert view.layers[pl].head_labels[ph].startswith(f"L{pl}H{ph} previous-token 0.")
    assert view.layers[il].head_labels[ih].startswith(f"L{il}H{ih} induction 0.")
    assert view.in_context_loss < 0 and view.in_context_loss == view.intact_loss
    assert "not a language model" in view.note


def test_a_sentence_is_mapped_onto_the_vocabulary_and_repeated(shipped: toy.ToyModel) -> None:
    view = trained_view(TrainedInputs(sentence="attention is all you need"), shipped)
    assert view.tokens == ("attention", "is", "all", "you", "need") * 2
    assert "trained on repeats of 12 tokens or more, so on 5" in view.note  # why its heads look weak
    assert "repeats of" not in trained_view(TrainedInputs(length=12), shipped).note
    with pytest.raises(QuizappError, match="2 to 16 words"):
        trained_view(TrainedInputs(sentence=" ".join(["w"] * 17)), shipped)
    with pytest.raises(QuizappError, match="length"):
        trained_view(TrainedInputs(length=1), shipped)


def test_ablating_the_previous_token_head_breaks_the_induction_head(shipped: toy.ToyModel, roles) -> None:
    """The two-head circuit made visible: without its layer-0 partner the induction stripe fades and the
    in-context loss rises."""
    (pl, ph), (il, ih) = roles
    intact = trained_view(TrainedInputs(seed=5, length=10), shipped)
    cut = trained_view(toggled_head(intact.inputs, pl, ph), shipped)
    assert cut.induction[il, ih] < intact.induction[il, ih] - 0.2
    assert cut.in_context_loss > intact.in_context_loss + 0.5
    assert cut.intact_loss == intact.in_context_loss
    assert cut.layers[pl].head_labels[ph] == f"L{pl}H{ph} ablated"
    assert "the intact model" in cut.loss_text
    assert toggled_head(cut.inputs, pl, ph) == intact.inputs


def test_same_weights_and_no_wo_still_work_on_the_toy(shipped: toy.ToyModel) -> None:
    base = TrainedInputs(seed=2)
    tied = trained_view(toggled(base, "tie_heads"), shipped)
    for heatmap in tied.layers[:1]:  # layer 0 sees the same input for every head: one pattern four times
        for h in range(shipped.n_heads):  # to float32 rounding: kernels can differ by a ULP head to head
            np.testing.assert_allclose(heatmap.weights[h], heatmap.weights[0], rtol=0, atol=1e-6)
    no_wo = trained_view(toggled(base, "drop_output_projection"), shipped)
    np.testing.assert_array_equal(no_wo.layers[0].weights, trained_view(base, shipped).layers[0].weights)
    assert not np.allclose(no_wo.layers[1].weights, trained_view(base, shipped).layers[1].weights)
    assert toggled(toggled(base, "tie_heads"), "tie_heads") == base
    with pytest.raises(ValueError, match="no toggle"):
        toggled(base, "causal")


def test_the_users_own_model_is_preferred_and_a_bad_file_is_named(tmp_path: Path) -> None:
    model, where = toy_model()
    assert where == "the shipped weights"
    user_model_path().parent.mkdir(parents=True, exist_ok=True)
    toy.save(model, user_model_path())
    assert toy_model()[1] == f"your weights ({user_model_path()})"
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(QuizappError, match="cannot load the toy model"):
        toy_model(broken)


# -- quizapp heads ----------------------------------------------------------------------------------------


def test_heads_prints_every_heads_scores(capsys: pytest.CaptureFixture[str], roles) -> None:
    assert main(["heads"]) == 0
    out = capsys.readouterr().out
    (pl, ph), (il, ih) = roles
    assert "not a language model" in out
    assert f"previous-token head: L{pl}H{ph}" in out and f"induction head: L{il}H{ih}" in out
    assert out.count("\nL") == 8
    assert "In-context loss -" in out  # negative: the toy uses the first copy
    assert main(["heads", "--seed", "-3"]) == 2
    assert "--seed must be between 0" in capsys.readouterr().err


def test_heads_train_saves_a_model_that_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mine"
    assert main(["heads", "train", "--steps", "20", "--seed", "4", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "step 20/20" in captured.err and "induction" in captured.err
    model = toy.load(tmp_path / "mine.npz")
    assert model.vocab_size == toy.pretrained().vocab_size
    assert f"Saved {tmp_path / 'mine.npz'}" in captured.out
    assert main(["heads", "--model", str(tmp_path / "mine.npz")]) == 0
    assert "your weights" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--steps", "0"], "--steps must be between 1"),
        (["--seed", "-1"], "--seed must be between 0"),
    ],
)
def test_heads_train_refuses_bad_options(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["heads", "train", *args]) == 2
    assert message in capsys.readouterr().err


def test_heads_train_refuses_a_folder_as_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["heads", "train", "--steps", "1", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


# -- the toy_heads calculator -----------------------------------------------------------------------------


def test_the_panels_are_the_models_heads_and_the_answer_lists_every_head_of_the_kind(
    shipped: toy.ToyModel,
) -> None:
    scores = toy.head_scores(shipped, seed=0)
    induction_heads = {
        (layer, h) for layer in range(2) for h in range(4) if scores.induction[layer, h] >= 0.3
    }
    prev_heads = {(0, h) for h in range(4) if scores.prev_token[0, h] >= 0.3}
    assert induction_heads and prev_heads and not induction_heads & prev_heads
    answers = set()
    for draw in range(30):
        d = engine.calculate("toy_head_panels", ask="induction_head", draw=draw, length=10)
        assert d.heatmap is not None and d.heatmap.weights.shape == (4, 20, 20)
        tokens = np.array([toy.token_of(label) for label in d.heatmap.row_labels])
        weights = shipped.attention_weights(tokens).reshape(8, 20, 20)  # straight from the model
        shown = [
            next(i for i in range(8) if np.array_equal(panel, weights[i])) for panel in d.heatmap.weights
        ]
        assert len(set(shown)) == 4  # four different heads
        expected = tuple(p + 1 for p, head in enumerate(shown) if divmod(head, 4) in induction_heads)
        assert d.value == expected and 1 <= len(expected) <= 3  # never "all" or "none"
        answers.add(d.value)
        prev = engine.calculate("toy_head_panels", ask="prev_token_head", draw=draw, length=10)
        assert prev.value and len(prev.value) <= 2
    assert len(answers) >= 8  # not memorisable: the panels change with the draw


def test_the_induction_target_and_its_wrong_turns() -> None:
    d = engine.calculate("toy_heads", ask="induction_target", draw=1, length=9, query=13)
    assert d.value == 13 - 9 + 1
    assert {m.id: m.value for m in d.misconceptions} == {
        "previous-occurrence": 4,
        "previous-position": 12,
        "own-position": 13,
    }
    with pytest.raises(ValueError, match="query=3 must be in the second copy"):
        engine.calculate("toy_heads", ask="induction_target", draw=1, length=9, query=3)


def test_a_score_is_the_mean_of_one_stripe_of_the_heads_weights(shipped: toy.ToyModel) -> None:
    d = engine.calculate("toy_heads", ask="induction_score", draw=8, length=4)
    tokens = np.array([toy.token_of(label) for label in d.heatmap.row_labels])
    il, ih = (int(c) for c in d.heatmap.head_labels[0].removeprefix("L").split("H"))
    w = shipped.attention_weights(tokens)[il, ih]
    assert d.value == pytest.approx(np.mean([w[t, t - 3] for t in range(4, 8)]))
    assert d.value > d.misconception("previous-occurrence-stripe").value
    p = engine.calculate("toy_heads", ask="prev_token_score", draw=8, length=3)
    tokens = np.array([toy.token_of(label) for label in p.heatmap.row_labels])
    pl, ph = (int(c) for c in p.heatmap.head_labels[0].removeprefix("L").split("H"))
    assert pl == 0
    w = shipped.attention_weights(tokens)[pl, ph]
    assert p.value == pytest.approx(np.mean([w[t, t - 1] for t in range(1, 6)]))
    assert p.misconception("own-position-diagonal").value == pytest.approx(np.mean(np.diag(w)[1:]))
