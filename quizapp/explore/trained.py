"""Provides the trained-model mode of Explore: the toy transformer's real heads on a repeated sequence.

```python
view = trained_view(TrainedInputs(sentence="the cat sat on the mat"), toy_model())
view.layers[1]          # engine.Heatmap (heads, T, T), heads labelled "L1H3 induction 0.72"
view.loss_text          # the in-context loss, and what the ablated heads cost
```
The sequence is the sentence (or random tokens) followed by itself, because an induction head only has
something to do where a token has been seen before. Every number comes from engine.toy; this module
chooses what to show and words it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import toy
from engine.derivation import Heatmap
from quizapp.errors import QuizappError
from quizapp.explore.transforms import transformed_toy
from quizapp.paths import data_dir

if TYPE_CHECKING:
    from engine.toy import ToyModel, TrainProgress

HONEST_LABEL = "a 2-layer toy trained on repeated random tokens; not a language model"
MAX_WORDS = 16
"""Words of the sentence drawn; repeated, 32 rows is the most a heatmap shows legibly at 80 columns."""
MIN_WORDS = 2
BAR_WIDTH = 8
SHORTEST_TRAINED = 12
"""The shortest repeat in the toy's training data (engine.toy's default: a quarter of 48 positions)."""
ROLE_FLOOR = 0.3
"""A head whose scores are both below this is labelled by its name only: it has no clear job here."""


@dataclass(frozen=True)
class TrainedInputs:
    """What the trained mode lets the user set; an empty sentence means random tokens from `seed`."""

    sentence: str = ""
    seed: int = 0
    length: int = 12
    """Random tokens before the repeat (when there is no sentence)."""
    ablate: frozenset[tuple[int, int]] = frozenset()
    """(layer, head) pairs whose output is zeroed."""
    tie_heads: bool = False
    drop_output_projection: bool = False


@dataclass(frozen=True, eq=False)
class TrainedView:
    """One forward pass of the toy, ready to draw."""

    inputs: TrainedInputs
    tokens: tuple[str, ...]
    period: int
    """Length of the part that repeats: query t's induction target is t - period + 1."""
    layers: tuple[Heatmap, ...]
    prev_token: Any  # (L, H) scores on this sequence
    induction: Any  # (L, H)
    in_context_loss: float
    intact_loss: float
    """The in-context loss of the unchanged model on the same sequence."""
    note: str

    @property
    def loss_text(self) -> str:
        text = f"In-context loss {self.in_context_loss:+.2f} nats (repeated half minus first half)"
        changed = self.inputs.ablate or self.inputs.tie_heads or self.inputs.drop_output_projection
        if not changed:
            return text + "; below 0 means the model uses the first copy to predict the second."
        return (
            text
            + f"; the intact model: {self.intact_loss:+.2f} ({self.in_context_loss - self.intact_loss:+.2f})."
        )


def user_model_path() -> Path:
    """Where `quizapp heads train` saves by default, and where the trained mode looks for it first."""
    return data_dir() / "heads.npz"


def toy_model(path: str | Path | None = None) -> tuple[ToyModel, str]:
    """(model, where it came from in words): the file given, else the user's trained one, else shipped."""
    if path is None and user_model_path().is_file():
        path = user_model_path()
    if path is None:
        return toy.pretrained(), "the shipped weights"
    try:
        return toy.load(path), f"your weights ({path})"
    except (OSError, ValueError) as exc:
        raise QuizappError(f"cannot load the toy model {path}: {exc}") from None


def sequence(inputs: TrainedInputs, vocab_size: int) -> tuple[Any, tuple[str, ...], int]:
    """(token ids (T,), their labels, period): the sentence or random tokens, then the same again."""
    if inputs.sentence.strip():
        words = tuple(inputs.sentence.split())
        if not MIN_WORDS <= len(words) <= MAX_WORDS:
            raise QuizappError(f"type {MIN_WORDS} to {MAX_WORDS} words (this has {len(words)})")
        ids = toy.encode_text(" ".join(words), vocab_size=vocab_size)  # (n,)
        return np.concatenate([ids, ids]), words + words, len(words)  # (2n,)
    n = inputs.length
    if not MIN_WORDS <= n <= MAX_WORDS:
        raise QuizappError(f"length must be between {MIN_WORDS} and {MAX_WORDS}, not {n}")
    both = toy.repeated_tokens(np.random.default_rng(inputs.seed), n, vocab_size=vocab_size)  # (2n,)
    labels = tuple(toy.token_label(int(i)) for i in both[:n])
    return both, labels + labels, n


