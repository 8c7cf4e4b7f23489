"""Provides the PyTorch golden vectors for the attention engine (writes attention_golden.npz).

Run only where torch is installed (it is never a dependency of quizapp):

    python tests/golden/make_golden.py

Every case stores its inputs, torch's weights exactly as torch lays them out, and torch's outputs;
a JSON member "meta" records each case's kind, mask and head counts.
`tests/test_attention_golden.py` converts the weights to the engine's layout and compares.

torch layout reminder: nn.MultiheadAttention keeps one `in_proj_weight` of shape (3d, d) = [W_Q; W_K; W_V]
stacked by rows, and computes `x @ W.T`; the engine's W_Q is that first block transposed, (d, d).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError as exc:  # torch is never a dependency of quizapp; the npz is committed instead
    raise SystemExit(
        "make_golden.py needs torch (pip install torch); the committed npz is enough for tests"
    ) from exc

OUT = Path(__file__).with_name("attention_golden.npz")
META: dict[str, dict[str, object]] = {}
"""Per case: kind ("mha" or "sdpa"), mask ("none", "causal", "additive", "padding"), n_heads, n_kv_heads."""


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().copy()


def mha_case(
    name: str,
    d: int,
    h: int,
    T: int,
    S: int | None,
    bias: bool,
    mask: str,
    seed: int,
    dtype: torch.dtype = torch.float32,
) -> dict[str, np.ndarray]:
    """One nn.MultiheadAttention call with need_weights=True, average_attn_weights=False, batch_first."""
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(d, h, bias=bias, batch_first=True, dtype=dtype)
    if bias:  # torch starts biases at zero; random ones make the test see them
        with torch.no_grad():
            mha.in_proj_bias.normal_(0.0, 0.1)
            mha.out_proj.bias.normal_(0.0, 0.1)
    B = 2
    x = torch.randn(B, T, d, dtype=dtype)
    kv = x if S is None else torch.randn(B, S, d, dtype=dtype)
    s_len = kv.shape[1]
    attn_mask = None
    key_padding_mask = None
    engine_mask = None
    if mask == "causal":
        attn_mask = torch.ones(T, s_len, dtype=torch.bool).triu(1)  # torch: True = NOT allowed
    elif mask == "additive":
        attn_mask = torch.randn(T, s_len, dtype=dtype)
        attn_mask[0, 1] = float("-inf")
        engine_mask = _np(attn_mask)
    elif mask == "padding":
        key_padding_mask = torch.zeros(B, s_len, dtype=torch.bool)
        key_padding_mask[1, -2:] = True  # the second sequence's last two keys are padding
        engine_mask = _np(~key_padding_mask)[:, None, None, :]  # engine: True = may attend, (B, 1, 1, S)
    with torch.no_grad():
        out, weights = mha(
            x,
            kv,
            kv,
            need_weights=True,
            average_attn_weights=False,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
        )
    META[name] = {"kind": "mha", "mask": mask, "n_heads": h, "n_kv_heads": h}
    case = {
        "x": _np(x),
        "in_proj_weight": _np(mha.in_proj_weight),
        "out_proj_weight": _np(mha.out_proj.weight),
        "output": _np(out),
        "weights": _np(weights),
    }
    if S is not None:
        case["kv"] = _np(kv)
    if engine_mask is not None:
        case["engine_mask"] = engine_mask
    if bias:
        case["in_proj_bias"] = _np(mha.in_proj_bias)
        case["out_proj_bias"] = _np(mha.out_proj.bias)
    return {f"{name}/{k}": v for k, v in case.items()}


def sdpa_case(name: str, d: int, h: int, n_kv: int, T: int, causal: bool, seed: int) -> dict[str, np.ndarray]:
    """F.scaled_dot_product_attention with enable_gqa=True; projections done here as x @ W."""
    g = torch.Generator().manual_seed(seed)
    d_head = d // h
    B = 2
    x = torch.randn(B, T, d, generator=g)
    w_q = torch.randn(d, h * d_head, generator=g) / d**0.5
    w_k = torch.randn(d, n_kv * d_head, generator=g) / d**0.5
    w_v = torch.randn(d, n_kv * d_head, generator=g) / d**0.5
    w_o = torch.randn(h * d_head, d, generator=g) / d**0.5
    q = (x @ w_q).view(B, T, h, d_head).transpose(1, 2)  # (B, h, T, d_head)
    k = (x @ w_k).view(B, T, n_kv, d_head).transpose(1, 2)  # (B, n_kv, T, d_head)
    v = (x @ w_v).view(B, T, n_kv, d_head).transpose(1, 2)  # (B, n_kv, T, d_head)
    heads = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)  # (B, h, T, d_head)
    out = heads.transpose(1, 2).reshape(B, T, h * d_head) @ w_o  # (B, T, d)
    META[name] = {"kind": "sdpa", "mask": "causal" if causal else "none", "n_heads": h, "n_kv_heads": n_kv}
    case = {
        "x": _np(x),
        "w_q": _np(w_q),
        "w_k": _np(w_k),
        "w_v": _np(w_v),
        "w_o": _np(w_o),
        "heads": _np(heads),
        "output": _np(out),
    }
    return {f"{name}/{k}": v for k, v in case.items()}


def main() -> None:
    """Writes every case into one compressed npz (a few tens of KB)."""
    arrays: dict[str, np.ndarray] = {}
    arrays |= mha_case("mha_bias", d=8, h=2, T=5, S=None, bias=True, mask="none", seed=1)
    arrays |= mha_case("mha_nobias", d=8, h=2, T=5, S=None, bias=False, mask="none", seed=2)
    arrays |= mha_case("mha_bias_causal", d=8, h=2, T=6, S=None, bias=True, mask="causal", seed=3)
    arrays |= mha_case("mha_nobias_causal", d=8, h=4, T=6, S=None, bias=False, mask="causal", seed=4)
    arrays |= mha_case("mha_cross", d=8, h=2, T=5, S=7, bias=True, mask="none", seed=5)
    arrays |= mha_case("mha_cross_causal", d=8, h=2, T=4, S=7, bias=False, mask="causal", seed=6)
    arrays |= mha_case("mha_additive_mask", d=8, h=2, T=5, S=None, bias=True, mask="additive", seed=7)
    arrays |= mha_case("mha_padding_mask", d=8, h=2, T=5, S=6, bias=True, mask="padding", seed=8)
    arrays |= mha_case(
        "mha_float64", d=8, h=2, T=5, S=None, bias=True, mask="causal", seed=9, dtype=torch.float64
    )
    arrays |= sdpa_case("sdpa_gqa", d=16, h=8, n_kv=2, T=6, causal=False, seed=10)
    arrays |= sdpa_case("sdpa_gqa_causal", d=16, h=4, n_kv=2, T=6, causal=True, seed=11)
    arrays |= sdpa_case("sdpa_mqa", d=16, h=8, n_kv=1, T=6, causal=False, seed=12)
    arrays |= sdpa_case("sdpa_mqa_causal", d=16, h=4, n_kv=1, T=7, causal=True, seed=13)
    arrays["meta"] = np.array(json.dumps(META, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.1f} KiB, torch {torch.__version__})")


if __name__ == "__main__":
    main()
