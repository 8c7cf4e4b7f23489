"""Provides negations(): for each token of an answer, the negator or dismissal that states it the other way
round. Its own module because scope is its own problem: how far a `not` reaches past an `and`, a `with`,
a bracket, "rules out" and "far from" (explain_text cuts the answer and calls it once)."""

from __future__ import annotations

from collections.abc import Sequence

from quizapp.content.patterns import Token
from quizapp.grading.explain_words import (
    ADJECTIVE_ENDS,
    ADJECTIVES,
    CLAIM_VERBS,
    COUNTERFACTUAL,
    DISMISSED,
    DISMISSIVE,
    FAR_FROM,
    HYPOTHETICAL,
    NEGATORS,
    NOT_NEGATING_AFTER,
)

SCOPE_ENDS = frozenset({"and", "or", "then", "plus"})
NEGATION_REACH = 2
"""A negator reaches past `and` only when the `and` comes within this many words of it ("no key and no
value", "not T and d_k"); further on, `and` starts a claim of its own."""


MAIN_SUBJECTS = frozenset({"you", "we", "i", "they"})
MAIN_AFTER = 2
"""A pronoun more than this many words after an `if` or `when` starts the main clause ("when the logits are
large you do not get gradients"): a negator after it is the claim. Right after it, it is the supposition's own
subject ("if we did not scale")."""


def negations(source: str, toks: Sequence[Token], clause: Sequence[int]) -> list[int]:
    """For each token, the negator that states it the other way round (its index), or -1 (see _negation),
    with each negator's reach cut where a `with`, "rules out" or a bracket ends it."""
    return _inside_brackets(source, toks, _ruled_out(toks, clause, _with_none(toks, _negation(toks, clause))))


def _without_doing(toks: Sequence[Token], clause: Sequence[int], at: int) -> bool:
    """True for a `without` after a claim in its clause and before a verb's -ing form ("you subtract the
    max without changing the softmax"): it denies what follows, as `not` does. At a clause's start, or in
    a clause that supposes ("without paging you'd reserve max_len"), it supposes (explain_supposed)."""
    if toks[at].word != "without" or at == 0 or clause[at - 1] != clause[at] or at + 1 == len(toks):
        return False
    if clause[at + 1] != clause[at] or any(
        toks[j].word in COUNTERFACTUAL for j in range(len(toks)) if clause[j] == clause[at]
    ):
        return False
    verb = at + 1
    if (toks[verb].raw or toks[verb].word).endswith("ly") and verb + 1 < len(toks):
        verb += 1  # "without really changing"
    raw = toks[verb].raw or toks[verb].word
    return clause[verb] == clause[at] and len(raw) > 5 and raw.endswith("ing") and not raw.endswith("thing")


def _claim_after(toks: Sequence[Token], clause: Sequence[int], at: int) -> bool:
    """True when the rest of the clause after the `and` at `at` has a verb of its own (CLAIM_VERBS): "exp
    never overflows and the result is unchanged" makes two claims, "not T and d_k" one."""
    return any(toks[j].word in CLAIM_VERBS for j in range(at + 1, len(toks)) if clause[j] == clause[at])


def _with_none(toks: Sequence[Token], negated: list[int]) -> list[int]:
    """`negated` with a negator after `with` kept to its noun phrase: in "rows with nothing allowed and give
    them zero weight" the `nothing` describes the rows, and the claim after `and` stands; so does the claim
    its clause's verb makes ("a row with nobody in it gets zero weight")."""
    out = list(negated)
    ended: set[int] = set()
    again: dict[int, int] = {}  # a negator of the claim after the noun phrase ("... can't give NaN")
    for i, j in enumerate(negated):
        if j < 0 or j >= i or j == 0 or toks[j - 1].word != "with":
            continue
        if j in ended:
            out[i] = again.get(j, -1)
            if toks[i].word in NEGATORS and j not in again:
                again[j] = i
        elif toks[i].word in CLAIM_VERBS:
            ended.add(j)  # "a row with nobody in it gets zero weight": the verb starts the claim
            out[i] = -1
        elif toks[i].word in SCOPE_ENDS:
            ended.add(j)
    return out


RULING_OUT = frozenset({"rule", "rules", "ruled", "ruling"})


