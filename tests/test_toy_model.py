"""engine.toy: forward checks, training behaviour, the shipped model's heads, and save/load."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.toy as toy
from engine.attention import multi_head_attention
from engine.toy.files import PRETRAINED
from engine.toy.train import init_params

SMALL = toy.ToyConfig(vocab_size=8, d_model=16, n_layers=2, n_heads=2, max_len=16)


def _eval_loss(model: toy.ToyModel, seed: int) -> float:
    rng = np.random.default_rng(seed)
    return float(
        np.mean([model.loss(toy.repeated_tokens(rng, 6, prefix=2, vocab_size=8)) for _ in range(64)])
    )


def test_training_lowers_the_loss_and_a_seed_gives_identical_weights() -> None:
    before = toy.train(SMALL, seed=3, steps=0, seq_len=16)
    after = toy.train(SMALL, seed=3, steps=300, lr=1e-2, seq_len=16)
    again = toy.train(SMALL, seed=3, steps=300, lr=1e-2, seq_len=16)
    assert _eval_loss(after, 9) < _eval_loss(before, 9) - 0.05
    for name, value in after.params.items():
        assert np.array_equal(value, again.params[name]), name
        assert value.dtype == np.float32
    other = toy.train(SMALL, seed=4, steps=5, seq_len=16)
    assert not np.array_equal(other.params["embed"], after.params["embed"])
    assert (after.seed, after.steps) == (3, 300)


def test_progress_reports_snapshots_and_returning_false_stops() -> None:
    seen: list[toy.TrainProgress] = []

    def stop_at_20(p: toy.TrainProgress) -> bool:
        seen.append(p)
        return p.step < 20

    model = toy.train(SMALL, seed=1, steps=100, seq_len=16, on_progress=stop_at_20, progress_every=10)
    assert [p.step for p in seen] == [10, 20]
    assert model.steps == 20
    assert all(p.steps == 100 and np.isfinite(p.loss) for p in seen)
    first = seen[0]
    assert first.model.steps == 10 and not np.array_equal(first.model.params["embed"], model.params["embed"])
    scores = toy.head_scores(first.model)
    assert first.prev_token == scores.best_prev_token[2] and first.induction == scores.best_induction[2]


@pytest.mark.parametrize(
    "bad", [{"vocab_size": 0}, {"d_model": 30, "n_heads": 4}, {"max_len": 1}, {"n_layers": -1}]
)
def test_bad_config_names_its_values(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="|".join(f"{k}={v}" for k, v in bad.items())):
        toy.ToyConfig(**bad)


def test_attention_weights_are_causal_rows_of_probabilities() -> None:
    model = toy.pretrained()
    tokens = toy.repeated_tokens(np.random.default_rng(2), 20, prefix=3)  # (43,)
    w = model.attention_weights(tokens)
    T = tokens.size
    assert w.shape == (model.n_layers, model.n_heads, T, T)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-5)
    assert np.all(np.triu(w, k=1) == 0.0)
    forward = model.forward(tokens)
    assert forward.logits.shape == (T, model.vocab_size)
    assert np.array_equal(forward.weights, w)


def test_layer_zero_attention_is_the_reference_engines() -> None:
    model = toy.pretrained()
    tokens = np.arange(10) % model.vocab_size
    x = model.params["embed"][tokens] + model.params["pos"][:10]  # (T, d)
    p = model._layers[0]
    assert np.array_equal(
        model.attention_weights(tokens)[0], multi_head_attention(x, p, mask="causal").weights
    )


def test_ablating_every_head_leaves_only_the_embeddings() -> None:
    model = toy.pretrained()
    tokens = toy.repeated_tokens(np.random.default_rng(4), 12)
    plain = model.forward(tokens)
    all_heads = [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]
    silent = model.forward(tokens, ablate=all_heads)
    x = model.params["embed"][tokens] + model.params["pos"][: tokens.size]  # (T, d)
    np.testing.assert_allclose(silent.logits, x @ model.params["unembed"], rtol=1e-5, atol=1e-5)
    assert not np.allclose(plain.logits, silent.logits)
    with pytest.raises(ValueError, match=r"layer=2, head=0"):
        model.forward(tokens, ablate=[(2, 0)])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_shipped_model_has_a_previous_token_head_and_an_induction_head(seed: int) -> None:
    scores = toy.head_scores(toy.pretrained(), seed=seed, n_sequences=8)
    assert scores.prev_token.shape == scores.induction.shape == (2, 4)
    assert scores.best_prev_token[0] == 0 and scores.best_prev_token[2] >= 0.5
    assert scores.best_induction[0] == 1 and scores.best_induction[2] >= 0.5


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_ablating_the_induction_or_previous_token_head_breaks_the_circuit(seed: int) -> None:
    model = toy.pretrained()
    scores = toy.head_scores(model, seed=seed)
    rng = np.random.default_rng(seed)
    batch = np.stack([toy.repeated_tokens(rng, 24) for _ in range(16)])  # (16, 48)
    intact = toy.in_context_loss(model, batch)
    layer, head, _ = scores.best_induction
    assert intact < -1.0  # the model uses context
    assert toy.in_context_loss(model, batch, ablate=[(layer, head)]) > intact + 0.2
    prev_layer, prev_head, _ = scores.best_prev_token
    weakened = toy.head_scores(model, seed=seed, ablate=[(prev_layer, prev_head)])
    assert weakened.induction[layer, head] < scores.induction[layer, head] - 0.15


def test_in_context_loss_of_one_sequence_matches_its_losses() -> None:
    model = toy.pretrained()
    tokens = toy.repeated_tokens(np.random.default_rng(5), 10)
    loss = model.loss(tokens)  # (19,)
    assert toy.in_context_loss(model, tokens) == pytest.approx(
        float(loss[10:].mean() - loss[:9].mean()), rel=1e-5
    )
    with pytest.raises(ValueError, match=r"shape \(7,\)"):
        toy.in_context_loss(model, tokens[:7])


@pytest.mark.parametrize(
    ("tokens", "match"),
    [
        (np.array([1, 2, 48]), "from 1 to 48"),
        (np.array([-1, 2]), "from -1 to 2"),
        (np.zeros((2, 3), dtype=int), r"shape \(2, 3\)"),
        (np.zeros(65, dtype=int), "length 65"),
        (np.zeros(0, dtype=int), "length 0"),
        (np.array([0.5, 1.0]), "dtype float64"),
    ],
)
def test_bad_tokens_are_refused_with_their_values(tokens: np.ndarray, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        toy.pretrained().forward(tokens)


def test_save_load_round_trip(tmp_path: Path) -> None:
    model = toy.pretrained()
    path = tmp_path / "m.npz"
    toy.save(model, path)
    loaded = toy.load(path)
    assert loaded.config == model.config and (loaded.seed, loaded.steps) == (model.seed, model.steps)
    for name, value in model.params.items():
        assert np.array_equal(loaded.params[name], value) and not loaded.params[name].flags.writeable


def test_load_refuses_missing_corrupt_and_mismatched_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        toy.load(tmp_path / "nothing.npz")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(PRETRAINED.read_bytes()[:5000])
    with pytest.raises(ValueError, match="not a readable"):
        toy.load(corrupt)
    model = toy.pretrained()
    params = dict(model.params) | {"l1.w_q": np.zeros((64, 32), np.float32)}
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(PRETRAINED) as z:
        names = z.namelist()
    assert "param.l1.w_q.npy" in names
    arrays = {f"param.{k}": v for k, v in params.items()}
    fields = ("vocab_size", "d_model", "n_layers", "n_heads", "max_len")
    meta = {f"config.{k}": np.int64(getattr(model.config, k)) for k in fields}
    np.savez(bad, **meta, **arrays, **{"meta.format": np.int64(1)})
    with pytest.raises(ValueError, match=r"l1.w_q has shape \(64, 32\)"):
        toy.load(bad)
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match="lacks"):
        toy.load(bad)


def test_encode_text_is_stable_and_repeats_words() -> None:
    ids = toy.encode_text("The cat sat. The cat sat.")
    assert ids.ndim == 1 and ids.size == 8 and ids.max() < 48
    assert np.array_equal(ids[:4], ids[4:])
    assert np.array_equal(toy.encode_text("the CAT"), toy.encode_text("The cat"))
    assert [toy.token_label(i) for i in (0, 7, 26, 51, 52)] == ["A", "H", "a", "z", "t52"]
    assert all(toy.token_of(toy.token_label(i)) == i for i in range(60))
    assert toy.pretrained().loss(ids).shape == (7,)


def test_repeated_tokens_layout() -> None:
    t = toy.repeated_tokens(np.random.default_rng(0), 5, prefix=3, vocab_size=10)
    assert t.shape == (13,) and np.array_equal(t[3:8], t[8:]) and t.max() < 10


def test_pretrained_is_cached_and_read_only() -> None:
    assert toy.pretrained() is toy.pretrained()
    with pytest.raises(ValueError, match="read-only"):
        toy.pretrained().params["embed"][0, 0] = 1.0
    with pytest.raises(TypeError):
        toy.pretrained().params["embed"] = np.zeros(1)  # type: ignore[index]


def test_model_refuses_wrong_parameters() -> None:
    params = init_params(toy.ToyConfig(), np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"missing \['unembed'\]"):
        toy.ToyModel(toy.ToyConfig(), {k: v for k, v in params.items() if k != "unembed"})
