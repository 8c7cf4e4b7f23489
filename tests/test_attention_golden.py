"""Provides the check of the attention engine against PyTorch's own numbers (tests/golden/*.npz).

The npz was written by tests/golden/make_golden.py with torch; these tests need only NumPy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine
from benchmarks.fast import fast_multi_head_attention

GOLDEN = Path(__file__).parent / "golden" / "attention_golden.npz"
ATOL = 1e-5

with np.load(GOLDEN, allow_pickle=False) as _z:
    ARRAYS: dict[str, np.ndarray] = {k: _z[k] for k in _z.files}
META: dict[str, dict[str, Any]] = json.loads(str(ARRAYS["meta"]))
MHA_CASES = sorted(name for name, m in META.items() if m["kind"] == "mha")
SDPA_CASES = sorted(name for name, m in META.items() if m["kind"] == "sdpa")


def _get(case: str, key: str) -> np.ndarray | None:
    return ARRAYS.get(f"{case}/{key}")


def params_from_torch_mha(case: str) -> engine.AttentionParams:
    """Converts torch's layout (in_proj_weight (3d, d), used as x @ W.T) to the engine's x @ W."""
    w_in = ARRAYS[f"{case}/in_proj_weight"]  # (3d, d)
    d = w_in.shape[1]
    w_q, w_k, w_v = (w_in[i * d : (i + 1) * d].T for i in range(3))  # each (d, d)
    b_in = _get(case, "in_proj_bias")
    b_q, b_k, b_v = (None, None, None) if b_in is None else (b_in[:d], b_in[d : 2 * d], b_in[2 * d :])
    h = META[case]["n_heads"]
    return engine.AttentionParams(
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
        w_o=ARRAYS[f"{case}/out_proj_weight"].T,
        n_heads=h,
        n_kv_heads=h,
        b_q=b_q,
        b_k=b_k,
        b_v=b_v,
        b_o=_get(case, "out_proj_bias"),
    )


def _engine_mask(case: str) -> Any:
    kind = META[case]["mask"]
    if kind == "none":
        return None
    if kind == "causal":
        return "causal"
    return ARRAYS[f"{case}/engine_mask"]


def test_golden_file_covers_every_required_case() -> None:
    masks = {META[c]["mask"] for c in MHA_CASES}
    assert {"none", "causal"} <= masks
    assert any(_get(c, "in_proj_bias") is not None for c in MHA_CASES)
    assert any(_get(c, "in_proj_bias") is None for c in MHA_CASES)
    assert any(_get(c, "kv") is not None for c in MHA_CASES), "no cross-attention case"
    kv_heads = {META[c]["n_kv_heads"] for c in SDPA_CASES}
    assert 1 in kv_heads, "no MQA case"
    assert any(1 < META[c]["n_kv_heads"] < META[c]["n_heads"] for c in SDPA_CASES), "no GQA case"


FORWARDS = pytest.mark.parametrize(
    "forward", [engine.multi_head_attention, fast_multi_head_attention], ids=["reference", "fast"]
)


@FORWARDS
@pytest.mark.parametrize("case", MHA_CASES)
def test_engine_matches_torch_multihead_attention(case: str, forward: Any) -> None:
    x = ARRAYS[f"{case}/x"]
    r = forward(x, params_from_torch_mha(case), mask=_engine_mask(case), kv=_get(case, "kv"))
    assert r.output.dtype == x.dtype
    np.testing.assert_allclose(r.output, ARRAYS[f"{case}/output"], rtol=0, atol=ATOL)
    np.testing.assert_allclose(r.weights, ARRAYS[f"{case}/weights"], rtol=0, atol=ATOL)


@FORWARDS
@pytest.mark.parametrize("case", SDPA_CASES)
def test_engine_matches_torch_sdpa_with_grouped_kv_heads(case: str, forward: Any) -> None:
    m = META[case]
    p = engine.AttentionParams(
        w_q=ARRAYS[f"{case}/w_q"],
        w_k=ARRAYS[f"{case}/w_k"],
        w_v=ARRAYS[f"{case}/w_v"],
        w_o=ARRAYS[f"{case}/w_o"],
        n_heads=m["n_heads"],
        n_kv_heads=m["n_kv_heads"],
    )
    r = forward(ARRAYS[f"{case}/x"], p, mask=_engine_mask(case))
    np.testing.assert_allclose(r.heads, ARRAYS[f"{case}/heads"], rtol=0, atol=ATOL)
    np.testing.assert_allclose(r.output, ARRAYS[f"{case}/output"], rtol=0, atol=ATOL)


def test_unbatched_input_matches_the_first_batch_row_of_torch() -> None:
    case = "mha_bias_causal"
    x = ARRAYS[f"{case}/x"][0]  # (T, d)
    r = engine.multi_head_attention(x, params_from_torch_mha(case), mask="causal")
    np.testing.assert_allclose(r.output, ARRAYS[f"{case}/output"][0], rtol=0, atol=ATOL)
    np.testing.assert_allclose(r.weights, ARRAYS[f"{case}/weights"][0], rtol=0, atol=ATOL)
