"""Provides the case-study steps that build on an earlier step's quantity rather than on the model's shape:
a per-token cache times tokens, a cache re-stored at another precision, some layers' cache scaled to all.

A step that says "with that" must take "that" as its argument, so a learner's wrong earlier number is
carried into it (error carried forward) instead of being recomputed from the model behind their back.
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.derivation import Derivation, Misconception, Mistake

ONE_TOKEN = Mistake("one-token", "You gave one token's cache", "Every token in the span is cached.")
COUNTED_SHARED_PREFIX = Mistake(
    "counted-shared-prefix",
    "You counted the shared prefix again",
    "The shared prefix is cached once for every request: one more request adds only its own tokens.",
)
LAYERS_TWICE = Mistake(
    "layers-twice",
    "You multiplied by the layers again",
    "The per-token figure already spans every layer: multiply it by the tokens only.",
)


@register(
    summary="Cache bytes of some tokens from the per-token figure (all layers): bytes per token x tokens.",
    unit="B",
    misconceptions=(LAYERS_TWICE, COUNTED_SHARED_PREFIX, ONE_TOKEN),
)
def bytes_for_tokens(
    per_token_bytes: Annotated[
        float, Param("cache bytes of one token across all layers (an earlier step)", gt=0)
    ],
    tokens: Annotated[int, Param("tokens to cache", gt=0)],
    n_layers: Annotated[
        int, Param("layers the per-token figure already spans, to recognise them counted again", gt=0)
    ] = 1,
    shared_tokens: Annotated[
        int, Param("tokens of a shared prefix that are not this request's own", ge=0)
    ] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """The per-token figure already holds K and V for every layer: only the token count multiplies it."""
    value = per_token_bytes * tokens
    wrong: list[Misconception] = []
    if shared_tokens:
        wrong.append(COUNTED_SHARED_PREFIX.gives(per_token_bytes * (tokens + shared_tokens)))
    if n_layers > 1:
        wrong.append(LAYERS_TWICE.gives(value * n_layers))
    wrong.append(ONE_TOKEN.gives(per_token_bytes))
    return formula_result(
        value,
        "Cache of the tokens",
        "bytes per token x tokens",
        f"{num(per_token_bytes)} x {num(tokens)}",
        wrong,
        worked=worked,
    )


INVERTED_RATIO = Mistake(
    "inverted-ratio",
    "You scaled by old / new instead of new / old",
    "Fewer bytes per element means fewer bytes: multiply by new / old.",
)
UNCHANGED_SIZE = Mistake(
    "unchanged-size",
    "You kept the old size",
    "The same elements stored in fewer bytes each take fewer bytes in all.",
)


@register(
    summary="The same cache at another precision: bytes x new bytes per element / old bytes per element.",
    unit="B",
    misconceptions=(INVERTED_RATIO, UNCHANGED_SIZE),
)
def requantized_bytes(
    n_bytes: Annotated[float, Param("bytes at the old precision (an earlier step)", gt=0)],
    bytes_before: Annotated[float, Param("bytes per element before (bf16: 2)", gt=0)],
    bytes_after: Annotated[float, Param("bytes per element after (fp8: 1)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """The element count is unchanged, so the bytes scale with the bytes per element."""
    value = n_bytes * bytes_after / bytes_before
    return formula_result(
        value,
        "Bytes at the new precision",
        "bytes x new bytes per element / old bytes per element",
        f"{num(n_bytes)} x {num(bytes_after)} / {num(bytes_before)}",
        [
            INVERTED_RATIO.gives(n_bytes * bytes_before / bytes_after),
            UNCHANGED_SIZE.gives(n_bytes),
        ],
        worked=worked,
    )


FORGOT_PER_LAYER = Mistake(
    "forgot-per-layer",
    "You multiplied by all the layers without dividing by those counted",
    "The bytes cover several layers already: divide by them first to get one layer's share.",
)
INVERTED = Mistake(
    "inverted", "You scaled by the layers the wrong way up", "All layers cache more, not less."
)
TIMES_PERIOD = Mistake("times-period", "You multiplied by the period")


@register(
    summary="Some layers' cache scaled to every layer: bytes / those layers x all layers.",
    unit="B",
    misconceptions=(TIMES_PERIOD, FORGOT_PER_LAYER, INVERTED),
)
def all_layers_bytes(
    n_bytes: Annotated[float, Param("cache bytes of some layers (an earlier step)", gt=0)],
    layers: Annotated[int, Param("how many layers those bytes cover (an earlier step)", gt=0)],
    n_layers: Annotated[int, Param("all the layers", gt=0)],
    period: Annotated[
        int, Param("one layer in `period` is of this kind, to recognise the ratio used", ge=0)
    ] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Each layer of the same kind caches the same bytes, so the total scales with the layer count."""
    value = n_bytes / layers * n_layers
    wrong: list[Misconception] = []
    if period:
        wrong.append(
            TIMES_PERIOD.gives(
                n_bytes * period,
                label=f"You multiplied by the period, {period}",
                explanation=f"One layer in {period} is of this kind, but {n_layers} layers do not split "
                f"evenly: scale by {n_layers} / {layers}, the layers themselves.",
            )
        )
    wrong += [
        FORGOT_PER_LAYER.gives(n_bytes * n_layers),
        INVERTED.gives(n_bytes * layers / n_layers),
    ]
    return formula_result(
        value,
        "Cache if every layer were of this kind",
        "bytes / layers counted x all layers",
        f"{num(n_bytes)} / {num(layers)} x {num(n_layers)}",
        wrong,
        worked=worked,
    )
