"""Provides KV-cache sizes and the MHA/GQA/MQA savings ratio, with the usual wrong turns."""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import distinct, require_divisible, require_positive
from engine.derivation import Derivation, Misconception, Step

GIB_AS_GB = 1000**3 / 1024**3

_L = Arg("n_layers", "int", "number of layers")
_G = Arg("n_kv_heads", "int", "number of key/value heads")
_DH = Arg("d_head", "int", "width of one head")
_BYTES = Arg("bytes_per_element", "int", "bytes per number (fp16/bf16: 2, fp32: 4, int8: 1)")
_HQ = Arg("n_heads", "int", "number of query heads (lets a 'used h' mistake be recognised)", required=False)
_COMMON_WRONG = (
    "no-x2-kv",
    "used-n-heads",
    "forgot-layers",
    "fp32-for-fp16",
    "forgot-bytes",
    "gib-as-gb",
    "gb-as-gib",
)


def _kv_steps(n_layers: int, n_kv_heads: int, d_head: int, bytes_per_element: int) -> tuple[int, list[Step]]:
    per_layer = 2 * n_kv_heads * d_head * bytes_per_element
    per_token = per_layer * n_layers
    return per_token, [
        Step(
            "K and V per token per layer",
            "2 x n_kv_heads x d_head x bytes",
            f"2 x {n_kv_heads} x {d_head} x {bytes_per_element}",
            per_layer,
            "B",
        ),
        Step("Per token, all layers", "x n_layers", f"{per_layer:,} x {n_layers}", per_token, "B"),
    ]


def _wrong(
    value: int,
    *,
    n_layers: int,
    n_kv_heads: int,
    n_heads: int | None,
    bytes_per_element: int,
    extra: list[Misconception],
) -> tuple[Misconception, ...]:
    kv = "K and V per token per layer"
    out = [
        Misconception(
            "no-x2-kv", "You left out the x2 for K and V", "Both keys and values are cached.", value / 2, kv
        ),
        Misconception(
            "forgot-layers",
            "You left out the layers",
            "Every layer keeps its own K and V.",
            value / n_layers,
            "Per token, all layers",
        ),
        Misconception(
            "forgot-bytes",
            "You counted numbers, not bytes",
            "Multiply by the bytes per element.",
            value / bytes_per_element,
            kv,
        ),
        Misconception(
            "gib-as-gb",
            "That is the GiB figure read as GB",
            "1 GiB = 2^30 bytes but 1 GB = 10^9 bytes; convert rather than relabel.",
            value * GIB_AS_GB,
            "Total",
        ),
        Misconception(
            "gb-as-gib",
            "That is the GB figure read as GiB",
            "1 GB = 10^9 bytes, 1 GiB = 2^30 bytes.",
            value / GIB_AS_GB,
            "Total",
        ),
    ]
    if n_heads is not None and n_heads != n_kv_heads:
        out.insert(
            1,
            Misconception(
                "used-n-heads",
                "You used the query heads instead of the KV heads",
                "Only the n_kv_heads key/value heads are cached; query heads are not.",
                value * n_heads // n_kv_heads,
                kv,
            ),
        )
    if bytes_per_element == 2:
        out.insert(
            2,
            Misconception(
                "fp32-for-fp16", "You used 4 bytes (fp32) for fp16", "fp16 is 2 bytes.", value * 2, kv
            ),
        )
    return distinct(value, out + extra)


@register(
    "kv_cache_bytes",
    summary="Bytes of K and V cached for a whole batch of sequences: 2 L n_kv d_head T B bytes.",
    unit="B",
    args=(
        _L,
        _G,
        _DH,
        Arg("seq_len", "int", "tokens cached per sequence"),
        Arg("batch", "int", "sequences in the batch"),
        _BYTES,
        _HQ,
    ),
    misconceptions=(*_COMMON_WRONG, "forgot-batch"),
)
def kv_cache_bytes(
    n_layers: int,
    n_kv_heads: int,
    d_head: int,
    seq_len: int,
    batch: int,
    bytes_per_element: int,
    n_heads: int | None = None,
) -> Derivation:
    calc = "kv_cache_bytes"
    require_positive(
        calc,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        seq_len=seq_len,
        batch=batch,
        bytes_per_element=bytes_per_element,
        n_heads=n_heads,
    )
    if n_heads is not None:
        require_divisible(calc, "n_heads", n_heads, "n_kv_heads", n_kv_heads)
    per_token, steps = _kv_steps(n_layers, n_kv_heads, d_head, bytes_per_element)
    per_seq = per_token * seq_len
    value = per_seq * batch
    steps += [
        Step("One sequence", "x seq_len", f"{per_token:,} x {seq_len:,}", per_seq, "B"),
        Step("Total", "x batch", f"{per_seq:,} x {batch}", value, "B"),
    ]
    extra = [
        Misconception(
            "forgot-batch", "You left out the batch", "Each sequence has its own cache.", per_seq, "Total"
        )
    ]
    if batch == 1:
        extra = []
    wrong = _wrong(
        value,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        n_heads=n_heads,
        bytes_per_element=bytes_per_element,
        extra=extra,
    )
    return Derivation(calc, value, "B", tuple(steps), wrong)


@register(
    "kv_cache_bytes_per_token",
    summary="Bytes of K and V cached per token across all layers: 2 L n_kv d_head bytes.",
    unit="B",
    args=(_L, _G, _DH, _BYTES, _HQ),
    misconceptions=_COMMON_WRONG,
)
def kv_cache_bytes_per_token(
    n_layers: int, n_kv_heads: int, d_head: int, bytes_per_element: int, n_heads: int | None = None
) -> Derivation:
    calc = "kv_cache_bytes_per_token"
    require_positive(
        calc,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        bytes_per_element=bytes_per_element,
        n_heads=n_heads,
    )
    if n_heads is not None:
        require_divisible(calc, "n_heads", n_heads, "n_kv_heads", n_kv_heads)
    value, steps = _kv_steps(n_layers, n_kv_heads, d_head, bytes_per_element)
    wrong = _wrong(
        value,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        n_heads=n_heads,
        bytes_per_element=bytes_per_element,
        extra=[],
    )
    return Derivation(calc, value, "B", tuple(steps), wrong)


@register(
    "kv_cache_savings",
    summary="How many times smaller the KV cache gets with n_kv heads instead of h: h / n_kv.",
    unit="x",
    args=(Arg("n_heads", "int", "number of query heads h"), _G),
    misconceptions=("inverted", "difference"),
)
def kv_cache_savings(n_heads: int, n_kv_heads: int) -> Derivation:
    calc = "kv_cache_savings"
    require_positive(calc, n_heads=n_heads, n_kv_heads=n_kv_heads)
    require_divisible(calc, "n_heads", n_heads, "n_kv_heads", n_kv_heads)
    value = n_heads // n_kv_heads
    label = "Cache ratio"
    steps = (
        Step(
            "Everything but the KV heads cancels",
            "(2 L h d_head T B bytes) / (2 L n_kv d_head T B bytes)",
            "h / n_kv",
            value,
            "x",
        ),
        Step(label, "h / n_kv", f"{n_heads} / {n_kv_heads}", value, "x"),
    )
    wrong = [
        Misconception(
            "inverted",
            "You inverted the ratio",
            "Savings = old size / new size = h / n_kv.",
            n_kv_heads / n_heads,
            label,
        ),
        Misconception(
            "difference",
            "You subtracted instead of dividing",
            "Sizes scale with the head count.",
            n_heads - n_kv_heads,
            label,
        ),
    ]
    return Derivation(calc, value, "x", steps, distinct(value, wrong))
