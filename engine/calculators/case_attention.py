"""Provides the attention steps case studies chain: prefill and ring-step FLOPs, decode intensity, KIVI bytes.

Decode intensity counts, per cached token and layer, the FLOPs of q.k and p.v over the bytes read from the
cache. Absorbed MLA (DeepSeek-V2, arXiv:2405.04434, section 2.1.2) attends over the cached latent itself:
scores over the latent plus the RoPE key (r + rho wide), outputs over the latent (r wide), for every query
head, while the cache holds r + rho numbers per token. KIVI (Liu et al. 2024, arXiv:2402.02750) quantises
keys per channel and values per token in groups of G, each group with a scale and a zero point.
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.derivation import Derivation

_L = Arg("n_layers", "int", "number of layers")
_H = Arg("n_heads", "int", "query heads")
_G = Arg("n_kv_heads", "int", "key/value heads")
_DH = Arg("d_head", "int", "width of one head")


@register(
    "prefill_attention_flops",
    summary="FLOPs of q.k and p.v over a prompt: 4 L h d_head T^2, halved by the causal mask.",
    unit="FLOPs",
    args=(
        _L,
        _H,
        _DH,
        Arg("seq_len", "int", "prompt tokens T"),
        Arg("causal", "bool", "a causal mask skips the upper triangle", True, False),
    ),
    misconceptions=("no-causal-half", "mac-as-one", "forgot-layers"),
)
def prefill_attention_flops(
    n_layers: int, n_heads: int, d_head: int, seq_len: int, causal: bool = True, *, worked: bool = True
) -> Derivation:
    """The part of prefill that grows as T^2: two T x T x d_head products per head per layer."""
    calc = "prefill_attention_flops"
    require_positive_numbers(calc, n_layers=n_layers, n_heads=n_heads, d_head=d_head, seq_len=seq_len)
    full = 4 * n_layers * n_heads * d_head * seq_len * seq_len
    value = full // 2 if causal else full
    wrong = [
        ("mac-as-one", "You counted a multiply-add as one FLOP", "Each multiply-add is 2 FLOPs.", value // 2),
        ("forgot-layers", "You counted one layer", "Every layer attends over the prompt.", value // n_layers),
    ]
    if causal:
        wrong.insert(
            0,
            (
                "no-causal-half",
                "You counted the masked half",
                "A causal kernel skips the blocks above the diagonal: about half of T^2.",
                full,
            ),
        )
    return formula_result(
        calc,
        value,
        "FLOPs",
        "Attention FLOPs over the prompt",
        "4 x L x h x d_head x T^2" + (" / 2" if causal else ""),
        f"4 x {n_layers} x {n_heads} x {d_head} x {seq_len}^2" + (" / 2" if causal else ""),
        wrong,
        worked=worked,
    )


@register(
    "decode_attention_intensity",
    summary="FLOPs per byte of KV cache read by one decode token: GQA 2h / (g b); absorbed MLA "
    "h (4r + 2 rho) / ((r + rho) b).",
    unit="",
    args=(
        Arg(
            "kind",
            "str",
            "gqa (MHA when n_kv_heads = n_heads) or mla (absorbed)",
            "gqa",
            False,
            ("gqa", "mla"),
        ),
        _H,
        Arg("n_kv_heads", "int", "key/value heads (gqa)", 1, False),
        Arg("d_head", "int", "width of one head (gqa)", 1, False),
        Arg("kv_lora_rank", "int", "latent width r (mla)", 1, False),
        Arg("rope_dim", "int", "decoupled RoPE key width rho (mla)", 0, False),
        Arg("bytes_per_element", "int", "bytes per cached number"),
    ),
    misconceptions=("mac-as-one", "forgot-bytes", "used-query-heads", "forgot-rope", "one-head"),
)
def decode_attention_intensity(
    kind: str = "gqa",
    n_heads: int = 1,
    n_kv_heads: int = 1,
    d_head: int = 1,
    kv_lora_rank: int = 1,
    rope_dim: int = 0,
    bytes_per_element: int = 2,
    *,
    worked: bool = True,
) -> Derivation:
    """Every query head reads the same cached bytes, so sharing the cache across heads raises intensity."""
    calc = "decode_attention_intensity"
    require_positive_numbers(calc, n_heads=n_heads, bytes_per_element=bytes_per_element)
    b = bytes_per_element
    if kind == "gqa":
        require_positive_numbers(calc, n_kv_heads=n_kv_heads, d_head=d_head)
        if n_heads % n_kv_heads:
            raise ValueError(f"{calc}: n_heads={n_heads} is not divisible by n_kv_heads={n_kv_heads}")
        flops = 4 * n_heads * d_head
        read = 2 * n_kv_heads * d_head * b
        value = flops / read
        wrong = [
            (
                "mac-as-one",
                "You counted a multiply-add as one FLOP",
                "q.k and p.v are 2 FLOPs per multiply-add.",
                value / 2,
            ),
            ("forgot-bytes", "You divided by numbers, not bytes", "Intensity is per byte read.", value * b),
        ]
        if n_kv_heads != n_heads:
            wrong.append(
                (
                    "used-query-heads",
                    "You read one cached head per query head",
                    "Under GQA a group of query heads shares one cached K/V head.",
                    2 / b,
                )
            )
        formula, numbers = (
            "4 h d_head / (2 g d_head b)",
            f"4 x {n_heads} x {d_head} / (2 x {n_kv_heads} x {d_head} x {b})",
        )
    else:
        r, rho = kv_lora_rank, rope_dim
        require_positive_numbers(calc, kv_lora_rank=r)
        if rho < 0:
            raise ValueError(f"{calc}: rope_dim must be 0 or more, got {rho}")
        flops = n_heads * (2 * (r + rho) + 2 * r)
        read = (r + rho) * b
        value = flops / read
        wrong = [
            (
                "mac-as-one",
                "You counted a multiply-add as one FLOP",
                "Scores and outputs are 2 FLOPs per multiply-add.",
                value / 2,
            ),
            ("forgot-bytes", "You divided by numbers, not bytes", "Intensity is per byte read.", value * b),
            (
                "forgot-rope",
                "You left out the RoPE key",
                "The cache holds r + rho numbers per token and the scores run over both.",
                4 * n_heads / b,
            ),
            (
                "one-head",
                "You counted one query head",
                "Absorbed MLA runs every query head over the one "
                "cached latent: h times the FLOPs for the same bytes.",
                value / n_heads,
            ),
        ]
        formula = "h (2 (r + rho) + 2 r) / ((r + rho) b)"
        numbers = f"{n_heads} x (2 x {r + rho} + 2 x {r}) / ({r + rho} x {b})"
    return formula_result(calc, value, "", "FLOPs per cached byte", formula, numbers, wrong, worked=worked)


@register(
    "quantized_kv_bytes_per_token",
    summary="KV bytes per token with b-bit groups (KIVI): 2 L g d_head (bits/8 + 2 x scale bytes / G).",
    unit="B",
    args=(
        _L,
        _G,
        _DH,
        Arg("bits", "int", "bits per quantised number"),
        Arg("group_size", "int", "numbers sharing one scale and zero point"),
        Arg("scale_bytes", "int", "bytes of one scale (and of one zero point)", 2, False),
    ),
    misconceptions=("forgot-scales", "bits-as-bytes", "no-zero-point", "no-x2-kv"),
)
def quantized_kv_bytes_per_token(
    n_layers: int,
    n_kv_heads: int,
    d_head: int,
    bits: int,
    group_size: int,
    scale_bytes: int = 2,
    *,
    worked: bool = True,
) -> Derivation:
    """The payload is bits/8 bytes a number; each group of G also stores a scale and a zero point."""
    calc = "quantized_kv_bytes_per_token"
    require_positive_numbers(
        calc,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        bits=bits,
        group_size=group_size,
        scale_bytes=scale_bytes,
    )
    numbers = 2 * n_layers * n_kv_heads * d_head
    per = bits / 8 + 2 * scale_bytes / group_size
    value = numbers * per
    return formula_result(
        calc,
        value,
        "B",
        "Quantised KV bytes per token",
        "2 x L x g x d_head x (bits / 8 + 2 x scale bytes / G)",
        f"2 x {n_layers} x {n_kv_heads} x {d_head} x ({bits} / 8 + 2 x {scale_bytes} / {group_size})",
        [
            (
                "forgot-scales",
                "You left out the scales and zero points",
                "Each group of G numbers stores a scale and a zero point beside the payload.",
                numbers * bits / 8,
            ),
            (
                "bits-as-bytes",
                "You counted bits as bytes",
                "4 bits is half a byte.",
                numbers * (bits + 2 * scale_bytes / group_size),
            ),
            (
                "no-zero-point",
                "You stored a scale but no zero point",
                "KIVI's asymmetric quantisation keeps both per group.",
                numbers * (bits / 8 + scale_bytes / group_size),
            ),
            ("no-x2-kv", "You counted K or V, not both", "Both keys and values are cached.", value / 2),
        ],
        worked=worked,
    )


@register(
    "ring_step_flops",
    summary="FLOPs of one ring-attention step on one device and layer: a Q block against a KV block, "
    "4 x block^2 x h x d_head.",
    unit="FLOPs",
    args=(Arg("block_len", "int", "tokens per device block"), _H, _DH),
    misconceptions=("mac-as-one", "linear-in-block", "forgot-heads"),
)
def ring_step_flops(block_len: int, n_heads: int, d_head: int, *, worked: bool = True) -> Derivation:
    """Each step pairs this device's query block with the key/value block passing through."""
    calc = "ring_step_flops"
    require_positive_numbers(calc, block_len=block_len, n_heads=n_heads, d_head=d_head)
    value = 4 * block_len * block_len * n_heads * d_head
    return formula_result(
        calc,
        value,
        "FLOPs",
        "FLOPs per ring step (one layer)",
        "4 x block^2 x h x d_head",
        f"4 x {block_len}^2 x {n_heads} x {d_head}",
        [
            (
                "mac-as-one",
                "You counted a multiply-add as one FLOP",
                "Each multiply-add is 2 FLOPs.",
                value // 2,
            ),
            (
                "linear-in-block",
                "You counted one query against the block",
                "The whole query block meets the whole key block: block^2 pairs.",
                4 * block_len * n_heads * d_head,
            ),
            (
                "forgot-heads",
                "You counted one head",
                "Every query head does the same work.",
                4 * block_len * block_len * d_head,
            ),
        ],
        worked=worked,
    )


