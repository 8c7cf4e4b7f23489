"""Provides multi-head latent attention (MLA, DeepSeek-V2/V3) cache sizes, ratios and shapes.

MLA caches, per token per layer, one compressed latent c_KV of width kv_lora_rank shared by every head and
by both keys and values, plus one decoupled RoPE key of width qk_rope_head_dim shared by every head:
(kv_lora_rank + rope_dim) numbers, against 2 x n_kv_heads x d_head for MHA/GQA/MQA.
Checked against DeepSeek-V2 (kv_lora_rank 512, qk_rope_head_dim 64, 128 heads of 128): the paper's
"equal to GQA with only 2.25 groups" is (512 + 64) / (2 x 128).
"""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import BYTES_PER_ELEMENT, N_LAYERS, distinct, ratio, require_positive
from engine.derivation import Derivation, Misconception, Step

_L = N_LAYERS
_R = Arg("kv_lora_rank", "int", "width of the compressed KV latent c_KV (DeepSeek-V2/V3: 512)")
_ROPE = Arg("rope_dim", "int", "width of the decoupled RoPE key shared by all heads (qk_rope_head_dim: 64)")
_BYTES = BYTES_PER_ELEMENT
_H = Arg(
    "n_heads",
    "int",
    "query heads (optional: lets 'cached n_heads x d_head' be recognised)",
    required=False,
)
_DH = Arg(
    "d_head",
    "int",
    "per-head key width without RoPE (optional, with n_heads: qk_nope_head_dim, 128)",
    required=False,
)
_PER_LAYER = "Latent + RoPE key per token per layer"
_PER_LAYER_BYTES = "Bytes per token per layer"
_PER_TOKEN = "Per token, all layers"
_CACHE_WRONG = (
    "kv-x2-on-mla",
    "x2-on-latent",
    "forgot-rope",
    "rope-key-per-head",
    "used-n-heads",
    "forgot-layers",
    "forgot-bytes",
)


def _per_token(
    n_layers: int, r: int, rope: int, nbytes: int, n_heads: int | None, d_head: int | None
) -> tuple[int, list[Step], list[Misconception]]:
    """The per-token steps and the wrong turns of the per-token part, each scaled to bytes per token."""
    per_layer = r + rope
    per_layer_bytes = per_layer * nbytes
    value = per_layer_bytes * n_layers
    steps = [
        Step(_PER_LAYER, "kv_lora_rank + rope_dim", f"{r} + {rope}", per_layer, "numbers"),
        Step(_PER_LAYER_BYTES, "x bytes_per_element", f"{per_layer} x {nbytes}", per_layer_bytes, "B"),
        Step(_PER_TOKEN, "x n_layers", f"{per_layer_bytes:,} x {n_layers}", value, "B"),
    ]
    wrong = [
        Misconception(
            "kv-x2-on-mla",
            "You applied the KV cache's x2 for K and V to MLA",
            "MLA caches one latent c_KV (plus the shared RoPE key) per token, not a separate K and V: "
            "both are rebuilt from the same vector, so the per-token width has no x2.",
            2 * (r + rope) * nbytes * n_layers,
            _PER_LAYER,
        ),
        Misconception(
            "x2-on-latent",
            "You cached the latent twice, once for K and once for V",
            "Keys and values are both rebuilt from the same c_KV, so it is stored once: no x2.",
            (2 * r + rope) * nbytes * n_layers,
            _PER_LAYER,
        ),
        Misconception(
            "forgot-rope",
            "You left out the decoupled RoPE key",
            "RoPE cannot pass through the absorbed up-projection, so each token also caches a shared "
            "rotary key of width rope_dim beside the latent.",
            r * nbytes * n_layers,
            _PER_LAYER,
        ),
    ]
    if n_heads is not None and n_heads > 1:
        wrong.append(
            Misconception(
                "rope-key-per-head",
                "You cached one RoPE key per head",
                "The decoupled RoPE key k^R is shared by all heads, one rope_dim vector per token and layer; "
                "only the queries carry a RoPE part per head.",
                (r + n_heads * rope) * nbytes * n_layers,
                _PER_LAYER,
            )
        )
    if n_heads is not None and d_head is not None:
        wrong.append(
            Misconception(
                "used-n-heads",
                "You cached n_heads x d_head instead of the latent",
                "That is the width of the decompressed keys; MLA never stores them, only c_KV and the "
                "RoPE key.",
                n_heads * d_head * nbytes * n_layers,
                _PER_LAYER,
            )
        )
    wrong += [
        Misconception(
            "forgot-layers",
            "You left out the layers",
            "Every layer has its own latent projection and keeps its own c_KV and RoPE key.",
            per_layer_bytes,
            _PER_TOKEN,
        ),
        Misconception(
            "forgot-bytes",
            "You counted numbers, not bytes",
            "Multiply the cached numbers by the bytes per element.",
            per_layer * n_layers,
            _PER_LAYER_BYTES,
        ),
    ]
    return value, steps, wrong


