"""Provides toy_heads: questions about what the trained toy transformer's heads do, answered by running it.

Every answer is read off the shipped model (engine.toy.pretrained) on a sequence of distinct random tokens
followed by the same tokens again: which of its eight heads is the induction or the previous-token head,
where an induction head attends, and a head's score (Olsson et al. 2022) on the sequence shown.
engine.toy is imported on first use, so importing the engine stays cheap.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engine.calculator import Arg, register
from engine.calculators.common import distinct
from engine.derivation import Derivation, Heatmap, Misconception, Step

if TYPE_CHECKING:
    from engine.toy import ToyModel

FloatArray = npt.NDArray[np.floating[Any]]
ASKS = ("induction_head", "prev_token_head", "induction_target", "induction_score", "prev_token_score")
ROLE_SEED = 0
"""Sequences the heads' roles are measured on (the same for every question, so roles never change)."""


@lru_cache(maxsize=1)
def _shipped() -> tuple[ToyModel, tuple[int, int], tuple[int, int]]:
    """The shipped model with its previous-token head and induction head, each as (layer, head)."""
    from engine import toy

    model = toy.pretrained()
    scores = toy.head_scores(model, seed=ROLE_SEED)
    prev, induction = scores.best_prev_token, scores.best_induction
    return model, (prev[0], prev[1]), (induction[0], induction[1])


