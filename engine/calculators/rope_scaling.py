"""Provides RoPE at decode and past the trained length: the angle of a decoded token and position
interpolation.
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.positions import (
    ANGLE_LABEL,
    DEGREES_NOT_RADIANS,
    USED_I_NOT_2I,
    Base,
    Pair,
    RopeDHead,
    angle_wrongs,
    check_rope,
    rope_freq_step,
    theta_of_pair,
)
from engine.derivation import Derivation, Mistake, Step

_ANGLE_SLIPS = (USED_I_NOT_2I.id, DEGREES_NOT_RADIANS.id)
"""The slips of rope_angle's that still apply at decode and under interpolation."""
RESTARTED_POSITIONS = Mistake(
    "restarted-positions",
    "You started the new token at position 0",
    "The one-token input of a decoding step is not at position 0: its position is the cache length, "
    "or its query would be rotated as if it were the first token.",
)
OFF_BY_ONE = Mistake(
    "off-by-one",
    "You put the new token at position cached + 1",
    "Positions count from 0, so with m tokens cached they occupy 0 .. m-1 and the next one is m.",
)
FORGOT_PROMPT_OFFSET = Mistake(
    "forgot-prompt-offset", "You counted only the generated tokens, leaving out the prompt's positions"
)


@register(
    summary="RoPE angle for the next token when decoding with a KV cache: its position is the cache length.",
    unit="rad",
    misconceptions=(
        RESTARTED_POSITIONS,
        OFF_BY_ONE,
        USED_I_NOT_2I,
        DEGREES_NOT_RADIANS,
        FORGOT_PROMPT_OFFSET,
    ),
)
def rope_decode_angle(
    cached_tokens: Annotated[int, Param("tokens already in the KV cache (prompt plus generated)", gt=0)],
    pair: Pair,
    d_head: RopeDHead,
    base: Base = 10000.0,
    generated: Annotated[
        int,
        Param(
            "tokens generated since the prompt (0: not said), to recognise the prompt's positions left out"
        ),
    ] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Cached keys were rotated when written; the new token continues the count at the cache length."""
    check_rope(pair, d_head, base)
    if not 0 <= generated <= cached_tokens:
        raise ValueError(f"generated={generated} must lie in 0..cached_tokens={cached_tokens}")
    theta = theta_of_pair(pair, d_head, base)
    position = cached_tokens
    value = position * theta
    if not worked:
        return result(value)
    pos_label = "Position of the new token"
    steps = (
        Step(
            pos_label,
            "m = tokens already cached (positions 0 .. m-1 are taken)",
            f"m = {cached_tokens:,}",
            position,
        ),
        rope_freq_step(pair, d_head, base),
        Step(ANGLE_LABEL, "angle = m x theta_i", f"{position:,} x {theta:.6g}", value, "rad"),
    )
    wrong = [
        RESTARTED_POSITIONS.gives(0.0, pos_label),
        OFF_BY_ONE.gives((position + 1) * theta, pos_label),
        *[w for w in angle_wrongs(value, position, pair, d_head, base) if w.id in _ANGLE_SLIPS],
    ]
    if generated:
        wrong.append(
            FORGOT_PROMPT_OFFSET.gives(
                generated * theta,
                pos_label,
                explanation=f"The prompt's {cached_tokens - generated:,} tokens sit at positions 0 .. "
                f"{cached_tokens - generated - 1:,} and the generated ones after them: the new token's "
                "position is the whole cache length, prompt included.",
            )
        )
    return result(value, steps, wrong)


SCALE_INVERTED = Mistake(
    "scale-inverted",
    "You multiplied the position by s instead of dividing",
    "Interpolation shrinks positions so that the longest new one maps inside the trained range.",
)
NO_INTERPOLATION = Mistake(
    "no-interpolation",
    "You used the raw position",
    "That is plain extrapolation, to angles never seen in training: what interpolation avoids.",
)
NTK_BASE = Mistake(
    "ntk-base",
    "You applied NTK-aware scaling (a larger base) instead of interpolating positions",
    "NTK scaling keeps m and raises the base to base x s^(d/(d-2)); linear interpolation "
    "keeps the base and divides the position by s. The two agree only for the slowest pair.",
)


@register(
    summary="RoPE angle under position interpolation: position m scaled by L_train / L_new, times theta_i.",
    unit="rad",
    misconceptions=(SCALE_INVERTED, NO_INTERPOLATION, NTK_BASE, USED_I_NOT_2I, DEGREES_NOT_RADIANS),
)
def rope_interpolated_angle(
    position: Annotated[int, Param("token position m in the extended context")],
    train_len: Annotated[int, Param("context length the model was trained on", gt=0)],
    target_len: Annotated[int, Param("extended context length", gt=0)],
    pair: Pair,
    d_head: RopeDHead,
    base: Base = 10000.0,
    *,
    worked: bool = True,
) -> Derivation:
    """Position interpolation squeezes the new range into the trained one: m' = m / s, s = L_new / L_train."""
    check_rope(pair, d_head, base)
    if target_len <= train_len:
        raise ValueError(f"target_len={target_len} must exceed train_len={train_len}")
    if not 0 <= position < target_len:
        raise ValueError(f"position={position} must lie in 0..{target_len - 1}")
    scale = target_len / train_len
    theta = theta_of_pair(pair, d_head, base)
    squeezed = position / scale
    value = squeezed * theta
    if not worked:
        return result(value)
    scale_label, pos_label = "Scale factor", "Interpolated position"
    steps = (
        Step(scale_label, "s = L_new / L_train", f"{target_len:,} / {train_len:,}", scale, "x"),
        Step(pos_label, "m' = m / s", f"{position:,} / {scale:.6g}", squeezed),
        rope_freq_step(pair, d_head, base),
        Step(ANGLE_LABEL, "angle = m' x theta_i", f"{squeezed:.6g} x {theta:.6g}", value, "rad"),
    )
    wrong = [
        SCALE_INVERTED.gives(position * scale * theta, pos_label),
        NO_INTERPOLATION.gives(position * theta, pos_label),
        *(
            [
                NTK_BASE.gives(
                    position * theta_of_pair(pair, d_head, base * scale ** (d_head / (d_head - 2))), pos_label
                )
            ]
            if d_head > 2
            else []
        ),
        *[w for w in angle_wrongs(value, squeezed, pair, d_head, base) if w.id in _ANGLE_SLIPS],
    ]
    return result(value, steps, wrong)