def _check(calc: str, n_heads: int | None, d_head: int | None, **sizes: int) -> None:
    require_positive(calc, n_heads=n_heads, d_head=d_head, **sizes)


@register(
    "mla_cache_bytes_per_token",
    summary="Bytes MLA caches per token over all layers: (kv_lora_rank + rope_dim) x bytes x layers.",
    unit="B",
    args=(_L, _R, _ROPE, _BYTES, _H, _DH),
    misconceptions=_CACHE_WRONG,
)
def mla_cache_bytes_per_token(
    n_layers: int,
    kv_lora_rank: int,
    rope_dim: int,
    bytes_per_element: int,
    n_heads: int | None = None,
    d_head: int | None = None,
    *,
    worked: bool = True,
) -> Derivation:
    """What one more token of context costs with a latent cache, whatever the batch."""
    calc = "mla_cache_bytes_per_token"
    _check(
        calc,
        n_heads,
        d_head,
        n_layers=n_layers,
        kv_lora_rank=kv_lora_rank,
        rope_dim=rope_dim,
        bytes_per_element=bytes_per_element,
    )
    value, steps, wrong = _per_token(n_layers, kv_lora_rank, rope_dim, bytes_per_element, n_heads, d_head)
    if not worked:
        return Derivation(calc, value, "B", ())
    return Derivation(calc, value, "B", tuple(steps), distinct(value, wrong))


@register(
    "mla_cache_bytes",
    summary="Bytes of MLA cache for a batch: (kv_lora_rank + rope_dim) x bytes x layers x seq_len x batch.",
    unit="B",
    args=(
        _L,
        _R,
        _ROPE,
        Arg("seq_len", "int", "tokens cached per sequence"),
        Arg("batch", "int", "sequences in the batch"),
        _BYTES,
        _H,
        _DH,
    ),
    misconceptions=(*_CACHE_WRONG, "forgot-seq-len", "forgot-batch"),
)
def mla_cache_bytes(
    n_layers: int,
    kv_lora_rank: int,
    rope_dim: int,
    seq_len: int,
    batch: int,
    bytes_per_element: int,
    n_heads: int | None = None,
    d_head: int | None = None,
    *,
    worked: bool = True,
) -> Derivation:
    """Per token, then every cached token, then every sequence: the whole latent cache of a batch."""
    calc = "mla_cache_bytes"
    _check(
        calc,
        n_heads,
        d_head,
        n_layers=n_layers,
        kv_lora_rank=kv_lora_rank,
        rope_dim=rope_dim,
        seq_len=seq_len,
        batch=batch,
        bytes_per_element=bytes_per_element,
    )
    per_token, steps, per_token_wrong = _per_token(
        n_layers, kv_lora_rank, rope_dim, bytes_per_element, n_heads, d_head
    )
    per_seq = per_token * seq_len
    value = per_seq * batch
    if not worked:
        return Derivation(calc, value, "B", ())
    seq_label, total_label = "One sequence", "Whole batch"
    steps += [
        Step(seq_label, "x seq_len", f"{per_token:,} x {seq_len:,}", per_seq, "B"),
        Step(total_label, "x batch", f"{per_seq:,} x {batch}", value, "B"),
    ]
    scale = seq_len * batch
    wrong = [
        Misconception(m.id, m.label, m.explanation, int(m.value) * scale, m.step)  # type: ignore[arg-type]
        for m in per_token_wrong
    ]
    wrong.append(
        Misconception(
            "forgot-seq-len",
            "You left out the sequence length",
            "Every cached token stores its own latent and RoPE key.",
            per_token * batch,
            seq_label,
        )
    )
    if batch > 1:
        wrong.append(
            Misconception(
                "forgot-batch",
                "You left out the batch",
                "Each sequence in the batch has its own cache.",
                per_seq,
                total_label,
            )
        )
    return Derivation(calc, value, "B", tuple(steps), distinct(value, wrong))