@register(
    "toy_heads",
    summary="What the trained toy transformer's heads do on a repeated sequence: roles, targets, scores.",
    unit="",
    args=(
        Arg("ask", "str", "what to find", choices=ASKS),
        Arg("draw", "int", "seed of the random tokens (and of the panel order)"),
        Arg("length", "int", "n, the number of distinct tokens before they repeat", default=5, required=False),
        Arg("query", "int", "query position, in the second copy (induction_target)", default=0, required=False),
    ),
    misconceptions=(
        "picked-previous-token-head",
        "picked-induction-head",
        "previous-occurrence",
        "previous-position",
        "own-position",
        "previous-occurrence-stripe",
        "own-position-diagonal",
    ),
)
def toy_heads(ask: str, draw: int, length: int = 5, query: int = 0, *, worked: bool = True) -> Derivation:
    from engine import toy

    model, prev_head, induction_head = _shipped()
    if not 2 <= length <= min(model.vocab_size, model.max_len // 2):
        raise ValueError(
            f"length={length} must be between 2 and {min(model.vocab_size, model.max_len // 2)} "
            f"(distinct tokens of a vocabulary of {model.vocab_size}, twice within {model.max_len} positions)"
        )
    if not 0 <= draw < 2**32:
        raise ValueError(f"draw={draw} must be between 0 and 2**32 - 1")
    rng = np.random.default_rng(draw)
    block = rng.choice(model.vocab_size, size=length, replace=False)  # (n,) distinct tokens
    tokens = np.concatenate([block, block])  # (2n,)
    labels = tuple(toy.token_label(int(t)) for t in tokens)
    weights = model.attention_weights(tokens)  # (L, H, 2n, 2n)
    if ask in ("induction_head", "prev_token_head"):
        return _which_head(ask, weights, labels, length, rng, worked=worked)
    if ask == "induction_target":
        return _induction_target(weights[induction_head], induction_head, labels, length, query)
    if ask == "induction_score":
        return _score(ask, weights[induction_head], induction_head, labels, length)
    if ask == "prev_token_score":
        return _score(ask, weights[prev_head], prev_head, labels, length)
    raise ValueError(f"ask={ask!r} is not one of {', '.join(ASKS)}")


def _which_head(
    ask: str, weights: FloatArray, labels: tuple[str, ...], n: int, rng: np.random.Generator, *, worked: bool
) -> Derivation:
    """The eight heads in a shuffled order: the panel whose pattern scores highest on this sequence."""
    from engine import toy

    L, H, T, _ = weights.shape
    prev, induction = toy.scores_on(weights, n)  # (L, H) each
    order = rng.permutation(L * H)  # (L*H,) panel i shows head order[i]
    panel_prev, panel_induction = prev.reshape(-1)[order], induction.reshape(-1)[order]  # (L*H,) each
    asked, other = (panel_induction, panel_prev) if ask == "induction_head" else (panel_prev, panel_induction)
    answer, wrong = int(np.argmax(asked)) + 1, int(np.argmax(other)) + 1
    calc = "toy_heads"
    if not worked:
        return Derivation(calc, answer, "", ())
    layer, head = divmod(int(order[answer - 1]), H)
    kind = "induction" if ask == "induction_head" else "previous-token"
    rule = "weight from t to t - n + 1 over the copy" if ask == "induction_head" else "weight from t to t - 1"
    scores_text = ", ".join(f"{i + 1}: {s:.2f}" for i, s in enumerate(asked))
    steps = (
        Step(f"{kind.capitalize()} score of each panel", f"mean {rule}", scores_text, float(asked.max())),
        Step("The panel with the highest score", "argmax over the panels", f"panel {answer}", answer),
    )
    other_id, other_kind = (
        ("picked-previous-token-head", "the previous-token head")
        if ask == "induction_head"
        else ("picked-induction-head", "the induction head")
    )
    wrong_m = [
        Misconception(other_id, f"Panel {wrong} is {other_kind}", _OTHER_HEAD[other_id], wrong, "argmax")
    ]
    heatmap = Heatmap(
        weights=weights.reshape(L * H, T, T)[order],  # (L*H, T, T) in panel order
        row_labels=labels,
        col_labels=labels,
        head_labels=tuple(f"panel {i + 1}" for i in range(L * H)),
    )
    notes = (f"Panel {answer} is head L{layer}H{head} of the toy ({kind} score {asked.max():.2f} here).",)
    return Derivation(calc, answer, "", steps, distinct(answer, wrong_m), heatmap=heatmap, notes=notes)


_OTHER_HEAD = {
    "picked-previous-token-head": (
        "That panel's stripe sits just below the diagonal: every token looks at the one before it. That is "
        "the previous-token head (layer 0). The induction head's stripe is n - 1 below the diagonal, in the "
        "second copy only: it looks at the token after the previous occurrence of the current one."
    ),
    "picked-induction-head": (
        "That panel's stripe starts only in the second copy, n - 1 below the diagonal: it is the induction "
        "head (layer 1). A previous-token head's stripe runs just below the diagonal from the first token on."
    ),
}


def _induction_target(
    w: FloatArray, head: tuple[int, int], labels: tuple[str, ...], n: int, query: int
) -> Derivation:
    """Where an induction head looks from `query`: one past the previous occurrence of its token."""
    if not n <= query <= 2 * n - 1:
        raise ValueError(f"query={query} must be in the second copy, positions {n} to {2 * n - 1} for length={n}")
    earlier = query - n
    answer = earlier + 1
    steps = (
        Step("Previous occurrence of the current token", "q - n", f"{query} - {n}", earlier),
        Step("The position after it, whose token comes next", "q - n + 1", f"{query} - {n} + 1", answer),
    )
    top = int(np.argmax(w[query]))
    notes = (
        f"The trained induction head L{head[0]}H{head[1]} puts {w[query, answer]:.2f} of its weight on "
        f"position {answer} ({labels[answer]}); its largest weight is on position {top}.",
    )
    wrong = [
        Misconception(
            "previous-occurrence",
            "The previous occurrence itself",
            "That is the same token as the query. The head looks one further, at the token that followed it "
            "last time, because that is the token it predicts comes next.",
            earlier,
            "q - n",
        ),
        Misconception(
            "previous-position",
            "The previous position",
            "Looking at t - 1 is the previous-token head's job (layer 0). The induction head uses what that "
            "head wrote into each position to find the earlier copy.",
            query - 1,
            "q - 1",
        ),
        Misconception(
            "own-position",
            "Its own position",
            "Attending to itself brings back the current token, which the model already has.",
            query,
            "q",
        ),
    ]
    heatmap = Heatmap(
        weights=w[None],  # (1, T, T)
        row_labels=labels,
        col_labels=labels,
        head_labels=(f"induction head L{head[0]}H{head[1]}",),
        asked=(query, answer),
    )
    return Derivation("toy_heads", answer, "", steps, distinct(answer, wrong), heatmap=heatmap, notes=notes)


def _score(ask: str, w: FloatArray, head: tuple[int, int], labels: tuple[str, ...], n: int) -> Derivation:
    """A head's score on this sequence: the mean of one stripe of its weights, as Olsson et al. define it."""
    T = w.shape[0]
    if ask == "induction_score":
        queries = np.arange(n, 2 * n)  # (n,) the second copy
        offset, what = n - 1, "t - n + 1 for t = n..2n-1"
        wrongs = {"previous-occurrence-stripe": n, "previous-position": 1}
    else:
        queries = np.arange(1, T)  # (T-1,) every position with a previous one
        offset, what = 1, "t - 1 for t = 1..2n-1"
        wrongs = {"own-position-diagonal": 0}
    picked = w[queries, queries - offset]  # (len(queries),)
    value = float(picked.mean())
    terms = " + ".join(f"{x:.4f}" for x in picked)
    name = "Induction score" if ask == "induction_score" else "Previous-token score"
    steps = (
        Step(f"Weights from each query t to {what}", f"a[t, t - {offset}]", ", ".join(f"{x:.4f}" for x in picked),
             float(picked.max())),
        Step(name, "the mean of those weights", f"({terms}) / {len(picked)}", value),
    )  # fmt: skip
    texts = {
        "previous-occurrence-stripe": (
            "The mean weight on the previous occurrence itself (t - n)",
            "The induction score counts the token after the previous occurrence, t - n + 1: the token the "
            "head copies forward.",
        ),
        "previous-position": (
            "The mean weight on the previous position (t - 1)",
            "That stripe measures a previous-token head. The induction stripe is n - 1 below the diagonal.",
        ),
        "own-position-diagonal": (
            "The mean weight on the diagonal (the token itself)",
            "A previous-token head's weight sits one below the diagonal, on t - 1.",
        ),
    }
    wrong = [
        Misconception(m, texts[m][0], texts[m][1], float(w[queries, queries - off].mean()), name)
        for m, off in wrongs.items()
    ]
    heatmap = Heatmap(
        weights=w[None],  # (1, T, T)
        row_labels=labels,
        col_labels=labels,
        head_labels=(f"L{head[0]}H{head[1]}",),
    )
    return Derivation("toy_heads", value, "", steps, distinct(value, wrong), heatmap=heatmap)
