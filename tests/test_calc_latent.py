"""MLA and tensor-parallel calculators against independent computations: caches built as real arrays,
absorbed projections multiplied out both ways, Megatron-style sharding simulated head by head with NumPy,
and a ring all-reduce run chunk by chunk."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import calculate

# DeepSeek-V2: deepseek-ai/DeepSeek-V3 inference/configs/config_236B.json (n_layers 60, n_heads 128,
# kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128, dim 5120).
V2 = {"n_layers": 60, "kv_lora_rank": 512, "rope_dim": 64}
DTYPES = {1: np.int8, 2: np.float16, 4: np.float32}

# ---------------------------------------------------------------------------- MLA cache sizes


@settings(max_examples=40, deadline=None)
@given(
    layers=st.integers(1, 4),
    rank=st.sampled_from([8, 16, 32]),
    rope=st.sampled_from([2, 4, 8]),
    seq=st.integers(1, 9),
    batch=st.integers(1, 3),
    nbytes=st.sampled_from([1, 2, 4]),
)
def test_the_cache_size_is_the_bytes_of_the_latent_and_rope_arrays(
    layers: int, rank: int, rope: int, seq: int, batch: int, nbytes: int
) -> None:
    c_kv = np.zeros((layers, batch, seq, rank), dtype=DTYPES[nbytes])  # (L, B, S, r)
    k_rope = np.zeros((layers, batch, seq, rope), dtype=DTYPES[nbytes])  # (L, B, S, rope)
    d = calculate(
        "mla_cache_bytes",
        n_layers=layers,
        kv_lora_rank=rank,
        rope_dim=rope,
        seq_len=seq,
        batch=batch,
        bytes_per_element=nbytes,
    )
    assert d.value == c_kv.nbytes + k_rope.nbytes
    per_token = calculate(
        "mla_cache_bytes_per_token",
        n_layers=layers,
        kv_lora_rank=rank,
        rope_dim=rope,
        bytes_per_element=nbytes,
    )
    assert per_token.value * seq * batch == d.value


def test_deepseek_v2_matches_the_papers_gqa_with_2_25_groups() -> None:
    # DeepSeek-V2 paper (arXiv:2405.04434), section 2.1.4: d_c = 4 d_h, d_h^R = d_h / 2, "equal to GQA with
    # only 2.25 groups"; with d_h = 128 that is kv_lora_rank 512 and qk_rope_head_dim 64.
    d = calculate("mla_equivalent_gqa_groups", d_head=128, kv_lora_rank=512, rope_dim=64)
    assert d.value == pytest.approx(2.25)
    mla = calculate("mla_cache_bytes_per_token", bytes_per_element=2, **V2).value
    gqa = calculate(
        "kv_cache_bytes_per_token", n_layers=60, n_kv_heads=1, d_head=128, bytes_per_element=2
    ).value
    assert mla == pytest.approx(2.25 * gqa)


@settings(max_examples=60, deadline=None)
@given(
    n_kv=st.sampled_from([1, 2, 8, 32, 128]),
    d_head=st.sampled_from([64, 128]),
    rank=st.sampled_from([128, 512]),
    rope=st.sampled_from([32, 64]),
    layers=st.integers(1, 80),
)
def test_the_ratio_is_the_kv_cache_over_the_mla_cache_whatever_the_layers(
    n_kv: int, d_head: int, rank: int, rope: int, layers: int
) -> None:
    kv = calculate(
        "kv_cache_bytes_per_token", n_layers=layers, n_kv_heads=n_kv, d_head=d_head, bytes_per_element=2
    )
    mla = calculate(
        "mla_cache_bytes_per_token", n_layers=layers, kv_lora_rank=rank, rope_dim=rope, bytes_per_element=2
    )
    r = calculate("mla_cache_ratio", n_kv_heads=n_kv, d_head=d_head, kv_lora_rank=rank, rope_dim=rope)
    assert float(r.value) == pytest.approx(float(kv.value) / float(mla.value))


def test_the_misconceptions_are_the_formula_with_one_factor_wrong() -> None:
    d = calculate(
        "mla_cache_bytes", seq_len=4096, batch=8, bytes_per_element=2, n_heads=128, d_head=128, **V2
    )
    tokens = 60 * 4096 * 8 * 2
    assert d.misconception("x2-on-latent").value == (2 * 512 + 64) * tokens
    assert d.misconception("forgot-rope").value == 512 * tokens
    assert d.misconception("used-n-heads").value == 128 * 128 * tokens
    assert d.misconception("forgot-layers").value == d.value // 60


@pytest.mark.parametrize(
    ("name", "args", "named"),
    [
        (
            "mla_cache_bytes_per_token",
            {"n_layers": 0, "kv_lora_rank": 512, "rope_dim": 64, "bytes_per_element": 2},
            "n_layers=0",
        ),
        (
            "mla_cache_ratio",
            {"n_kv_heads": 8, "d_head": 128, "kv_lora_rank": -1, "rope_dim": 64},
            "kv_lora_rank=-1",
        ),
    ],
)
def test_bad_sizes_are_refused_by_name(name: str, args: dict[str, int], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        calculate(name, **args)


# ---------------------------------------------------------------------------- absorbed projections


def test_absorbing_w_uk_into_the_query_gives_the_same_scores_and_the_engines_shapes() -> None:
    rng = np.random.default_rng(0)
    b, t, s, h, r, dn = 2, 3, 5, 4, 6, 3
    c_kv = rng.standard_normal((b, s, r))  # (B, S, r)
    w_uk = rng.standard_normal((r, h * dn))  # (r, h dn)
    w_uv = rng.standard_normal((r, h * dn))  # (r, h dv), dv = dn here
    q_nope = rng.standard_normal((b, h, t, dn))  # (B, h, T, dn)
    # Naive: decompress the keys and values per head, then attend.
    k = (c_kv @ w_uk).reshape(b, s, h, dn).transpose(0, 2, 1, 3)  # (B, h, S, dn)
    v = (c_kv @ w_uv).reshape(b, s, h, dn).transpose(0, 2, 1, 3)  # (B, h, S, dv)
    scores = q_nope @ k.transpose(0, 1, 3, 2)  # (B, h, T, S)
    # Absorbed: fold each head's W_UK slice into its query, attend on the latent directly.
    w_uk_heads = w_uk.reshape(r, h, dn).transpose(1, 0, 2)  # (h, r, dn)
    q_abs = np.einsum("bhtd,hrd->bhtr", q_nope, w_uk_heads)  # (B, h, T, r)
    absorbed = q_abs @ c_kv[:, None].transpose(0, 1, 3, 2)  # (B, h, T, S)
    np.testing.assert_allclose(absorbed, scores, rtol=1e-10, atol=1e-10)
    weights = np.exp(scores - scores.max(-1, keepdims=True))  # (B, h, T, S)
    weights /= weights.sum(-1, keepdims=True)  # (B, h, T, S)
    ctx_abs = weights @ c_kv[:, None]  # (B, h, T, r)
    w_uv_heads = w_uv.reshape(r, h, dn).transpose(1, 0, 2)  # (h, r, dv)
    np.testing.assert_allclose(np.einsum("bhtr,hrd->bhtd", ctx_abs, w_uv_heads), weights @ v, atol=1e-10)
    shape = {
        "batch": b,
        "seq_len": t,
        "kv_len": s,
        "n_heads": h,
        "kv_lora_rank": r,
        "rope_dim": 2,
        "d_nope": dn,
    }
    assert calculate("mla_shape", stage="absorbed_query", **shape).value == q_abs.shape
    assert calculate("mla_shape", stage="absorbed_context", **shape).value == ctx_abs.shape
    assert calculate("mla_shape", stage="latent_cache", **shape).value == c_kv.shape
    assert calculate("mla_shape", stage="w_uk", **shape).value == w_uk.shape
    assert (
        calculate("mla_shape", stage="absorbed_query", **shape).misconception("not-absorbed").value
        == q_nope.shape
    )


# ---------------------------------------------------------------------------- tensor parallelism


def _attention(
    x: npt.NDArray[np.float64],
    wq: npt.NDArray[np.float64],
    wk: npt.NDArray[np.float64],
    wv: npt.NDArray[np.float64],
    n_heads: int,
    n_kv: int,
) -> npt.NDArray[np.float64]:
    """Grouped-query attention without W_O; query head i reads KV head i // (n_heads / n_kv)."""
    t, dh = x.shape[0], wq.shape[1] // n_heads
    q = (x @ wq).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, dh)
    k = (x @ wk).reshape(t, n_kv, dh).transpose(1, 0, 2)  # (g, T, dh)
    v = (x @ wv).reshape(t, n_kv, dh).transpose(1, 0, 2)  # (g, T, dh)
    k, v = np.repeat(k, n_heads // n_kv, axis=0), np.repeat(v, n_heads // n_kv, axis=0)  # (h, T, dh)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(dh)  # (h, T, T)
    w = np.exp(s - s.max(-1, keepdims=True))  # (h, T, T)
    w /= w.sum(-1, keepdims=True)  # (h, T, T)
    return (w @ v).transpose(1, 0, 2).reshape(t, n_heads * dh)  # (T, h dh)


@pytest.mark.parametrize(
    ("h", "g", "tp"), [(8, 8, 2), (8, 2, 4), (8, 2, 8), (8, 1, 4), (16, 4, 2), (4, 4, 4)]
)
def test_megatron_sharding_with_kv_replication_reproduces_attention(h: int, g: int, tp: int) -> None:
    rng = np.random.default_rng(h * 100 + g * 10 + tp)
    t, dh = 5, 4
    d = h * dh
    x = rng.standard_normal((t, d))  # (T, d)
    wq, wo = rng.standard_normal((d, d)), rng.standard_normal((d, d))  # (d, h dh), (h dh, d)
    wk, wv = rng.standard_normal((d, g * dh)), rng.standard_normal((d, g * dh))  # (d, g dh)
    full = _attention(x, wq, wk, wv, h, g) @ wo  # (T, d)
    q_local, group = h // tp, h // g
    partial_sum = np.zeros((t, d))  # (T, d)
    for rank in range(tp):
        heads = range(rank * q_local, (rank + 1) * q_local)
        kv_heads = sorted({i // group for i in heads})  # the KV heads this rank's query heads read
        cols = np.concatenate([np.arange(i * dh, (i + 1) * dh) for i in heads])  # (q_local dh,)
        kv_cols = np.concatenate([np.arange(j * dh, (j + 1) * dh) for j in kv_heads])  # (kv_local dh,)
        wq_r, wk_r, wv_r, wo_r = wq[:, cols], wk[:, kv_cols], wv[:, kv_cols], wo[cols, :]
        local = _attention(x, wq_r, wk_r, wv_r, q_local, len(kv_heads)) @ wo_r  # (T, d): a full-size partial
        partial_sum += local
        assert calculate("tp_heads_per_gpu", n_heads=h, n_kv_heads=g, tp=tp, which="kv").value == len(
            kv_heads
        )
        params = wq_r.size + wk_r.size + wv_r.size + wo_r.size
        assert (
            calculate("tp_attention_params_per_gpu", d_model=d, n_heads=h, n_kv_heads=g, tp=tp).value
            == params
        )
        msg = calculate("tp_allreduce_bytes", batch=1, seq_len=t, d_model=d, bytes_per_element=8, tp=tp)
        assert msg.value == local.nbytes
    np.testing.assert_allclose(partial_sum, full, atol=1e-9)  # the all-reduce of the partials is the output
    replicas = calculate("tp_heads_per_gpu", n_heads=h, n_kv_heads=g, tp=tp, which="kv_replicas").value
    owners = [sorted({i // group for i in range(r * q_local, (r + 1) * q_local)}) for r in range(tp)]
    assert replicas == max(sum(j in o for o in owners) for j in range(g))


@pytest.mark.parametrize(("h", "g", "tp"), [(64, 8, 8), (64, 8, 16), (32, 1, 4), (32, 32, 8)])
def test_the_per_gpu_cache_is_the_bytes_of_the_local_kv_heads(h: int, g: int, tp: int) -> None:
    layers, dh, seq, batch = 2, 8, 16, 3
    local = max(g // tp, 1)
    k = np.zeros((layers, batch, local, seq, dh), dtype=np.float16)  # (L, B, kv_local, S, dh)
    args = {"n_layers": layers, "n_heads": h, "n_kv_heads": g, "d_head": dh, "seq_len": seq, "batch": batch}
    per_gpu = calculate("tp_kv_cache_bytes", bytes_per_element=2, tp=tp, **args)
    assert per_gpu.value == 2 * k.nbytes
    group = calculate("tp_kv_cache_bytes", bytes_per_element=2, tp=tp, scope="all_gpus", **args)
    unsharded = calculate(
        "kv_cache_bytes",
        n_kv_heads=g,
        bytes_per_element=2,
        **{a: args[a] for a in args if a != "n_heads" and a != "n_kv_heads"},
    )
    assert group.value == unsharded.value * max(tp // g, 1)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"n_heads": 12, "n_kv_heads": 4, "tp": 8}, ["n_heads=12", "tp=8"]),
        ({"n_heads": 24, "n_kv_heads": 3, "tp": 8}, ["tp=8", "n_kv_heads=3"]),
        ({"n_heads": 32, "n_kv_heads": 8, "tp": 0}, ["tp=0"]),
    ],
)
def test_a_tp_degree_that_does_not_split_the_heads_is_refused_by_name(
    args: dict[str, int], named: list[str]
) -> None:
    with pytest.raises(ValueError) as err:
        calculate("tp_heads_per_gpu", which="query", **args)
    assert all(n in str(err.value) for n in named)


@pytest.mark.parametrize("tp", [2, 3, 4, 8])
def test_a_ring_all_reduce_sends_what_the_engine_says(tp: int) -> None:
    rng = np.random.default_rng(tp)
    n = 24 * tp
    data = [rng.standard_normal(n) for _ in range(tp)]  # tp x (n,)
    bufs = [np.array_split(a.copy(), tp) for a in data]  # tp x tp chunks
    sent = [0] * tp
    for step in range(tp - 1):  # reduce-scatter: rank r sends chunk (r - step) to r + 1
        out = [(r, (r - step) % tp, bufs[r][(r - step) % tp].copy()) for r in range(tp)]
        for r, c, chunk in out:
            bufs[(r + 1) % tp][c] += chunk
            sent[r] += chunk.nbytes
    for step in range(tp - 1):  # all-gather: rank r passes its finished chunk (r + 1 - step) on
        out = [(r, (r + 1 - step) % tp, bufs[r][(r + 1 - step) % tp].copy()) for r in range(tp)]
        for r, c, chunk in out:
            bufs[(r + 1) % tp][c] = chunk
            sent[r] += chunk.nbytes
    for r in range(tp):
        np.testing.assert_allclose(np.concatenate(bufs[r]), np.sum(data, axis=0))
    d = calculate(
        "tp_allreduce_bytes", batch=1, seq_len=n, d_model=1, bytes_per_element=8, tp=tp, scope="ring_per_gpu"
    )
    assert all(s == d.value for s in sent)
