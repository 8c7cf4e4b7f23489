"""Provides toy_heads: questions about what the trained toy transformer's heads do, answered by running it.

Every answer is read off the shipped model (engine.toy.pretrained) on a sequence of distinct random tokens
followed by the same tokens again: which of its eight heads is the induction or the previous-token head,
where an induction head attends, and a head's score (Olsson et al. 2022) on the sequence shown.
engine.toy is imported on first use, so importing the engine stays cheap.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.derivation import Derivation, Heatmap, Mistake, Step

if TYPE_CHECKING:
    from engine.toy import ToyModel

FloatArray = npt.NDArray[np.floating[Any]]
PANEL_ASKS = ("induction_head", "prev_token_head")
ASKS = ("induction_target", "induction_score", "prev_token_score")
ROLE_SEED = 0
"""Sequences the heads' roles are measured on (the same for every question, so roles never change)."""


ATTEMPTS = 20
"""Token draws tried for a question that needs the toy to show its pattern cleanly (the first that does
is used; on the lengths the deck asks about, nearly always the first or second)."""
SEPARATION = 0.15
"""How far the heads asked about must score above every other head for a "which panels" draw."""
PANELS = 4
"""Heads drawn for a "which panels" question."""
ROLE_FLOOR = 0.3
"""A head has a job when its score, averaged over random sequences, is at least this (the shipped toy's
heads score about 0.6 at their job and under 0.1 at anything else)."""


Draw = Annotated[int, Param("seed of the random tokens (and of the panel order)")]
Length = Annotated[int, Param("n, the number of distinct tokens before they repeat")]


