"""Provides the Explore sandbox model: a sentence, an attention layer built from a seed, and what it does.

```python
result = explore(ExploreInputs(sentence="the cat sat on the mat", d_model=16, n_heads=4, causal=True))
result.heatmap            # engine.Heatmap (heads, T, T) labelled with the tokens
result.wo.text            # what removing W_O changes in the output (the weights never change)
result.cost.parameters    # engine Derivation of the parameter count; result.cost.kv_cache likewise
```
Everything numeric comes from the engine: the forward pass is engine.multi_head_attention on token
embeddings drawn from the seed (the same word always gets the same vector, plus a sinusoidal position
code so repeated words can still be told apart), and the cost panel is engine.calculate. Model presets
drive the cost panel with the real sizes and give the heatmaps a scaled-down copy with the same
query/key-value grouping, because 64 heads of width 128 cannot be drawn on a terminal.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

import engine
from engine import MODELS, Derivation, Heatmap, ModelConfig, format_quantity
from quizapp.errors import QuizappError
from quizapp.explore import transforms

DTYPES: dict[str, int] = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}
"""Bytes per cached number for the cost panel."""
MAX_TOKENS = 12
MAX_HEADS = 16
MAX_D_MODEL = 1024
SANDBOX_HEADS = 8
"""At most this many heads are drawn for a preset; more would not fit side by side at 80 columns."""
SANDBOX_D_HEAD = 8
EMBEDDING_SCALE = 1.5
"""Token vectors are drawn N(0, 1.5^2): with init_attention's 1/sqrt(d) weights the rows are neither
near-uniform (scale 1: mean max weight 0.42) nor one-hot (scale 2: 0.74), so the heads differ visibly."""
LIMITS: dict[str, tuple[int, int]] = {
    "d_model": (1, MAX_D_MODEL),
    "n_heads": (1, MAX_HEADS),
    "n_kv_heads": (1, MAX_HEADS),
    "seed": (0, 2**31 - 1),
    "context": (1, 10_000_000),
    "batch": (1, 4096),
    "n_layers": (1, 1000),
}
LABELS: dict[str, str] = {
    "sentence": "sentence",
    "d_model": "d_model",
    "n_heads": "number of heads",
    "n_kv_heads": "number of KV heads",
    "seed": "seed",
    "context": "context length",
    "batch": "batch size",
    "n_layers": "number of layers",
}
SANDBOX_FIELDS = frozenset({"d_model", "n_heads", "n_kv_heads"})
"""Editing one of these leaves a preset: the sandbox then describes itself, not the model."""


@dataclass(frozen=True)
class ExploreInputs:
    """Everything the Explore screen lets the user set; defaults draw four heads over six tokens."""

    sentence: str = "the cat sat on the mat"
    d_model: int = 16
    n_heads: int = 4
    n_kv_heads: int = 4
    seed: int = 0
    causal: bool = False
    tie_heads: bool = False
    """Every head gets head 0's projections: "same weights for all heads"."""
    drop_output_projection: bool = False
    """Remove W_O: the output is the heads' results side by side."""
    context: int = 4096
    batch: int = 1
    dtype: str = "fp16"
    n_layers: int = 1
    preset: str | None = None
    """An engine.MODELS key: the cost panel then uses that model's real sizes."""


@dataclass(frozen=True)
class WoEffect:
    """What W_O does to this sentence: the output with and without it, and how far apart they are."""

    removed: bool
    shape_with: tuple[int, ...]
    shape_without: tuple[int, ...]
    difference_norm: float
    """Frobenius norm of (output with W_O) - (output without W_O)."""
    relative: float
    """difference_norm / norm of the output without W_O."""
    text: str


@dataclass(frozen=True)
class CostPanel:
    """Parameter count and KV cache of the model the panel describes, each with its derivation."""

    title: str
    parameters: Derivation
    kv_cache: Derivation

    @property
    def summary(self) -> str:
        """Both results, one per line, before the derivations that explain them. The count is of the
        attention weights alone, and says so: a preset's total (Llama-2 70B's 70 billion) is far larger."""
        params = format_quantity(self.parameters.value, self.parameters.unit)
        kv = format_quantity(self.kv_cache.value, self.kv_cache.unit)
        return f"Attention weights (W_Q, W_K, W_V, W_O only): {params}\nKV cache: {kv}"


@dataclass(frozen=True, eq=False)
class ExploreResult:
    """One forward pass of the sandbox, ready to draw."""

    inputs: ExploreInputs
    tokens: tuple[str, ...]
    heatmap: Heatmap
    output: npt.NDArray[np.floating[Any]]  # (T, d) with W_O, (T, h*d_head) without
    wo: WoEffect
    cost: CostPanel
    note: str
    """One or two sentences on what is drawn (and how a preset was scaled down)."""


