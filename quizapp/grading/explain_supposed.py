"""Provides supposed(): which words of an answer stand in no claim of its own: what a counterfactual
supposes, what a reporting frame ("people often say") introduces, what "rather than" sets aside or
"whether" asks. A rejected form met there is not the candidate's claim (explain_text calls it once)."""

from __future__ import annotations

from collections.abc import Sequence

from quizapp.content.patterns import Token
from quizapp.grading.explain_words import (
    ASKING,
    ASKING_IF,
    CONTINUING,
    CONTRAST,
    CONTRASTED,
    COUNTERFACTUAL,
    FRAMING_ADJECTIVES,
    FRAMING_ALONE,
    HEDGING,
    MISTAKES,
    NEGATIVE_SUPPOSING,
    NEGATORS,
    RELATIVE,
    REPORTERS,
    REPORTING,
    SET_ASIDE,
    SUPPOSING,
)


def supposed(source: str, toks: Sequence[Token], sentence: Sequence[int], clause: Sequence[int]) -> list[int]:
    """For each token, whether it stands in no claim of the answer's own (see AnswerText.supposed): what a
    counterfactual supposes (_counterfactual); an `unlike` clause and the clauses that go on describing it;
    what a reporting frame ("people often say") introduces, up to a clause that answers it (`but`,
    `actually`) or a semicolon; what the rest of a clause sets aside ("rather than", "instead of") or asks
    ("whether", "see if")."""
    out = [0] * len(toks)
    words: dict[int, list[int]] = {}
    clauses: dict[int, list[int]] = {}
    for i, (s_id, c_id) in enumerate(zip(sentence, clause, strict=True)):
        words.setdefault(c_id, []).append(i)
        if c_id not in clauses.setdefault(s_id, []):
            clauses[s_id].append(c_id)
    for order in clauses.values():
        marked: set[int] = set()
        supposed, triggers = _counterfactual(source, toks, words, order)
        for i in supposed:
            out[i] = 1
        for i in triggers:
            _mark(out, i)
        for k, c in enumerate(order):
            first = words[c][0]
            frame = _frame(toks, words[c])
            if toks[first].word in CONTRASTED:
                marked.add(c)
                _mark(out, first)
                ends = CONTINUING
            elif frame:
                marked.add(c)
                for i in frame:
                    _mark(out, i)
                ends = CONTRAST
            else:
                continue
            for before, later in zip(order[k:], order[k + 1 :], strict=False):
                starts = toks[words[later][0]].word
                parted = ";" in source[toks[words[before][-1]].start : toks[words[later][0]].start]
                if parted or ((starts not in CONTINUING) if ends is CONTINUING else (starts in CONTRAST)):
                    break  # a semicolon, or a clause that does not go on, ends what the frame describes
                marked.add(later)
        for c in order:
            at = words[c]
            for n, i in enumerate(at):
                pair = (toks[i].word, toks[at[n + 1]].word if n + 1 < len(at) else "")
                asked = n > 0 and pair[0] == "if" and toks[at[n - 1]].word in ASKING_IF
                asks = toks[i].word in ASKING or asked
                if pair in SET_ASIDE or asks:
                    _mark(out, i)
                    for j in at[n + 1 :]:
                        out[j] = out[j] or 1
                    break
        for c in marked:
            for i in words[c]:
                out[i] = out[i] or 1
    return out


def _mark(out: list[int], at: int) -> None:
    out[at] = 2


def _counterfactual(
    source: str, toks: Sequence[Token], words: dict[int, list[int]], order: Sequence[int]
) -> tuple[set[int], set[int]]:
    """What the counterfactuals of one sentence (its clauses `order`) suppose, and the words that make
    them so. After a negative supposition (`without`, `unless`, `otherwise`, an `if` with a negator) the
    whole `would` clause is what does not happen: "without the cache decoding would be compute-bound".
    Otherwise only what stands before the `would` in its clause (back to a `what`, `which`...) and the
    `if` clauses before it: "applying the mask after the softmax would leak the future" rejects the way it
    names; "sharing Q would save as much" claims what comes after the `would`."""
    supposed: set[int] = set()
    triggers: set[int] = set()
    for k, c in enumerate(order):
        for w in words[c]:
            if not _would(source, toks, w):
                continue
            triggers.add(w)
            sides = [b for b in order[:k] if any(toks[i].word in SUPPOSING for i in words[b][:2])]
            negative = [
                i
                for b in [*sides, c]
                for i in words[b]
                if toks[i].word in NEGATIVE_SUPPOSING
                or (toks[i].word in SUPPOSING and any(toks[j].word in NEGATORS for j in words[b] if j > i))
            ]
            for b in sides:
                supposed.update(words[b])
                triggers.update(i for i in words[b][:2] if toks[i].word in SUPPOSING)
            if negative:
                supposed.update(words[c])
                triggers.update(negative)
                continue
            subject = [i for i in words[c] if i < w]
            cut = max((n for n, i in enumerate(subject) if toks[i].word in RELATIVE), default=-1)
            supposed.update(subject[cut + 1 :])
    return supposed - triggers, triggers


def _would(source: str, toks: Sequence[Token], at: int) -> bool:
    """True when the token at `at` is a counterfactual `would` or `could` ("it'd" too), not a hedge ("I
    would say", "we could use")."""
    word = toks[at].word
    before = toks[at - 1].word if at else ""
    if word == "d":
        piece = source[toks[at].start : toks[at].end]
        return ("'d" in piece or "’d" in piece) and before in {"it", "that", "this", "they", "there"}
    return word in COUNTERFACTUAL and before not in HEDGING


def _frame(toks: Sequence[Token], at: Sequence[int]) -> list[int]:
    """The words of a reporting frame in the clause of token indexes `at` (explain_words.REPORTERS,
    MISTAKES), or none."""
    w = [toks[i].word for i in at]
    for j, word in enumerate(w):
        if word in REPORTERS and any(x in REPORTING for x in w[j + 1 : j + 4]):
            return [at[j]]
        if word in MISTAKES and (word in FRAMING_ALONE or (j and w[j - 1] in FRAMING_ADJECTIVES)):
            return [at[j]]
        if (
            word in {"you", "one"}
            and w[j + 1 : j + 2] in (["might"], ["may"])
            and set(w[j + 2 : j + 3]) & REPORTING
        ):
            return [at[j]]
        if word == "tempting" or (word == "contrary" and w[j + 1 : j + 2] == ["to"]):
            return [at[j]]
    return []