def trained_view(inputs: TrainedInputs, model: ToyModel, *, note: str = "") -> TrainedView:
    """The toy on the inputs' sequence: per-layer heatmaps labelled with each head's score on it."""
    for layer, head in inputs.ablate:
        if not (0 <= layer < model.n_layers and 0 <= head < model.n_heads):
            raise QuizappError(f"the toy has no head L{layer}H{head}")
    tokens, labels, period = sequence(inputs, model.vocab_size)
    changed = transformed_toy(model, tie=inputs.tie_heads, drop_wo=inputs.drop_output_projection)
    weights = changed.attention_weights(tokens, ablate=tuple(sorted(inputs.ablate)))  # (L, H, T, T)
    prev, induction = toy.scores_on(weights, period)  # (L, H) each
    heatmaps = tuple(
        Heatmap(
            weights=weights[layer],
            row_labels=labels,
            col_labels=labels,
            head_labels=tuple(
                head_label(
                    layer, h, float(prev[layer, h]), float(induction[layer, h]), (layer, h) in inputs.ablate
                )
                for h in range(model.n_heads)
            ),
        )
        for layer in range(model.n_layers)
    )
    loss = toy.in_context_loss(changed, tokens, ablate=tuple(sorted(inputs.ablate)))
    intact = toy.in_context_loss(model, tokens)
    return TrainedView(
        inputs=inputs,
        tokens=labels,
        period=period,
        layers=heatmaps,
        prev_token=prev,
        induction=induction,
        in_context_loss=loss,
        intact_loss=intact,
        note=(note or f"The trained model: {HONEST_LABEL}.") + _short_note(period),
    )


def _short_note(period: int) -> str:
    """Why a short repeat shows weak heads: the toy never saw one in training."""
    if period >= SHORTEST_TRAINED:
        return ""
    return (
        f" It was trained on repeats of {SHORTEST_TRAINED} tokens or more, so on {period} its induction "
        "heads are weaker."
    )


def head_label(layer: int, head: int, prev: float, induction: float, ablated: bool) -> str:
    """ "L0H2 previous-token 0.81": the head's stronger job on this sequence, or its name alone."""
    name = f"L{layer}H{head}"
    if ablated:
        return f"{name} ablated"
    if max(prev, induction) < ROLE_FLOOR:
        return f"{name} {max(prev, induction):.2f}"
    if prev >= induction:
        return f"{name} previous-token {prev:.2f}"
    return f"{name} induction {induction:.2f}"


def toggled(inputs: TrainedInputs, name: str, value: bool | None = None) -> TrainedInputs:
    """Turns "tie_heads" or "drop_output_projection" on or off (`value` None: flips it)."""
    if name not in ("tie_heads", "drop_output_projection"):
        raise ValueError(f"no toggle {name!r}")
    on = (not getattr(inputs, name)) if value is None else value
    if name == "tie_heads":
        return replace(inputs, tie_heads=on)
    return replace(inputs, drop_output_projection=on)


def toggled_head(inputs: TrainedInputs, layer: int, head: int) -> TrainedInputs:
    """Ablates the head, or puts it back."""
    return replace(inputs, ablate=inputs.ablate ^ {(layer, head)})


def progress_text(p: TrainProgress, seconds: float) -> str:
    """One line of training progress: a bar, the loss and the best head of each kind so far (at most 78
    characters for 1,200 steps, so a terminal of 80 columns redraws it in place)."""
    filled = round(BAR_WIDTH * p.step / max(p.steps, 1))
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    return (
        f"step {p.step}/{p.steps} [{bar}] loss {p.loss:.2f}  previous-token {p.prev_token:.2f}  "
        f"induction {p.induction:.2f}  {seconds:.0f} s"
    )
