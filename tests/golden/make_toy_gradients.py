"""Provides torch autograd's loss and gradients for the toy transformer (writes toy_gradients.npz).

Run only where torch is installed (it is never a dependency of quizapp):

    python tests/golden/make_toy_gradients.py

Each case stores its config, the float64 weights and token batch it was run on, torch's mean next-token
cross-entropy and torch's gradient for every weight; `tests/test_toy_gradients.py` runs the engine's
hand-written backward pass on the same weights and batch and compares. The weights are stored, not
re-drawn, so a change to the engine's initialiser cannot shift what the fixture means.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

try:
    import torch
except ImportError as exc:  # torch is never a dependency of quizapp; the npz is committed instead
    raise SystemExit(
        "make_toy_gradients.py needs torch (pip install torch); the committed npz is enough for tests"
    ) from exc

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, so `engine` imports

from engine.toy.data import training_batch
from engine.toy.model import ToyConfig
from engine.toy.train import init_params

OUT = Path(__file__).with_name("toy_gradients.npz")

CASES: dict[str, tuple[ToyConfig, int]] = {
    # three layers of three heads, d_head 4: deep enough that a wrong residual gradient shows
    "deep": (ToyConfig(vocab_size=11, d_model=12, n_layers=3, n_heads=3, max_len=9), 3),
    # two layers of two heads, d_head 8, a longer context: the shipped model's shape, smaller
    "wide": (ToyConfig(vocab_size=16, d_model=16, n_layers=2, n_heads=2, max_len=14), 4),
}
"""Case name: (config, seed for the weights and the batch)."""


def torch_loss(config: ToyConfig, params: dict[str, torch.Tensor], tokens: torch.Tensor) -> torch.Tensor:
    """The toy written plainly in torch: embeddings, causal attention per layer, unembedding."""
    B, T = tokens.shape
    h, dh = config.n_heads, config.d_head
    x = params["embed"][tokens] + params["pos"][:T]  # [B, T] -> [B, T, d]
    mask = torch.ones(T, T, dtype=torch.bool).tril()  # [T, T], True = may attend
    for i in range(config.n_layers):
        q, k, v = ((x @ params[f"l{i}.{w}"]).view(B, T, h, dh).transpose(1, 2) for w in ("w_q", "w_k", "w_v"))
        s = (q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(~mask, float("-inf"))  # [B, h, T, T]
        heads = torch.softmax(s, dim=-1) @ v  # [B, h, T, T] @ [B, h, T, dh] -> [B, h, T, dh]
        x = x + heads.transpose(1, 2).reshape(B, T, h * dh) @ params[f"l{i}.w_o"]  # [B, T, d]
    logits = x @ params["unembed"]  # [B, T, d] -> [B, T, V]
    return torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, config.vocab_size), tokens[:, 1:].reshape(-1)
    )


def case_inputs(config: ToyConfig, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Weights x4 in float64 (so softmax rows are far from flat) and a (5, max_len - 1) batch."""
    rng = np.random.default_rng(seed)
    params = {k: v.astype(np.float64) * 4 for k, v in init_params(config, rng).items()}
    tokens = training_batch(rng, 5, config.max_len - 1, config.vocab_size, min_repeat=2)  # (B, T)
    return params, tokens


def torch_loss_and_grads(
    config: ToyConfig, params: dict[str, np.ndarray], tokens: np.ndarray
) -> tuple[float, dict[str, np.ndarray]]:
    """torch autograd's loss and gradients for the given weights and batch."""
    tp = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    loss = torch_loss(config, tp, torch.tensor(tokens))
    loss.backward()
    return loss.item(), {k: t.grad.numpy().copy() for k, t in tp.items()}


def main() -> None:
    """Writes every case into one compressed npz (under 100 KB)."""
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, dict[str, int]] = {}
    for name, (config, seed) in CASES.items():
        params, tokens = case_inputs(config, seed)
        loss, grads = torch_loss_and_grads(config, params, tokens)
        meta[name] = {
            "vocab_size": config.vocab_size,
            "d_model": config.d_model,
            "n_layers": config.n_layers,
            "n_heads": config.n_heads,
            "max_len": config.max_len,
        }
        arrays[f"{name}/tokens"] = tokens
        arrays[f"{name}/loss"] = np.array(loss)
        for key, value in params.items():
            arrays[f"{name}/param/{key}"] = value
            arrays[f"{name}/grad/{key}"] = grads[key]
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.1f} KiB, torch {torch.__version__})")


if __name__ == "__main__":
    main()
