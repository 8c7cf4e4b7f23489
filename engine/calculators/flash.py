"""Provides FlashAttention's online softmax, run block by block, and the memory it avoids materialising.

The online softmax keeps three things per query row while it streams over blocks of keys: the running
maximum m, the running sum l = sum exp(s_j - m) and the unnormalised output acc = sum exp(s_j - m) v_j.
When a block raises the maximum from m_old to m_new, the old l and acc are multiplied by
exp(m_old - m_new) so every term refers to the same maximum; after the last block, acc / l is exactly
softmax(s) V (Dao et al. 2022, arXiv:2205.14135, Algorithm 1; Milakov and Gimelshein 2018,
arXiv:1805.02867).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    BytesPerElement,
    CachedLen,
    NHeads,
    require_divisible,
    require_positive,
)
from engine.derivation import Derivation, Misconception, Mistake, Step

Matrix = npt.NDArray[np.float64]
WHICH = ("max", "scale", "sum", "acc", "output")
"""What the online-softmax question asks for: running max, rescale factor, running sum, accumulator
entry (all after `blocks` key blocks), or an entry of the final normalised output."""

Rescale = Callable[[float, float], float]
"""How a variant rescales the old state: factor(m_old, m_new)."""


@dataclass(frozen=True)
class _State:
    """The per-row state after one key block."""

    m: float
    scale: float
    lsum: float
    acc: Matrix  # (d_v,)


def _right(m_old: float, m_new: float) -> float:
    return float(np.exp(m_old - m_new))  # scalar: <= 1, shrinks terms taken against a smaller max


def _wrong_way(m_old: float, m_new: float) -> float:
    return float(np.exp(m_new - m_old))  # scalar: >= 1, the inverse of the right factor


def _none(m_old: float, m_new: float) -> float:
    return 1.0


def _no_exp(m_old: float, m_new: float) -> float:
    return m_old - m_new  # scalar: the exponent without the exp, 0 when the max did not move


def _run(
    s: Matrix,
    v: Matrix,
    block: int,
    *,
    rescale_l: Rescale = _right,
    rescale_acc: Rescale = _right,
    block_max: bool = False,
) -> list[_State]:
    """The FlashAttention inner loop for one query row: one _State per key block.

    The variants reproduce the learner's mistakes: a wrong or missing rescale of l or acc, or a max that
    is the block's own instead of the running one.
    """
    states: list[_State] = []
    m, l_sum = -np.inf, 0.0
    acc = np.zeros(v.shape[1])  # (d_v,)
    for start in range(0, s.shape[0], block):
        sb = s[start : start + block]  # (Bc,)
        vb = v[start : start + block]  # (Bc, d_v)
        m_blk = float(sb.max())  # scalar
        m_new = m_blk if block_max else max(m, m_blk)
        first = not states
        f_l = 0.0 if first else rescale_l(m, m_new)
        f_acc = 0.0 if first else rescale_acc(m, m_new)
        p = np.exp(sb - m_new)  # (Bc,)
        l_sum = l_sum * f_l + float(p.sum())
        acc = acc * f_acc + p @ vb  # (Bc,) @ (Bc, d_v) -> (d_v,)
        states.append(_State(m_new, 1.0 if first else rescale_l(m, m_new), l_sum, acc))
        m = m_new
    return states


def _vec(v: Matrix) -> str:
    return "[" + ", ".join([f"{x:.4g}" for x in v.tolist()]) + "]"  # (n,) as plain floats


def _pick(states: list[_State], which: str, blocks: int, col: int) -> float:
    st = states[blocks - 1]
    if which == "max":
        return st.m
    if which == "scale":
        return st.scale
    if which == "sum":
        return st.lsum
    if which == "acc":
        return float(st.acc[col])
    last = states[-1]
    return float(last.acc[col] / last.lsum)


def _check_row(scores: Matrix, values: Matrix, block_size: int) -> tuple[Matrix, Matrix]:
    s = np.asarray(scores, dtype=np.float64)  # (1, S)
    v = np.asarray(values, dtype=np.float64)  # (S, d_v)
    if s.ndim != 2 or s.shape[0] != 1 or s.shape[1] < 1:
        raise ValueError(f"scores must be one row of key scores, shape (1, S); got {s.shape}")
    if v.ndim != 2 or v.shape[0] != s.shape[1] or v.shape[1] < 1:
        raise ValueError(f"values {v.shape} must have one row per key, shape (S, d_v) with S={s.shape[1]}")
    require_positive(block_size=block_size)
    require_divisible("S", s.shape[1], "block_size", block_size)
    return s[0], v  # (S,), (S, d_v)


BLOCK_MAX = Mistake(
    "block-max",
    "You used the block's own max, not the running max",
    "m is the largest score seen so far, max(m_old, block max); the new block's maximum alone "
    "forgets an earlier, larger score.",
)
RESCALED_WRONG_WAY = Mistake(
    "rescaled-wrong-way",
    "You rescaled by exp(m_new - m_old), the wrong way round",
    "Old terms were exp(s - m_old); to refer them to the larger m_new multiply by "
    "exp(m_old - m_new), which is at most 1.",
)
NO_RESCALE = Mistake(
    "no-rescale",
    "You added the new block without rescaling the old sum",
    "When the max rises, the old l and acc were taken against the old max; multiply them by "
    "exp(m_old - m_new) before adding the new block's terms.",
)
L_RATIO_RESCALE = Mistake(
    "l-ratio-rescale",
    "You rescaled by l_old / l_new, the running sums' ratio",
    "The factor that refers old terms to the new max is exp(m_old - m_new); l_old / l_new is "
    "the weight FlashAttention-1 gives an already normalised output, a different quantity.",
)
RESCALED_SUM_ONLY = Mistake(
    "rescaled-sum-only",
    "You rescaled l but not the accumulator",
    "The accumulator holds the same exp(s - m) terms as l, multiplied by values; it needs the "
    "same exp(m_old - m_new) correction.",
)
UNNORMALISED = Mistake(
    "unnormalised",
    "You forgot to divide the accumulator by l",
    "acc is sum exp(s_j - m) v_j; the softmax weights are those exponentials divided by their "
    "sum l, so the output is acc / l.",
)
MISSING_EXP = Mistake(
    "missing-exp",
    "You used m_old - m_new itself as the factor, without the exp",
    "The old terms are exp(s - m_old); referring them to m_new multiplies each by "
    "exp(m_old - m_new), the exponential of the max's change, not the change itself.",
)


@register(
    summary="FlashAttention's online softmax over key blocks for one query row: m, l, acc or the output.",
    unit="",
    misconceptions=(
        BLOCK_MAX,
        RESCALED_WRONG_WAY,
        NO_RESCALE,
        RESCALED_SUM_ONLY,
        UNNORMALISED,
        MISSING_EXP,
        L_RATIO_RESCALE,
    ),
)
def online_softmax(
    scores: Annotated[Matrix, Param("one query's scaled scores against every key, shape (1, S)")],
    values: Annotated[Matrix, Param("value vectors, one row per key (S, d_v)")],
    block_size: Annotated[int, Param("keys per block B_c (S must be a multiple)")],
    blocks: Annotated[
        int | None, Param("how many key blocks have been processed (default: all); ignored for the output")
    ] = None,
    which: Annotated[
        Literal["max", "scale", "sum", "acc", "output"],
        Param(
            "max (running max m), scale (factor applied to the old l and acc), sum (running sum l), "
            "acc (accumulator entry) or output (acc / l after the last block)"
        ),
    ] = "sum",
    col: Annotated[int, Param("value column for acc and output (0-based)")] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Runs the block loop in NumPy, so each step is the state a kernel would hold after that block."""
    if which not in WHICH:
        raise ValueError(f"which={which!r} must be one of {', '.join(WHICH)}")
    s, v = _check_row(scores, values, block_size)
    n_blocks = s.shape[0] // block_size
    b = n_blocks if blocks is None or which == "output" else blocks
    if not 1 <= b <= n_blocks:
        raise ValueError(f"blocks={b} must be between 1 and the {n_blocks} key blocks")
    if which == "scale" and b < 2:
        raise ValueError(f"blocks={b}: the first block has no old state to rescale; ask for 2 or more")
    if which in ("acc", "output") and not 0 <= col < v.shape[1]:
        raise ValueError(f"col={col} is outside the {v.shape[1]} value columns")
    states = _run(s, v, block_size)
    value = _pick(states, which, b, col)
    if not worked:
        return result(value)

    steps: list[Step] = []
    first_rise: dict[str, str] = {}
    m_old = -np.inf
    for i, st in enumerate(states[:b], start=1):
        lo = (i - 1) * block_size
        sb = s[lo : lo + block_size]  # (Bc,)
        last = i == b
        mx = f"Block {i}: running max m"
        steps.append(
            Step(
                mx,
                "m = max(m_old, max of the block's scores)" if i > 1 else "m = max of the block's scores",
                f"max({m_old:.4g}, max{_vec(sb)})" if i > 1 else f"max{_vec(sb)}",
                st.m,
            )
        )
        if last and which == "max":
            break
        if i > 1:
            sc = f"Block {i}: rescale factor"
            steps.append(Step(sc, "exp(m_old - m)", f"exp({m_old:.4g} - {st.m:.4g})", st.scale))
            if st.scale != 1.0:
                first_rise.setdefault("scale", sc)
            if last and which == "scale":
                break
        prev = states[i - 2] if i > 1 else None
        sm = f"Block {i}: running sum l"
        new_terms = " + ".join([f"exp({x:.4g} - {st.m:.4g})" for x in sb.tolist()])
        steps.append(
            Step(
                sm,
                "l = l_old x exp(m_old - m) + sum exp(s_j - m)" if prev else "l = sum exp(s_j - m)",
                f"{prev.lsum:.6g} x {st.scale:.6g} + {new_terms}" if prev else new_terms,
                st.lsum,
            )
        )
        if prev and st.scale != 1.0:
            first_rise.setdefault("sum", sm)
        if last and which == "sum":
            break
        ac = f"Block {i}: accumulator entry {col}"
        vb = v[lo : lo + block_size, col]  # (Bc,)
        terms = " + ".join([f"exp({x:.4g} - {st.m:.4g}) x {y:.4g}" for x, y in zip(sb, vb, strict=True)])
        steps.append(
            Step(
                ac,
                "acc = acc_old x exp(m_old - m) + sum exp(s_j - m) v_j"
                if prev
                else "acc = sum exp(s_j - m) v_j",
                f"{float(prev.acc[col]):.6g} x {st.scale:.6g} + {terms}" if prev else terms,
                float(st.acc[col]),
            )
        )
        if prev and st.scale != 1.0:
            first_rise.setdefault("acc", ac)
        m_old = st.m
    out_label = f"Output entry {col}"
    if which == "output":
        last_state = states[-1]
        steps.append(
            Step(out_label, "o = acc / l", f"{float(last_state.acc[col]):.6g} / {last_state.lsum:.6g}", value)
        )
    last_label = steps[-1].label

    def variant(**kw: object) -> float:
        return _pick(_run(s, v, block_size, **kw), which, b, col)  # type: ignore[arg-type]

    st_b = states[b - 1]
    m_old_b = states[b - 2].m if b > 1 else st_b.m
    where_sum = first_rise.get("sum", last_label)
    where_acc = first_rise.get("acc", last_label)
    wrong: list[Misconception] = []
    if which != "output":
        wrong.append(BLOCK_MAX.gives(variant(block_max=True), f"Block {b}: running max m"))
    if which in ("scale", "sum", "acc", "output"):
        wrong.append(
            RESCALED_WRONG_WAY.gives(
                variant(rescale_l=_wrong_way, rescale_acc=_wrong_way) if which != "scale" else 1 / value,
                f"Block {b}: rescale factor"
                if which == "scale"
                else (where_acc if which == "acc" else where_sum),
            )
        )
    if which in ("sum", "acc", "output"):
        wrong.append(
            NO_RESCALE.gives(
                variant(rescale_l=_none, rescale_acc=_none), where_sum if which != "acc" else where_acc
            )
        )
    if which in ("scale", "sum", "acc", "output"):
        with np.errstate(all="ignore"):  # without the exp, l can come out 0: that output is no number
            no_exp = variant(rescale_l=_no_exp, rescale_acc=_no_exp) if which != "scale" else m_old_b - st_b.m
        if math.isfinite(no_exp):
            wrong.append(
                MISSING_EXP.gives(
                    no_exp,
                    f"Block {b}: rescale factor"
                    if which == "scale"
                    else (where_acc if which == "acc" else where_sum),
                )
            )
    if which == "scale":
        wrong.append(
            L_RATIO_RESCALE.gives(states[b - 2].lsum / states[b - 1].lsum, f"Block {b}: rescale factor")
        )
    if which == "output":
        wrong.append(RESCALED_SUM_ONLY.gives(variant(rescale_acc=_none), where_acc))
    if which == "output":
        wrong.append(UNNORMALISED.gives(float(states[-1].acc[col]), out_label))
    return result(value, tuple(steps), wrong)