@register(
    "kv_block_bytes",
    summary="Bytes of one K/V block passed to the next device: 2 x block x g x d_head x bytes.",
    unit="B",
    args=(
        Arg("block_len", "int", "tokens per device block"),
        _G,
        _DH,
        Arg("bytes_per_element", "int", "bytes per number"),
        Arg("n_heads", "int", "query heads", 0, False),
    ),
    misconceptions=("no-x2-kv", "used-query-heads", "forgot-bytes"),
)
def kv_block_bytes(
    block_len: int,
    n_kv_heads: int,
    d_head: int,
    bytes_per_element: int,
    n_heads: int = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """A ring passes keys and values, one block per step, for the KV heads the model has."""
    calc = "kv_block_bytes"
    require_positive_numbers(
        calc, block_len=block_len, n_kv_heads=n_kv_heads, d_head=d_head, bytes_per_element=bytes_per_element
    )
    value = 2 * block_len * n_kv_heads * d_head * bytes_per_element
    wrong = [
        ("no-x2-kv", "You sent K or V, not both", "Both keys and values travel round the ring.", value // 2),
        (
            "forgot-bytes",
            "You counted numbers, not bytes",
            "Multiply by the bytes per number.",
            value // bytes_per_element,
        ),
    ]
    if n_heads > n_kv_heads:
        wrong.insert(
            1,
            (
                "used-query-heads",
                "You sent a K/V head per query head",
                "Under GQA only the KV heads exist.",
                2 * block_len * n_heads * d_head * bytes_per_element,
            ),
        )
    return formula_result(
        calc,
        value,
        "B",
        "Bytes per ring step (one layer)",
        "2 x block x g x d_head x bytes",
        f"2 x {block_len} x {n_kv_heads} x {d_head} x {bytes_per_element}",
        wrong,
        worked=worked,
    )


@register(
    "min_overlap_block",
    summary="Smallest block whose compute hides its transfer: compute grows as block^2, transfer as block.",
    unit="",
    args=(
        Arg("block_len", "int", "the block length measured"),
        Arg("compute_ms", "float", "compute time per step at that block"),
        Arg("comm_ms", "float", "transfer time per step at that block"),
    ),
    misconceptions=("square-root-scaling", "no-scaling"),
)
def min_overlap_block(
    block_len: int, compute_ms: float, comm_ms: float, *, worked: bool = True
) -> Derivation:
    """compute/comm scales linearly with the block, so the break-even block is block x comm / compute."""
    calc = "min_overlap_block"
    require_positive_numbers(calc, block_len=block_len, compute_ms=compute_ms, comm_ms=comm_ms)
    exact = block_len * comm_ms / compute_ms
    value = math.ceil(exact)
    return formula_result(
        calc,
        value,
        "",
        "Smallest block that hides the transfer",
        "ceil(block x comm / compute)",
        f"ceil({block_len} x {num(comm_ms)} / {num(compute_ms)})",
        [
            (
                "square-root-scaling",
                "You scaled by the square root",
                "Compute per step is block^2 but transfer is block, so their ratio is linear in the block.",
                math.ceil(block_len * math.sqrt(comm_ms / compute_ms)),
            ),
            (
                "no-scaling",
                "You kept the block you had",
                "The block can shrink until compute just covers the transfer.",
                block_len,
            ),
        ],
        worked=worked,
    )