@register(
    "mla_cache_ratio",
    summary="How many times smaller MLA's cache is than a KV cache: 2 x n_kv x d_head / (rank + rope_dim).",
    unit="x",
    args=(
        Arg("n_kv_heads", "int", "KV heads of the cache compared against (MHA: n_heads, MQA: 1)"),
        Arg("d_head", "int", "head width of the cache compared against"),
        _R,
        _ROPE,
    ),
    misconceptions=("x2-on-latent", "forgot-rope", "no-x2-kv", "inverted"),
)
def mla_cache_ratio(
    n_kv_heads: int, d_head: int, kv_lora_rank: int, rope_dim: int, *, worked: bool = True
) -> Derivation:
    """Layers, tokens, batch and bytes cancel: only the numbers cached per token per layer remain."""
    calc = "mla_cache_ratio"
    require_positive(calc, n_kv_heads=n_kv_heads, d_head=d_head, kv_lora_rank=kv_lora_rank, rope_dim=rope_dim)
    kv = 2 * n_kv_heads * d_head
    mla = kv_lora_rank + rope_dim
    value = ratio(kv, mla)
    if not worked:
        return Derivation(calc, value, "x", ())
    label = "Ratio"
    steps = (
        Step("KV cache per token per layer", "2 x n_kv_heads x d_head", f"2 x {n_kv_heads} x {d_head}", kv),
        Step("MLA cache per token per layer", "kv_lora_rank + rope_dim", f"{kv_lora_rank} + {rope_dim}", mla),
        Step(label, "KV / MLA (layers, tokens, batch, bytes cancel)", f"{kv:,} / {mla:,}", value, "x"),
    )
    wrong = [
        Misconception(
            "x2-on-latent",
            "You counted the latent twice",
            "c_KV serves keys and values at once; it is cached once.",
            ratio(kv, 2 * kv_lora_rank + rope_dim),
            "MLA cache per token per layer",
        ),
        Misconception(
            "forgot-rope",
            "You left out the decoupled RoPE key",
            "Each token also caches a rope_dim-wide rotary key shared by all heads.",
            ratio(kv, kv_lora_rank),
            "MLA cache per token per layer",
        ),
        Misconception(
            "no-x2-kv",
            "You put the x2 for K and V on the wrong side",
            "A KV cache stores a key and a value per KV head, 2 x n_kv_heads x d_head; MLA caches one "
            "latent per token, not a separate K and V. Dropping the first x2 or adding one to MLA both "
            "halve the ratio.",
            ratio(kv // 2, mla),
            "KV cache per token per layer",
        ),
        Misconception(
            "inverted",
            "You inverted the ratio",
            "The saving is the KV-cache size over the MLA size.",
            ratio(mla, kv),
            label,
        ),
    ]
    return Derivation(calc, value, "x", steps, distinct(value, wrong))


@register(
    "mla_equivalent_gqa_groups",
    summary="The number of GQA KV heads whose cache equals MLA's: (kv_lora_rank + rope_dim) / (2 x d_head).",
    unit="",
    args=(Arg("d_head", "int", "head width of the GQA model compared against"), _R, _ROPE),
    misconceptions=("x2-on-latent", "forgot-rope", "no-x2-kv"),
)
def mla_equivalent_gqa_groups(
    d_head: int, kv_lora_rank: int, rope_dim: int, *, worked: bool = True
) -> Derivation:
    """A GQA cache holds 2 x d_head numbers per KV head; divide MLA's per-token numbers by that."""
    calc = "mla_equivalent_gqa_groups"
    require_positive(calc, d_head=d_head, kv_lora_rank=kv_lora_rank, rope_dim=rope_dim)
    mla = kv_lora_rank + rope_dim
    value = ratio(mla, 2 * d_head)
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Equivalent KV heads"
    steps = (
        Step(
            "MLA numbers per token per layer", "kv_lora_rank + rope_dim", f"{kv_lora_rank} + {rope_dim}", mla
        ),
        Step("Numbers per GQA KV head", "2 (K and V) x d_head", f"2 x {d_head}", 2 * d_head),
        Step(label, "MLA / (2 x d_head)", f"{mla} / {2 * d_head}", value),
    )
    wrong = [
        Misconception(
            "x2-on-latent",
            "You counted the latent twice",
            "c_KV is one vector serving both keys and values.",
            ratio(2 * kv_lora_rank + rope_dim, 2 * d_head),
            "MLA numbers per token per layer",
        ),
        Misconception(
            "forgot-rope",
            "You left out the decoupled RoPE key",
            "The rope_dim-wide rotary key is cached beside the latent.",
            ratio(kv_lora_rank, 2 * d_head),
            "MLA numbers per token per layer",
        ),
        Misconception(
            "no-x2-kv",
            "You put the x2 for K and V on the wrong side",
            "Each GQA KV head caches a key and a value, 2 x d_head numbers; MLA caches one latent per "
            "token, not a separate K and V. Dropping the first x2 or adding one to MLA both double the "
            "count.",
            ratio(mla, d_head),
            "Numbers per GQA KV head",
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


_STAGES = ("latent_cache", "rope_key_cache", "absorbed_query", "w_uk", "absorbed_context")


@register(
    "mla_shape",
    summary="Shapes in MLA inference with absorbed projections: caches, absorbed query and context, W_UK.",
    unit="shape",
    args=(
        Arg("batch", "int", "sequences in the batch"),
        Arg("seq_len", "int", "new tokens (queries) this step"),
        Arg("kv_len", "int", "cached tokens (keys)"),
        Arg("n_heads", "int", "query heads"),
        _R,
        _ROPE,
        Arg("d_nope", "int", "per-head key width without RoPE (qk_nope_head_dim)"),
        Arg("stage", "str", "which tensor", choices=_STAGES),
    ),
    misconceptions=("cached-per-head", "x2-on-latent", "not-absorbed", "forgot-heads", "transposed"),
)
def mla_shape(
    batch: int,
    seq_len: int,
    kv_len: int,
    n_heads: int,
    kv_lora_rank: int,
    rope_dim: int,
    d_nope: int,
    stage: str,
    *,
    worked: bool = True,
) -> Derivation:
    """With W_UK folded into the query and W_UV into W_O, attention runs directly on the cached latent."""
    calc = "mla_shape"
    require_positive(
        calc,
        batch=batch,
        seq_len=seq_len,
        kv_len=kv_len,
        n_heads=n_heads,
        kv_lora_rank=kv_lora_rank,
        rope_dim=rope_dim,
        d_nope=d_nope,
    )
    b, t, s, h, r = batch, seq_len, kv_len, n_heads, kv_lora_rank
    shapes: dict[str, tuple[int, ...]] = {
        "latent_cache": (b, s, r),
        "rope_key_cache": (b, s, rope_dim),
        "absorbed_query": (b, h, t, r),
        "w_uk": (r, h * d_nope),
        "absorbed_context": (b, h, t, r),
    }
    value = shapes[stage]
    if not worked:
        return Derivation(calc, value, "shape", ())
    explain = {
        "latent_cache": (
            "c_KV cache (batch, kv_len, kv_lora_rank)",
            "one latent per token, shared by every head and by K and V",
        ),
        "rope_key_cache": (
            "RoPE key cache (batch, kv_len, rope_dim)",
            "one rotary key per token, broadcast to every head",
        ),
        "absorbed_query": (
            "Absorbed query (batch, heads, seq_len, kv_lora_rank)",
            "q_nope of each head times that head's W_UK slice: it now lives in latent space",
        ),
        "w_uk": (
            "W_UK (kv_lora_rank, n_heads x d_nope)",
            "maps the latent up to every head's non-RoPE key",
        ),
        "absorbed_context": (
            "Context before W_UV (batch, heads, seq_len, kv_lora_rank)",
            "the weights average cached latents; W_UV (folded into W_O) maps them out afterwards",
        ),
    }
    label, why = explain[stage]
    steps = (Step(label, why, ", ".join(str(v) for v in value), value, "shape"),)
    wrong: list[Misconception] = []
    if stage in ("latent_cache", "rope_key_cache"):
        width = value[-1]
        wrong.append(
            Misconception(
                "cached-per-head",
                "You gave the cache a head axis",
                "MLA caches one latent and one RoPE key per token for all heads together; the head "
                "split happens only in the (absorbed) up-projections.",
                (b, h, s, width),
                label,
            )
        )
        if stage == "latent_cache":
            wrong.append(
                Misconception(
                    "x2-on-latent",
                    "You doubled the latent for K and V",
                    "Keys and values come from the same c_KV, stored once.",
                    (b, s, 2 * r),
                    label,
                )
            )
    elif stage in ("absorbed_query", "absorbed_context"):
        wrong.append(
            Misconception(
                "not-absorbed",
                "That is the un-absorbed per-head width",
                "With W_UK folded into the query (and W_UV into W_O) the per-head vectors live in the "
                "kv_lora_rank-wide latent space, not in d_nope.",
                (b, h, t, d_nope),
                label,
            )
        )
        wrong.append(
            Misconception(
                "forgot-heads",
                "You dropped the head axis",
                "The latent cache is shared, but each head still has its own absorbed query and its "
                "own attention weights.",
                (b, t, r),
                label,
            )
        )
    else:
        wrong += [
            Misconception(
                "transposed",
                "You transposed W_UK",
                "It maps from the latent (kv_lora_rank) up to all heads' keys (n_heads x d_nope).",
                (h * d_nope, r),
                label,
            ),
            Misconception(
                "forgot-heads",
                "You gave only one head's slice",
                "One W_UK serves all heads: n_heads x d_nope output columns.",
                (r, d_nope),
                label,
            ),
        ]
    return Derivation(calc, value, "shape", steps, distinct(value, wrong))