def _ruled_out(toks: Sequence[Token], clause: Sequence[int], negated: list[int]) -> list[int]:
    """`negated` with what follows "rules out" in its clause denied, as after `not`: "near the floor, that
    rules out more bytes per step" denies the extra bytes (a form that names "rule out" states it)."""
    out = list(negated)
    for i in range(len(toks) - 1):
        if toks[i].word in RULING_OUT and toks[i + 1].word == "out" and clause[i + 1] == clause[i]:
            for j in range(i + 2, len(toks)):
                if clause[j] != clause[i]:
                    break
                if out[j] < 0:
                    out[j] = i
    return out


def _inside_brackets(source: str, toks: Sequence[Token], negated: list[int]) -> list[int]:
    """`negated` with each negator or dismissal kept inside its brackets: in "mem (80 GB = 79.6 GiB, not 80)
    minus the weights" the `not` denies the 80, not the subtraction that goes on after the bracket."""
    if "(" not in source:
        return negated
    depth, level = [0] * (len(source) + 1), 0
    for i, ch in enumerate(source):
        depth[i] = level = level + (ch == "(") - (ch == ")" and level > 0)
    return [j if j < 0 or depth[toks[j].start] <= depth[toks[i].start] else -1 for i, j in enumerate(negated)]


def _denying(toks: Sequence[Token], clause: Sequence[int], at: int) -> bool:
    """True when the token at `at` starts a `far from` that denies what follows (explain_words.FAR_FROM)."""
    if at + 2 >= len(toks) or clause[at + 2] != clause[at] or (toks[at].word, toks[at + 1].word) != FAR_FROM:
        return False
    after = toks[at + 2].word
    return after.startswith("un") or after.endswith(ADJECTIVE_ENDS) or after in ADJECTIVES


def _negation(toks: Sequence[Token], clause: Sequence[int]) -> list[int]:
    """For each token, the negator earlier in its clause that states it the other way round (its index), or
    the dismissal later in it (DISMISSED, DISMISSIVE), or -1. A form that names the negator itself ("can not
    attend to future tokens") states a prohibition, so explain_points counts a negator as negating a match
    only when the match does not include it."""
    negated: list[int] = []
    dismissal: dict[int, int] = {}  # clause -> its first dismissal ("is not needed", "is useless")
    active = -1
    hypothetical, supposing = False, -1
    for i, tok in enumerate(toks):
        if i == 0 or clause[i] != clause[i - 1]:
            active, hypothetical = -1, False
        negated.append(active)
        if (
            tok.word in SCOPE_ENDS
            and active >= 0
            and ((i - active > NEGATION_REACH and tok.word != "or") or _claim_after(toks, clause, i))
        ):  # "does not shard LayerNorm or dropout" denies both: an `or` ends it only before a verb
            active = -1  # "S and P never go to HBM and memory becomes linear": the second claim stands
        following = toks[i + 1].word if i + 1 < len(toks) and clause[i + 1] == clause[i] else ""
        if active < 0 and not hypothetical and _without_doing(toks, clause, i):
            active = i  # "subtract the max without changing the softmax" changes nothing
            continue
        if tok.word in HYPOTHETICAL:
            hypothetical, supposing = True, i
        elif hypothetical and tok.word in MAIN_SUBJECTS and i - supposing > MAIN_AFTER:
            hypothetical = False  # "when a new block arrives you do not rescale": the main clause denies
        if hypothetical:
            continue
        if (tok.word in NEGATORS and following not in NOT_NEGATING_AFTER) or _denying(toks, clause, i):
            if active < 0:
                active = i  # the first negator of the clause: a form may include a later one, not this
            near = toks[i + 1 : i + 3]
            if any(
                t.word in DISMISSED
                for t, c in zip(near, clause[i + 1 : i + 3], strict=False)
                if c == clause[i]
            ):
                dismissal.setdefault(clause[i], i)
        elif tok.word in DISMISSIVE:
            dismissal.setdefault(clause[i], i)
    for j in dismissal.values():
        i = j - 1  # "subtracting the max is not needed": what stands before the dismissal is denied too,
        while i >= 0 and clause[i] == clause[j] and toks[i].word not in SCOPE_ENDS:  # back to an `and`
            if negated[i] < 0:
                negated[i] = j
            i -= 1
    return negated