WHAT = ("memory", "traffic")


FORGOT_HEADS = Mistake(
    "forgot-heads", "You left out the heads", "Every head has its own T x T scores and probabilities."
)
FORGOT_BATCH = Mistake(
    "forgot-batch", "You left out the batch", "Every sequence in the batch has its own matrices."
)
LINEAR_IN_T = Mistake(
    "linear-in-t",
    "You made it linear in T",
    "Each of the T queries is scored against all T keys: T x T entries per head.",
)
FORGOT_BYTES = Mistake(
    "forgot-bytes",
    "You counted entries, not bytes",
    "Multiply the number of entries by the bytes per element.",
)
ONE_MATRIX = Mistake(
    "one-matrix",
    "You counted only the scores S",
    "Standard attention materialises both the scores S and the softmax output P, each T x T per head.",
)
WRITES_ONLY = Mistake(
    "writes-only",
    "You counted the writes, not the reads",
    "Each matrix goes to HBM and comes back: S is read for the softmax and P for P V.",
)


@register(
    summary="Bytes of the T x T score and probability matrices standard attention writes to HBM, which "
    "FlashAttention never materialises: memory 2 B h T^2 bytes, traffic (write + read each) 4 B h T^2 bytes.",
    unit="B",
    misconceptions=(
        ONE_MATRIX,
        WRITES_ONLY,
        FORGOT_HEADS,
        FORGOT_BATCH,
        LINEAR_IN_T,
        FORGOT_BYTES,
    ),
)
def materialised_attention_bytes(
    batch: Batch,
    n_heads: NHeads,
    seq_len: CachedLen,
    bytes_per_element: BytesPerElement,
    what: Annotated[
        Literal["memory", "traffic"],
        Param("memory (S and P held at once) or traffic (each written once and read once)"),
    ] = "memory",
    *,
    worked: bool = True,
) -> Derivation:
    """Standard attention writes S = QK^T, reads it for the softmax, writes P, reads P for PV: all T^2."""
    if what not in WHAT:
        raise ValueError(f"what={what!r} must be one of {', '.join(WHAT)}")
    one = batch * n_heads * seq_len * seq_len * bytes_per_element
    both = 2 * one
    value = both if what == "memory" else 2 * both
    if not worked:
        return result(value)
    one_label, both_label, traffic_label = "One matrix (S or P)", "S and P", "Written once, read once"
    steps = [
        Step(
            one_label,
            "B x h x T x T x bytes",
            f"{batch} x {n_heads} x {seq_len:,} x {seq_len:,} x {bytes_per_element}",
            one,
            "B",
        ),
        Step(both_label, "2 x one matrix", f"2 x {one:,}", both, "B"),
    ]
    if what == "traffic":
        steps.append(Step(traffic_label, "2 x (S and P)", f"2 x {both:,}", value, "B"))
    wrong = [
        ONE_MATRIX.gives(value // 2, both_label)
        if what == "memory"
        else WRITES_ONLY.gives(value // 2, traffic_label),
        FORGOT_HEADS.gives(value // n_heads, one_label),
        FORGOT_BATCH.gives(value // batch, one_label),
        LINEAR_IN_T.gives(value // seq_len, one_label),
        FORGOT_BYTES.gives(value // bytes_per_element, one_label),
    ]
    return result(value, tuple(steps), wrong)
