"""The hand-written backward pass of engine.toy against torch autograd on the same weights and batch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from engine.toy.backward import loss_and_grads
from engine.toy.data import training_batch
from engine.toy.model import ToyConfig, ToyModel
from engine.toy.train import init_params


def torch_loss(config: ToyConfig, params: dict[str, torch.Tensor], tokens: torch.Tensor) -> torch.Tensor:
    """The toy written plainly in torch: embeddings, causal attention per layer, unembedding."""
    B, T = tokens.shape
    h, dh = config.n_heads, config.d_head
    x = params["embed"][tokens] + params["pos"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    for i in range(config.n_layers):
        q, k, v = ((x @ params[f"l{i}.{w}"]).view(B, T, h, dh).transpose(1, 2) for w in ("w_q", "w_k", "w_v"))
        s = (q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(~mask, float("-inf"))
        heads = torch.softmax(s, dim=-1) @ v
        x = x + heads.transpose(1, 2).reshape(B, T, h * dh) @ params[f"l{i}.w_o"]
    logits = x @ params["unembed"]
    return torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, config.vocab_size), tokens[:, 1:].reshape(-1)
    )


@pytest.mark.parametrize(
    "config", [ToyConfig(), ToyConfig(vocab_size=11, d_model=12, n_layers=3, n_heads=3, max_len=9)]
)
def test_every_gradient_equals_torch_autograd(config: ToyConfig) -> None:
    rng = np.random.default_rng(3)
    louder = init_params(config, rng).items()  # x4, so that softmax rows are far from flat
    params = {k: v.astype(np.float64) * 4 for k, v in louder}
    tokens = training_batch(rng, 5, config.max_len - 1, config.vocab_size, min_repeat=2)  # (B, T)
    loss, grads = loss_and_grads(config, params, tokens)
    tp = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    expected = torch_loss(config, tp, torch.tensor(tokens))
    expected.backward()
    assert loss == pytest.approx(expected.item(), rel=1e-12)
    assert set(grads) == set(tp)
    for name, g in grads.items():
        assert g.dtype == np.float64
        np.testing.assert_allclose(
            g, tp[name].grad.numpy(), rtol=1e-9, atol=1e-10 * float(np.abs(g).max()), err_msg=name
        )


def test_forward_logits_equal_torch() -> None:
    config = ToyConfig()
    params = {k: v.astype(np.float64) * 4 for k, v in init_params(config, np.random.default_rng(5)).items()}
    model = ToyModel(config, params)
    tokens = np.random.default_rng(6).integers(0, config.vocab_size, size=30)  # (T,)
    tp = {k: torch.tensor(v) for k, v in params.items()}
    expected = torch_loss(config, tp, torch.tensor(tokens)[None])
    assert model.loss(tokens).mean() == pytest.approx(expected.item(), rel=1e-12)