@lru_cache(maxsize=1)
def _shipped() -> tuple[ToyModel, tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The shipped model with its previous-token heads (in layer 0) and induction heads, as (layer, head)."""
    from engine import toy

    model = toy.pretrained()
    scores = toy.head_scores(model, seed=ROLE_SEED)
    prev = tuple((0, h) for h in range(model.n_heads) if scores.prev_token[0, h] >= ROLE_FLOOR)
    induction = tuple(
        (layer, h)
        for layer in range(model.n_layers)
        for h in range(model.n_heads)
        if scores.induction[layer, h] >= ROLE_FLOOR
    )
    return model, prev, induction


def _run(draw: int, length: int, attempt: int = 0) -> tuple[FloatArray, tuple[str, ...], np.random.Generator]:
    """The shipped toy's attention (L, H, 2n, 2n) on n distinct random tokens and the same n again, the
    token labels, and the generator the draw goes on with. `attempt` draws other tokens for the same
    draw, for a question that needs the toy to show its pattern cleanly."""
    from engine import toy

    model = _shipped()[0]
    if not 2 <= length <= min(model.vocab_size, model.max_len // 2):
        raise ValueError(
            f"length={length} must be between 2 and {min(model.vocab_size, model.max_len // 2)} "
            f"(distinct tokens of a vocabulary of {model.vocab_size}, twice within {model.max_len} positions)"
        )
    if not 0 <= draw < 2**32:
        raise ValueError(f"draw={draw} must be between 0 and 2**32 - 1")
    rng = np.random.default_rng([draw, attempt])
    block = rng.choice(model.vocab_size, size=length, replace=False)  # (n,) distinct tokens
    tokens = np.concatenate([block, block])  # (2n,)
    labels = tuple(toy.token_label(int(t)) for t in tokens)
    return model.attention_weights(tokens), labels, rng  # (L, H, 2n, 2n)


PICKED_PREVIOUS_TOKEN_HEAD = Mistake(
    "picked-previous-token-head",
    "You picked the previous-token heads",
    "Those panels' stripes sit just below the diagonal: every token looks at the one before it. They "
    "are previous-token heads (layer 0). An induction head's stripe is n - 1 below the diagonal, in the "
    "second copy only: it looks at the token after the previous occurrence of the current one.",
)
PICKED_INDUCTION_HEAD = Mistake(
    "picked-induction-head",
    "You picked the induction heads",
    "Those panels' stripes start only in the second copy, n - 1 below the diagonal: they are induction "
    "heads (layer 1). A previous-token head's stripe runs just below the diagonal from the first "
    "token on.",
)


@register(
    summary="Four of the toy's heads, shuffled: which panels are induction or previous-token heads.",
    unit="shape",
    misconceptions=(PICKED_PREVIOUS_TOKEN_HEAD, PICKED_INDUCTION_HEAD),
)
def toy_head_panels(
    ask: Annotated[Literal["induction_head", "prev_token_head"], Param("which job")],
    draw: Draw,
    length: Length = 5,
    *,
    worked: bool = True,
) -> Derivation:
    if ask not in PANEL_ASKS:
        raise ValueError(f"ask={ask!r} is not one of {', '.join(PANEL_ASKS)}")
    from engine import toy

    _, prev_heads, induction_heads = _shipped()
    asked = induction_heads if ask == "induction_head" else prev_heads
    for attempt in range(ATTEMPTS):  # tokens on which the heads asked about stand out from the rest
        weights, labels, rng = _run(draw, length, attempt)
        prev, induction = toy.scores_on(weights, length)  # (L, H) each
        scores = induction if ask == "induction_head" else prev
        kind = [float(scores[h]) for h in asked]
        rest = [float(scores[h]) for h in np.ndindex(scores.shape) if h not in asked]
        if min(kind) - max(rest) >= SEPARATION:
            break
    return _which_heads(ask, weights, scores, labels, rng, prev_heads, induction_heads, worked=worked)


PREVIOUS_OCCURRENCE = Mistake(
    "previous-occurrence",
    "The previous occurrence itself",
    "That is the same token as the query. The head looks one further, at the token that followed it "
    "last time, because that is the token it predicts comes next.",
)
PREVIOUS_POSITION = Mistake(
    "previous-position",
    "The previous position",
    "Looking at t - 1 is the previous-token head's job (layer 0). The induction head uses what that "
    "head wrote into each position to find the earlier copy.",
)
OWN_POSITION = Mistake(
    "own-position",
    "Its own position",
    "Attending to itself brings back the current token, which the model already has.",
)
PREVIOUS_OCCURRENCE_STRIPE = Mistake(
    "previous-occurrence-stripe",
    "The mean weight on the previous occurrence itself (t - n)",
    "The induction score counts the token after the previous occurrence, t - n + 1: the token the "
    "head copies forward.",
)
PREVIOUS_POSITION_STRIPE = replace(
    PREVIOUS_POSITION,
    label="The mean weight on the previous position (t - 1)",
    explanation="That stripe measures a previous-token head. The induction stripe is n - 1 below the "
    "diagonal.",
)
"""The previous-position slip as a head's score makes it: the wrong stripe averaged."""
OWN_POSITION_DIAGONAL = Mistake(
    "own-position-diagonal",
    "The mean weight on the diagonal (the token itself)",
    "A previous-token head's weight sits one below the diagonal, on t - 1.",
)
ONE_QUERY_TOO_MANY = Mistake(
    "one-query-too-many",
    "The mean over n + 1 queries, from t = n - 1",
    "Query n - 1 is the last token of the first copy: it has no earlier occurrence, so it is not "
    "part of the induction score. Average over the n queries of the second copy only.",
)
COUNTED_FIRST_ROW = Mistake(
    "counted-first-row",
    "The sum divided by 2n, counting row 0",
    "Row 0 has no previous token (with a causal mask it can only attend to itself), so it is left "
    "out: divide by the 2n - 1 rows that have one.",
)


@register(
    summary="What the trained toy transformer's heads do on a repeated sequence: targets and scores.",
    unit="",
    misconceptions=(
        PREVIOUS_OCCURRENCE,
        PREVIOUS_POSITION,
        OWN_POSITION,
        PREVIOUS_OCCURRENCE_STRIPE,
        OWN_POSITION_DIAGONAL,
        ONE_QUERY_TOO_MANY,
        COUNTED_FIRST_ROW,
    ),
)
def toy_heads(
    ask: Annotated[Literal["induction_target", "induction_score", "prev_token_score"], Param("what to find")],
    draw: Draw,
    length: Length = 5,
    query: Annotated[int, Param("query position, in the second copy (induction_target)")] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    if ask not in ASKS:
        raise ValueError(f"ask={ask!r} is not one of {', '.join(ASKS)}")
    _, prev_heads, induction_heads = _shipped()
    weights, labels, rng = _run(draw, length)
    # one head of the kind asked, drawn with the tokens, so every head of the kind comes up
    if ask == "prev_token_score":
        head = prev_heads[int(rng.integers(len(prev_heads)))]
        return _score(ask, weights[head], head, labels, length, worked=worked)
    head = induction_heads[int(rng.integers(len(induction_heads)))]
    if ask == "induction_score":
        return _score(ask, weights[head], head, labels, length, worked=worked)
    if not length <= query <= 2 * length - 1:
        raise ValueError(
            f"query={query} must be in the second copy, positions {length} to {2 * length - 1} for "
            f"length={length}"
        )
    for attempt in range(1, ATTEMPTS):  # tokens on which the trained head looks where theory says
        if int(np.argmax(weights[head][query])) == query - length + 1:
            break
        weights, labels, rng = _run(draw, length, attempt)
        head = induction_heads[int(rng.integers(len(induction_heads)))]
    return _induction_target(weights[head], head, labels, length, query, worked=worked)


def _which_heads(
    ask: str,
    weights: FloatArray,
    scores: FloatArray,
    labels: tuple[str, ...],
    rng: np.random.Generator,
    prev_heads: tuple[tuple[int, int], ...],
    induction_heads: tuple[tuple[int, int], ...],
    *,
    worked: bool,
) -> Derivation:
    """Four of the heads in a shuffled order; the answer is every panel that does the job asked about.
    `scores` (L, H) are the heads' scores on this sequence for that job."""
    L, H = weights.shape[:2]
    asked, other = (induction_heads, prev_heads) if ask == "induction_head" else (prev_heads, induction_heads)
    order = _panels([divmod(i, H) for i in range(L * H)], asked, other, rng)  # panel i shows head order[i]
    answer = tuple(i + 1 for i, head in enumerate(order) if head in asked)
    if not worked:
        return result(answer)
    kind = "induction" if ask == "induction_head" else "previous-token"
    rule = "from t to t - n + 1 over the copy" if ask == "induction_head" else "from t to t - 1"
    scores_text = ", ".join(f"{i + 1}: {scores[head]:.2f}" for i, head in enumerate(order))
    label = f"{kind.capitalize()} score of each panel: its mean weight {rule}"
    steps = (Step(label, f"the {kind} heads score far above the rest", scores_text, answer),)
    picked, other_kind = (
        (PICKED_PREVIOUS_TOKEN_HEAD, "the previous-token heads")
        if ask == "induction_head"
        else (PICKED_INDUCTION_HEAD, "the induction heads")
    )
    wrong_panels = tuple(i + 1 for i, head in enumerate(order) if head in other)
    shown = f"Panels {wrong_panels} are {other_kind}"
    wrong = [picked.gives(wrong_panels, label, label=shown)] if wrong_panels else []
    heatmap = Heatmap(
        weights=np.stack([weights[head] for head in order]),  # (PANELS, T, T) in panel order
        row_labels=labels,
        col_labels=labels,
        head_labels=tuple(f"panel {i + 1}" for i in range(len(order))),
    )
    names = ", ".join(f"panel {i + 1} = L{layer}H{h}" for i, (layer, h) in enumerate(order))
    notes = (f"The panels are these heads of the toy: {names}.",)
    return result(answer, steps, wrong, heatmap=heatmap, notes=notes)


def _panels(
    heads: list[tuple[int, int]],
    asked: tuple[tuple[int, int], ...],
    other: tuple[tuple[int, int], ...],
    rng: np.random.Generator,
) -> list[tuple[int, int]]:
    """PANELS heads, shuffled: one or two of the kind asked, one or two of the other kind (the pattern to
    tell it from), the rest heads with neither job; few enough to scan, and never "all" or "none"."""
    pools = [list(asked), list(other), [h for h in heads if h not in asked and h not in other]]
    chosen: list[tuple[int, int]] = []
    for pool in pools[:2]:  # one or two of each kind
        take = int(rng.integers(1, min(2, len(pool), PANELS - len(chosen)) + 1))
        chosen += [pool[i] for i in rng.choice(len(pool), take, replace=False)]
    take = min(len(pools[2]), PANELS - len(chosen))  # then heads with neither job
    chosen += [pools[2][i] for i in rng.choice(len(pools[2]), take, replace=False)] if take > 0 else []
    spare = [h for h in heads if h not in chosen]
    chosen += [spare[i] for i in rng.choice(len(spare), PANELS - len(chosen), replace=False)]
    return [chosen[i] for i in rng.permutation(PANELS)]


def _induction_target(
    w: FloatArray, head: tuple[int, int], labels: tuple[str, ...], n: int, query: int, *, worked: bool
) -> Derivation:
    """Where an induction head looks from `query`: one past the previous occurrence of its token."""
    earlier = query - n
    answer = earlier + 1
    if not worked:
        return result(answer)
    after = "The position after it, whose token comes next"
    steps = (
        Step("Previous occurrence of the current token", "q - n", f"{query} - {n}", earlier),
        Step(after, "q - n + 1", f"{query} - {n} + 1", answer),
    )
    top = int(np.argmax(w[query]))
    notes = (
        f"The trained induction head L{head[0]}H{head[1]} puts {w[query, answer]:.2f} of its weight on "
        f"position {answer} ({labels[answer]}); its largest weight is on position {top}.",
    )
    wrong = [
        PREVIOUS_OCCURRENCE.gives(earlier, after),
        PREVIOUS_POSITION.gives(query - 1, after),
        OWN_POSITION.gives(query, after),
    ]
    heatmap = Heatmap(
        weights=w[None],  # (1, T, T)
        row_labels=labels,
        col_labels=labels,
        head_labels=(f"induction head L{head[0]}H{head[1]}",),
        asked=(query, answer),
    )
    return result(answer, steps, wrong, heatmap=heatmap, notes=notes)


def _score(
    ask: str, w: FloatArray, head: tuple[int, int], labels: tuple[str, ...], n: int, *, worked: bool
) -> Derivation:
    """A head's score on this sequence: the mean of one stripe of its weights (the prefix-matching score
    of Olsson et al. for an induction head; the previous-token score as interpretability tools define it)."""
    T = w.shape[0]
    if ask == "induction_score":
        queries = np.arange(n, 2 * n)  # (n,) the second copy
        offset, what = n - 1, "t - n + 1 for t = n..2n-1"
        wrongs = {PREVIOUS_OCCURRENCE_STRIPE: n, PREVIOUS_POSITION_STRIPE: 1}
    else:
        queries = np.arange(1, T)  # (T-1,) every position with a previous one
        offset, what = 1, "t - 1 for t = 1..2n-1"
        wrongs = {OWN_POSITION_DIAGONAL: 0}
    picked = w[queries, queries - offset]  # (len(queries),)
    value = float(picked.mean())
    if not worked:
        return result(value)
    terms = " + ".join(f"{x:.4f}" for x in picked)
    total = float(picked.sum())
    name = "Induction score" if ask == "induction_score" else "Previous-token score"
    steps = (
        Step(f"Add the weights from each query t to {what}", f"sum of a[t, t - {offset}]", terms, total),
        Step(name, "that sum over the number of queries", f"{total:.4f} / {len(picked)}", value),
    )  # fmt: skip
    values = {m: float(w[queries, queries - off].mean()) for m, off in wrongs.items()}
    if ask == "induction_score":  # one query too many: t = n - 1 as well, whose key t - n + 1 is 0
        values[ONE_QUERY_TOO_MANY] = float((total + w[n - 1, 0]) / (len(picked) + 1))
    else:  # row 0 counted: the sum over 2n rows, not the 2n - 1 that have a previous token
        values[COUNTED_FIRST_ROW] = total / T
    wrong = [m.gives(v, name) for m, v in values.items()]
    heatmap = Heatmap(
        weights=w[None],  # (1, T, T)
        row_labels=labels,
        col_labels=labels,
        head_labels=(f"L{head[0]}H{head[1]}",),
    )
    return result(value, steps, wrong, heatmap=heatmap)
