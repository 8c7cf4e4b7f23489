"""Provides the checks that guard engine.attention, so the reference itself reads as the maths alone.

Every check raises ValueError naming the values it refused; each returns what it was given, made into
arrays where that helps the caller. Shape letters as in engine/attention.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from engine.attention import AttentionParams

FloatArray = npt.NDArray[np.floating[Any]]


def check_head_counts(n_heads: int, n_kv_heads: int) -> None:
    """At least one head of each kind, and whole groups of query heads per key/value head."""
    if n_heads < 1 or n_kv_heads < 1:
        raise ValueError(f"n_heads={n_heads} and n_kv_heads={n_kv_heads} must both be at least 1")
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads={n_heads} is not divisible by n_kv_heads={n_kv_heads}")


def check_sizes(d_model: int, n_heads: int, n_kv_heads: int) -> None:
    """Sizes init_attention can draw weights for: d_head = d_model / n_heads must be whole."""
    if min(d_model, n_heads, n_kv_heads) < 1:
        raise ValueError(
            f"d_model={d_model}, n_heads={n_heads}, n_kv_heads={n_kv_heads} must all be at least 1"
        )
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")


def check_params(p: AttentionParams) -> None:
    """Every weight present has the shape its head counts imply, and holds finite numbers."""
    h, n_kv = p.n_heads, p.n_kv_heads
    if p.w_q.ndim != 2 or p.w_q.shape[1] % h:
        raise ValueError(f"w_q has shape {p.w_q.shape}; expected (d_model, n_heads*d_head), n_heads={h}")
    d, dh = p.d_model, p.d_head
    shapes = {"w_q": (d, h * dh), "w_k": (d, n_kv * dh), "w_v": (d, n_kv * dh), "w_o": (h * dh, d),
              "b_q": (h * dh,), "b_k": (n_kv * dh,), "b_v": (n_kv * dh,), "b_o": (d,)}  # fmt: skip
    for name, shape in shapes.items():
        array = getattr(p, name)
        if array is not None and array.shape != shape:
            raise ValueError(
                f"{name} has shape {array.shape}; expected {shape} for d_model={d}, n_heads={h}, "
                f"n_kv_heads={n_kv}, d_head={dh}"
            )
        if array is not None and not np.isfinite(array).all():
            raise ValueError(f"{name} contains NaN or infinite values")


def check_softmax_input(x: npt.ArrayLike) -> FloatArray:
    """x as floats (integers become float64); NaN or +inf refused, -inf allowed (a masked entry)."""
    a = np.asarray(x)  # (..., n)
    a = a if np.issubdtype(a.dtype, np.floating) else a.astype(np.float64)  # (..., n)
    if np.isnan(a).any() or (a == np.inf).any():
        raise ValueError("softmax input contains NaN or +inf")
    return a


def check_causal_sizes(T: int, S: int) -> None:
    """A causal mask needs at least one query and one key."""
    if T < 1 or S < 1:
        raise ValueError(f"causal_mask needs T={T} and S={S} to be at least 1")


def check_mask(mask: str | npt.ArrayLike | None, shape: tuple[int, int, int, int]) -> str | np.ndarray | None:
    """The mask made ready for scores of `shape` (B, h, T, S): None, "causal", or an array that
    broadcasts to it, boolean (True = may attend) or additive float (-inf blocks)."""
    if mask is None or isinstance(mask, str):
        if mask not in (None, "causal"):
            raise ValueError(f"mask={mask!r} is not understood; use 'causal', a bool array or a float array")
        return mask
    m = np.asarray(mask)  # broadcastable to (B, h, T, S)
    try:
        fits = m.ndim <= 4 and np.broadcast_shapes(m.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {m.shape} does not broadcast to the scores' shape {shape} (B, H, T, S)"
        )
    if m.dtype != np.bool_ and not np.issubdtype(m.dtype, np.floating):
        raise ValueError(f"mask has dtype {m.dtype}; use a bool array (True = may attend) or a float array")
    if m.dtype != np.bool_ and (np.isnan(m).any() or (m == np.inf).any()):
        raise ValueError("additive mask contains NaN or +inf; use -inf (or a large negative number) to block")
    return m


def check_tokens(x: npt.ArrayLike, kv: npt.ArrayLike | None, d: int) -> tuple[np.ndarray, np.ndarray]:
    """x and kv (x itself when None) as arrays of finite real tokens, (T, d) or (B, T, d), with the same
    batch axes."""
    xa = np.asarray(x)  # (T, d) or (B, T, d)
    kva = xa if kv is None else np.asarray(kv)  # (S, d) or (B, S, d)
    for name, a in (("x", xa), ("kv", kva)) if kv is not None else (("x", xa),):
        if a.ndim not in (2, 3) or a.shape[-1] != d or a.shape[-2] < 1 or a.size == 0:
            raise ValueError(f"{name} has shape {a.shape}; expected (T, {d}) or (B, T, {d}) for d_model={d}")
        if a.dtype.kind not in "fiu":
            raise ValueError(f"{name} has dtype {a.dtype}; expected real numbers")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"{name} contains NaN or infinite values")
    if kva.ndim != xa.ndim or kva.shape[:-2] != xa.shape[:-2]:
        raise ValueError(f"kv has shape {kva.shape} but x has shape {xa.shape}; their batch sizes must match")
    return xa, kva


def check_call(
    x: npt.ArrayLike, p: AttentionParams, mask: str | npt.ArrayLike | None, kv: npt.ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, str | np.ndarray | None]:
    """One attention call's tokens (kv defaults to x) and its mask, checked against p and each other."""
    xa, kva = check_tokens(x, kv, p.d_model)  # (B?, T, d), (B?, S, d)
    B = xa.shape[0] if xa.ndim == 3 else 1
    return xa, kva, check_mask(mask, (B, p.n_heads, xa.shape[-2], kva.shape[-2]))
