"""Provides the gates on a question's words: Markdown that renders, models kept inside their context
window, and choice options whose style does not give the answer away.

A reader who knows nothing can still win a choice question when the right option looks different: it
alone has a colon or a bracket, or the wrong ones alone argue for themselves ("because ..."). These
gates measure such cues per question; each failure names the question and what to rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from markdown_it import MarkdownIt

from quizapp.content.checks.gate_types import GateFailure, GateInput
from quizapp.content.instantiate import resolve_args, sample_params
from quizapp.content.param_specs import PresetParam
from quizapp.content.questions import ChoiceQuestion
from quizapp.content.schema import Question

JUSTIFY = re.compile(r"\b(because|since)\b", re.IGNORECASE)
"""A justification clause: wrong options that argue for themselves while the right one does not."""
CONTEXT_ARGS = re.compile(r"^(seq_len|kv_len|context|ctx|tokens|gen_len|prompt_len|t|s)$", re.IGNORECASE)
"""Calculator arguments that are a number of tokens in one sequence."""
OVER_CONTEXT_SAID = re.compile(
    r"hypothetical|beyond (?:its|the model's) trained context|past its (?:trained )?context", re.IGNORECASE
)
CONTEXT_SEEDS = 50


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


def broken_fence(text: str) -> str:
    """Why `text` does not render as Markdown with whole code fences, or "" when it does."""
    if not text or "```" not in text:
        return ""
    opened = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            opened ^= 1
        elif "```" in stripped:
            return f"a code fence starts inside a line ({stripped[:40]!r}): put ``` on a line of its own"
    if opened:
        return "a code fence is opened and never closed"
    for token in _markdown().parse(text):
        if token.type == "inline" and "```" in token.content:
            return "a code fence renders as inline text: leave a blank line before it"
    return ""


def _texts(q: Question) -> list[tuple[str, str]]:
    out = [("prompt", getattr(q, "prompt", "") or ""), ("explanation", getattr(q, "explanation", "") or "")]
    for name in ("front", "back", "model_answer"):
        out.append((name, getattr(q, name, "") or ""))
    if isinstance(q, ChoiceQuestion):
        for i, o in enumerate(q.options):
            out += [(f"options[{i}]", o.text), (f"options[{i}].feedback", o.feedback)]
    return out


def markdown_failures(it: GateInput) -> list[GateFailure]:
    """Every prompt, option and explanation of one question renders with whole code fences."""
    out = []
    for field, text in _texts(it.question):
        why = broken_fence(text)
        if why:
            out.append(GateFailure(it.deck_id, it.question.id, ("questions", it.index), f"{field}: {why}"))
    return out


def context_failures(it: GateInput) -> list[GateFailure]:
    """A prompt that runs a published model past its context window says the case is hypothetical."""
    q = it.question
    params = q.params or {}
    if not any(isinstance(p, PresetParam) for p in params.values()):
        return []
    if OVER_CONTEXT_SAID.search(getattr(q, "prompt", "") or ""):
        return []
    args: dict[str, Any] = dict(getattr(q, "args", {}) or {})
    for seed in range(CONTEXT_SEEDS):
        try:
            values = sample_params(params, np.random.default_rng(seed))
            used = {**values, **(resolve_args(args, values, loc=()) if args else {})}
        except Exception:  # a template that cannot be drawn is reported by the other checks
            return []
        models = [v for v in values.values() if hasattr(v, "context_length") and hasattr(v, "n_layers")]
        for m in models:
            for name, v in used.items():
                if (
                    CONTEXT_ARGS.match(name)
                    and isinstance(v, (int, float))
                    and not isinstance(v, bool)
                    and v > m.context_length
                ):
                    return [
                        GateFailure(
                            it.deck_id,
                            q.id,
                            ("questions", it.index, "prompt"),
                            f"{m.name} is run at {name} = {v:,} tokens, past its {m.context_length:,}-token "
                            "context: cap the draw or say in the prompt that the case is hypothetical",
                            seed,
                        )
                    ]
    return []


def justification_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """Single-answer questions where two or more wrong options justify themselves ("because", "since")
    and the right one does not: a style cue that picks the answer without knowing it."""
    out = []
    for it in items:
        q = it.question
        if not isinstance(q, ChoiceQuestion) or q.multiple:
            continue
        right = [o for o in q.options if o.correct]
        wrong = [o for o in q.options if not o.correct]
        justified = sum(bool(JUSTIFY.search(o.text)) for o in wrong)
        if justified >= 2 and not any(JUSTIFY.search(o.text) for o in right):
            out.append(
                GateFailure(
                    it.deck_id,
                    q.id,
                    ("questions", it.index, "options"),
                    f"{justified} wrong options argue for themselves ('because' / 'since') and the right one "
                    "does not: write every option as the same kind of claim",
                )
            )
    return out


PUNCTUATION = {
    "a colon or semicolon": re.compile(r"[:;]"),
    "brackets": re.compile(r"[()\[\]]"),
}
"""Structure a careful author gives the right option and forgets to give the wrong ones."""


def punctuation_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """Single-answer questions whose right option alone carries a colon/semicolon, or brackets: a reader
    who picks the only elaborate-looking option wins without knowing the answer."""
    out = []
    for it in items:
        q = it.question
        if not isinstance(q, ChoiceQuestion) or q.multiple:
            continue
        right = [o.text for o in q.options if o.correct]
        wrong = [o.text for o in q.options if not o.correct]
        for name, rx in PUNCTUATION.items():
            if all(rx.search(t) for t in right) and not any(rx.search(t) for t in wrong):
                out.append(
                    GateFailure(
                        it.deck_id,
                        q.id,
                        ("questions", it.index, "options"),
                        f"only the right option has {name}: give a wrong option the same structure, or "
                        "write the right one without it",
                    )
                )
    return out


CUE_GAP = 0.10
"""Across the bank, a style cue may be at most this much more common on right options than on wrong ones
(or the reverse)."""


def cue_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """Bank-wide: a cue (justification, colon/semicolon, brackets, hedge) far more common on one side
    is a tell even when no single question shows it; each question where only one side has it is named."""
    out = []
    for name, (right, wrong) in cue_shares(items).items():
        if abs(right - wrong) <= CUE_GAP:
            continue
        rx = _CUES[name]
        side_right = right > wrong
        for it in items:
            q = it.question
            if not isinstance(q, ChoiceQuestion) or q.multiple:
                continue
            r = [rx.search(o.text) is not None for o in q.options if o.correct]
            w = [rx.search(o.text) is not None for o in q.options if not o.correct]
            if (all(r) and not any(w)) if side_right else (any(w) and not any(r)):
                out.append(
                    GateFailure(
                        it.deck_id,
                        q.id,
                        ("questions", it.index, "options"),
                        f"the {name} cue is on {right:.0%} of right options and {wrong:.0%} of wrong ones "
                        f"(at most {CUE_GAP:.0%} apart): balance it here",
                    )
                )
    return out


_CUES = {
    "justification": JUSTIFY,
    "colon-semicolon": re.compile(r"[:;]"),
    "brackets": re.compile(r"[()\[\]]"),
    "hedge": re.compile(r"\b(usually|often|typically|roughly|about|mostly|may|can)\b", re.IGNORECASE),
}


def cue_shares(items: Sequence[GateInput]) -> dict[str, tuple[float, float]]:
    """Per style cue, the share of right and of wrong options that carry it, over single-answer questions:
    what a reader using only style would exploit."""
    cues = _CUES
    right: list[str] = []
    wrong: list[str] = []
    for it in items:
        q = it.question
        if isinstance(q, ChoiceQuestion) and not q.multiple:
            right += [o.text for o in q.options if o.correct]
            wrong += [o.text for o in q.options if not o.correct]
    out = {}
    for name, rx in cues.items():
        r = sum(bool(rx.search(t)) for t in right) / max(len(right), 1)
        w = sum(bool(rx.search(t)) for t in wrong) / max(len(wrong), 1)
        out[name] = (r, w)
    return out
