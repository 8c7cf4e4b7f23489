"""Provides the gates on explain questions: every question can be read, and reads its own model answer right.

- every key point has at least one accepted form, and every question at least two rejected forms (a
  flashcard typed in is read against its back's points: those gates hold for it too, rejects aside);
- the question's own model answer reads as every point covered, with no misconception found;
- the model answer with the main verb of each sentence negated does not read as every point covered.

They live in grading, not in quizapp.content.checks, because they run the reader; `quizapp validate`
and the bank's test pass them to the content gates as `more`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial

from quizapp.content.answer_forms import KeyPoint
from quizapp.content.checks.gate_types import GateFailure, GateInput, Instantiate
from quizapp.content.instance import Instance
from quizapp.content.questions import ExplainQuestion, FlashcardQuestion
from quizapp.content.scenario_question import ScenarioExplain, ScenarioQuestion
from quizapp.grading.explain import read_explanation
from quizapp.grading.explain_grade import read_answer

MIN_REJECTS = 2
AUXILIARIES = (
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "will",
    "would",
    "should",
    "must",
    "does",
    "do",
    "did",
    "has",
    "have",
    "had",
    "may",
    "might",
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_AUXILIARY = re.compile(r"\b(" + "|".join(AUXILIARIES) + r")\b", re.IGNORECASE)
_CLAUSE = re.compile(r"([,;:]\s*|\s(?:but|so|because|while|whereas|which|since|although)\s)", re.IGNORECASE)
_LEADING_WORD = re.compile(
    r"\s*(?:and|then|thus|hence|therefore|so|because|but|while|whereas|which|since|although)?\s*",
    re.IGNORECASE,
)


def negate_main_verbs(text: str) -> str:
    """Every clause stated the other way round: `not` after its first auxiliary verb, or at its start (after
    a word such as `so` or `because`) when it has none. A test of the gate, not of English: a form that
    still finds its point here is finding words, not the claim."""
    out = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        pieces = _CLAUSE.split(sentence)
        out.append("".join(_negate_clause(p) if i % 2 == 0 else p for i, p in enumerate(pieces)))
    return " ".join(out)


def _negate_clause(clause: str) -> str:
    if not clause.strip():
        return clause
    match = _AUXILIARY.search(clause)
    if match is not None:
        return f"{clause[: match.end()]} not{clause[match.end() :]}"
    lead = _LEADING_WORD.match(clause)
    at = lead.end() if lead is not None else len(clause) - len(clause.lstrip())
    return f"{clause[:at]}not {clause[at:]}"


def explain_failures(items: Sequence[GateInput], instantiate: Instantiate) -> list[GateFailure]:
    """Every explain question (typed flashcard, case study's part in words) that cannot be read, or
    misreads its own model answer."""
    out: list[GateFailure] = []
    for it in items:
        q = it.question
        loc: tuple[str | int, ...] = ("questions", it.index)
        part: ExplainQuestion | FlashcardQuestion | ScenarioExplain
        if isinstance(q, FlashcardQuestion) and q.typed:
            part, model_answer, least = q, q.back, 0  # its back is the model answer
        elif isinstance(q, ExplainQuestion):
            part, model_answer, least = q, q.model_answer, MIN_REJECTS
        elif isinstance(q, ScenarioQuestion) and q.explain is not None:
            part, model_answer, least = q.explain, q.explain.model_answer, MIN_REJECTS
            loc = (*loc, "explain")
        else:
            continue
        problems = _part_problems(part, model_answer, least, partial(_read_part, instantiate, q.id))
        out += [GateFailure(it.deck_id, q.id, loc, problem) for problem in problems]
    return out


def _read_part(instantiate: Instantiate, question_id: str) -> Instance:
    """The instance that is read at seed 0: the question's own, or a case study's part in words."""
    inst = instantiate(question_id, 0)
    return inst.follow_up if inst.follow_up is not None else inst


def _part_problems(
    part: ExplainQuestion | FlashcardQuestion | ScenarioExplain,
    model_answer: str,
    least: int,
    instance: Callable[[], Instance],
) -> list[str]:
    bare = [n for n, p in enumerate(part.key_points, start=1) if not isinstance(p, KeyPoint) or not p.accept]
    if bare:
        return [f"key point(s) {', '.join(map(str, bare))} have no accepted forms (accept:)"]
    out = []
    if len(part.reject) < least:
        out.append(f"{len(part.reject)} rejected form(s) (reject:); at least {least}")
    inst = instance()
    model = read_answer(inst, model_answer)
    unread = [p.index + 1 for p in model.points if p.status != "covered"]
    if unread:
        out.append(f"the model answer does not read as covering key point(s) {unread}")
    if model.misconceptions:
        out.append(
            f"the model answer reads as the misconception(s) {', '.join(m.id for m in model.misconceptions)}"
        )
    negated = read_explanation(negate_main_verbs(model_answer), inst.point_specs, inst.rejects)
    if all(p.status == "covered" for p in negated.points):
        out.append("the model answer with its verbs negated still covers every point")
    return out