def tokenize(sentence: str) -> tuple[str, ...]:
    """Words and punctuation marks: "The cat, sat." -> ("The", "cat", ",", "sat", ".")."""
    return tuple(re.findall(r"\w+|[^\w\s]", sentence))


def presets() -> tuple[tuple[str, str], ...]:
    """(key, display name) of every engine.MODELS preset, in the engine's order."""
    return tuple((key, model.name) for key, model in MODELS.items())


def sandbox_sizes(model: ModelConfig) -> tuple[int, int, int]:
    """(d_model, heads, KV heads) of a drawable copy of `model` with the same query/KV grouping.

    g = heads per KV head. With g <= SANDBOX_HEADS, keep g and as many groups as fit (Llama-2 70B's 64/8
    becomes 8/1, Llama-3 8B's 32/8 becomes 8/2); a larger g keeps one KV head (MQA stays MQA). Every head
    is SANDBOX_D_HEAD wide.
    """
    group = model.n_heads // model.n_kv_heads
    if model.n_heads <= SANDBOX_HEADS:
        heads, kv = model.n_heads, model.n_kv_heads
    elif group <= SANDBOX_HEADS:
        heads, kv = group * (SANDBOX_HEADS // group), SANDBOX_HEADS // group
    else:
        heads, kv = SANDBOX_HEADS, 1
    return heads * SANDBOX_D_HEAD, heads, kv


def apply_preset(inputs: ExploreInputs, key: str | None) -> ExploreInputs:
    """The inputs with a model preset chosen (None: back to a plain sandbox of the same sizes)."""
    if key is None or key == "":
        return replace(inputs, preset=None)
    if key not in MODELS:
        raise QuizappError(f"Unknown model preset {key!r}; known: {', '.join(MODELS)}.")
    model = MODELS[key]
    d_model, heads, kv = sandbox_sizes(model)
    return replace(
        inputs,
        preset=key,
        d_model=d_model,
        n_heads=heads,
        n_kv_heads=kv,
        n_layers=model.n_layers,
        context=model.context_length,
    )


def with_text(inputs: ExploreInputs, name: str, text: str) -> ExploreInputs:
    """The inputs with one field set from what the user typed; QuizappError says what is allowed."""
    if name == "sentence":
        return replace(inputs, sentence=text)
    if name == "dtype":
        if text not in DTYPES:
            raise QuizappError(f"Unknown dtype {text!r}; choose one of {', '.join(DTYPES)}.")
        return replace(inputs, dtype=text)
    if name not in LIMITS:
        known = ", ".join(f.name for f in fields(ExploreInputs))
        raise QuizappError(f"Unknown explore field {name!r}; known: {known}.")
    low, high = LIMITS[name]
    try:
        value = int(text.strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise QuizappError(f"The {LABELS[name]} must be a whole number, got {text.strip()!r}.") from None
    if not low <= value <= high:
        raise QuizappError(f"The {LABELS[name]} must be between {low:,} and {high:,}, got {value:,}.")
    if getattr(inputs, name) == value:
        return inputs  # unchanged (a field redrawn after a preset): the preset stays
    changed: ExploreInputs = replace(inputs, **{name: value})  # type: ignore[arg-type]
    return replace(changed, preset=None) if name in SANDBOX_FIELDS else changed


def toggled(inputs: ExploreInputs, name: str, value: bool | None = None) -> ExploreInputs:
    """The inputs with one switch (causal, tie_heads, drop_output_projection) flipped or set."""
    if name == "causal":
        return replace(inputs, causal=not inputs.causal if value is None else value)
    if name == "tie_heads":
        return replace(inputs, tie_heads=not inputs.tie_heads if value is None else value)
    if name == "drop_output_projection":
        new = not inputs.drop_output_projection if value is None else value
        return replace(inputs, drop_output_projection=new)
    raise QuizappError(f"Unknown switch {name!r}; known: causal, tie_heads, drop_output_projection.")


def check(inputs: ExploreInputs) -> tuple[str, ...]:
    """The tokens, once the inputs are known to make a valid layer; else QuizappError saying why."""
    tokens = tokenize(inputs.sentence)
    if not tokens:
        raise QuizappError("Type a sentence: the heatmaps show how its tokens attend to each other.")
    if len(tokens) > MAX_TOKENS:
        raise QuizappError(
            f"Use at most {MAX_TOKENS} tokens so the heatmaps fit the screen "
            f"(this sentence has {len(tokens)})."
        )
    d, h, kv = inputs.d_model, inputs.n_heads, inputs.n_kv_heads
    for name in ("d_model", "n_heads", "n_kv_heads", "seed", "context", "batch", "n_layers"):
        low, high = LIMITS[name]
        if not low <= getattr(inputs, name) <= high:
            raise QuizappError(f"The {LABELS[name]} must be between {low:,} and {high:,}.")
    if d % h:
        fits = ", ".join(str(n) for n in range(1, min(d, MAX_HEADS) + 1) if d % n == 0)
        raise QuizappError(
            f"d_model {d} does not split into {h} heads: each head gets d_model / heads dimensions. "
            f"Heads that divide {d}: {fits}."
        )
    if h % kv:
        fits = ", ".join(str(n) for n in range(1, h + 1) if h % n == 0)
        raise QuizappError(
            f"{h} heads cannot share {kv} KV heads evenly: each KV head serves heads / KV heads query "
            f"heads. KV heads that divide {h}: {fits}."
        )
    if inputs.dtype not in DTYPES:
        raise QuizappError(f"Unknown dtype {inputs.dtype!r}; choose one of {', '.join(DTYPES)}.")
    return tokens


def embed(tokens: tuple[str, ...], d_model: int, seed: int) -> npt.NDArray[np.float64]:
    """Token vectors: a seeded random vector per distinct word (case-insensitive) plus the Transformer's
    sinusoidal position code, so "the" twice starts from the same vector in different places."""
    rows = []
    for token in tokens:
        word_rng = np.random.default_rng([seed, zlib.crc32(token.lower().encode("utf-8"))])
        rows.append(word_rng.normal(0.0, EMBEDDING_SCALE, size=d_model))  # (d,)
    x = np.stack(rows)  # (T, d)
    pos = np.arange(len(tokens))[:, None]  # (T, 1)
    freq = np.power(10_000.0, -(np.arange(d_model) // 2 * 2) / d_model)  # (d,)
    angle = pos * freq  # (T, d)
    code = np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))  # (T, d)
    return x + code  # (T, d)


@lru_cache(maxsize=32)
def layer(d_model: int, n_heads: int, n_kv_heads: int, seed: int) -> engine.AttentionParams:
    """The random weights of one configuration, drawn once: toggling causal, tied heads or W_O, or
    editing the sentence, keeps the same layer (and skips the draw). AttentionParams is read-only, so
    sharing it is safe; `layer.cache_clear()` forgets them."""
    return engine.init_attention(d_model, n_heads, n_kv_heads, seed=seed)


def explore(inputs: ExploreInputs) -> ExploreResult:
    """Runs the sandbox: weights per head, the effect of W_O, and the cost panel. Bad inputs raise a
    QuizappError with a message for the user, never a traceback."""
    tokens = check(inputs)
    try:
        params = layer(inputs.d_model, inputs.n_heads, inputs.n_kv_heads, inputs.seed)
        x = embed(tokens, inputs.d_model, inputs.seed)  # (T, d)
        mask = "causal" if inputs.causal else None
        params = transforms.tie_heads(params) if inputs.tie_heads else params
        with_wo = engine.multi_head_attention(x, params, mask=mask)
        without = engine.multi_head_attention(x, transforms.drop_output_projection(params), mask=mask)
    except ValueError as exc:  # the engine names the values it refused
        raise QuizappError(f"The engine refused these settings: {exc}") from exc
    shown = without if inputs.drop_output_projection else with_wo
    heatmap = Heatmap(
        weights=shown.weights,  # (h, T, T)
        row_labels=tokens,
        col_labels=tokens,
        head_labels=head_labels(inputs.n_heads, inputs.n_kv_heads),
    )
    return ExploreResult(
        inputs=inputs,
        tokens=tokens,
        heatmap=heatmap,
        output=shown.output,
        wo=wo_effect(inputs, with_wo.output, without.output),
        cost=cost_panel(inputs),
        note=describe(inputs, len(tokens)),
    )


def head_labels(n_heads: int, n_kv_heads: int) -> tuple[str, ...]:
    """Head titles: head 1 for plain MHA; head 3 · kv 2 when heads share key/value heads."""
    if n_kv_heads == n_heads:
        return tuple(f"head {i + 1}" for i in range(n_heads))
    group = n_heads // n_kv_heads
    return tuple(f"head {i + 1} · kv {i // group + 1}" for i in range(n_heads))


def wo_effect(
    inputs: ExploreInputs, with_wo: npt.NDArray[np.floating[Any]], without: npt.NDArray[np.floating[Any]]
) -> WoEffect:
    """Compares the outputs with and without W_O (the attention weights are the same in both)."""
    h, d = inputs.n_heads, inputs.d_model
    d_head = d // h
    diff = float(np.linalg.norm(with_wo - without))  # scalar: Frobenius norm of (T, d) - (T, h*d_head)
    base = float(np.linalg.norm(without))  # scalar
    relative = diff / base if base else 0.0
    shape_with, shape_without = tuple(with_wo.shape), tuple(without.shape)
    if inputs.drop_output_projection:
        text = (
            f"W_O removed: the output {shape_without} is the {h} heads' results side by side: columns "
            f"1-{d_head} come only from head 1, the next {d_head} only from head 2, and so on. Nothing "
            f"mixes the heads. With W_O the output would differ by ‖Δ‖ = {diff:.3g} "
            f"({relative:.0%} of its size). The weights above do not change: W_O acts after attention, "
            f"and it holds d_model² = {d * d:,} of the layer's parameters."
        )
    else:
        text = (
            f"With W_O: the heads' results {shape_without} are concatenated, then W_O "
            f"({h * d_head} x {d}) mixes them into the output {shape_with}, so every output column "
            f"draws on every head. Removing W_O would change the output by ‖Δ‖ = {diff:.3g} "
            f"({relative:.0%} of its size) but not the weights above."
        )
    return WoEffect(
        removed=inputs.drop_output_projection,
        shape_with=shape_with,
        shape_without=shape_without,
        difference_norm=diff,
        relative=relative,
        text=text,
    )


def cost_panel(inputs: ExploreInputs) -> CostPanel:
    """Parameter count and KV cache via the engine's calculators: the preset's real sizes if one is
    chosen, else the sandbox's (with the layers, context, batch and dtype typed in)."""
    if inputs.preset is not None:
        model = MODELS[inputs.preset]
        d, h, kv, d_head, bias = model.d_model, model.n_heads, model.n_kv_heads, model.d_head, model.bias
        title = f"{model.name}, real sizes"
    else:
        d, h, kv, bias = inputs.d_model, inputs.n_heads, inputs.n_kv_heads, False
        d_head = d // h
        title = "This sandbox"
    parameters = engine.calculate(
        "attention_parameters",
        d_model=d,
        n_heads=h,
        n_kv_heads=kv,
        bias=bias,
        output_projection=not inputs.drop_output_projection,
        n_layers=inputs.n_layers,
    )
    kv_cache = engine.calculate(
        "kv_cache_bytes",
        n_layers=inputs.n_layers,
        n_kv_heads=kv,
        d_head=d_head,
        seq_len=inputs.context,
        batch=inputs.batch,
        bytes_per_element=DTYPES[inputs.dtype],
        n_heads=h,
    )
    title += (
        f": {inputs.n_layers} layer{'s' if inputs.n_layers != 1 else ''}, {h} heads, {kv} KV heads, "
        f"d_head {d_head}, context {inputs.context:,}, batch {inputs.batch}, {inputs.dtype}"
    )
    return CostPanel(title=title, parameters=parameters, kv_cache=kv_cache)


def grouping(n_heads: int, n_kv_heads: int) -> str:
    """MHA, MQA, or "GQA, 4 heads per KV head"."""
    if n_kv_heads == n_heads:
        return "MHA"
    if n_kv_heads == 1:
        return "MQA"
    return f"GQA, {n_heads // n_kv_heads} heads per KV head"


def describe(inputs: ExploreInputs, n_tokens: int) -> str:
    """What the heatmaps show, and for a preset how the drawing was scaled down from the real model."""
    h, kv, d = inputs.n_heads, inputs.n_kv_heads, inputs.d_model
    if inputs.preset is None:
        return (
            f"{h} heads ({grouping(h, kv)}), d_model {d}, d_head {d // h}, {n_tokens} tokens, "
            f"seed {inputs.seed}."
        )
    m = MODELS[inputs.preset]
    same = (m.n_heads // m.n_kv_heads == h // kv) or (m.n_kv_heads == 1 and kv == 1)
    how = "the same grouping" if same else grouping(h, kv)
    return (
        f"{m.name}: {m.n_heads} heads, {m.n_kv_heads} KV heads ({grouping(m.n_heads, m.n_kv_heads)}), "
        f"d_head {m.d_head}: too big to draw, so the heatmaps use a scaled-down copy with {h} heads and "
        f"{kv} KV head{'s' if kv != 1 else ''} ({how}), d_head {d // h}. The cost panel uses the real "
        "sizes; editing d_model or heads leaves the preset."
    )
