"""Provides the lines the feedback panel shows after an answer: the verdict with its rating, what was typed
and how it was read, the rating choices and why one was suggested, the diagnosis, and a choice question's
chosen options with why each wrong one is wrong. Plain Rich Text made from the session's Feedback, apart
from the widget that shows them and keeps them updated in place (quizapp.tui.widgets.feedback).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from quizapp.grading.rating import EASY, HINT_CAPS, RATING_NAMES
from quizapp.study.views import EASY_HELD, easy_held

NEXT_KEYS = "1-4: rate & next · Enter or Space: accept & next · Ctrl+Z: undo · Esc: home"
"""The one rule for keys after an answer, on every kind of question (the help and README say it too)."""
DONT_KNOW = "I don't know"
"""The answer the session saves for Ctrl+O (StudySession.dont_know)."""

if TYPE_CHECKING:
    from quizapp.study.session import Feedback


def verdict_line(feedback: Feedback) -> Text:
    """✓/✗, the rating it earned, and where the card goes next (or that drill leaves it alone)."""
    v = feedback.verdict
    line = Text()
    inst = feedback.instance
    if inst.kind == "explain":
        badge = f" {len(feedback.covered)}/{len(inst.key_points)} key points "
        line.append(badge, style="bold black on green" if v.correct else "bold white on red")
    elif v.correct:
        line.append(" ✓ Correct ", style="bold black on green")
    else:
        line.append(" ✗ Not quite ", style="bold white on red")
    line.append(f"  rated {RATING_NAMES.get(feedback.rating, '?')}")
    if feedback.hints_used:
        n = feedback.hints_used
        cap = RATING_NAMES[HINT_CAPS[min(n, len(HINT_CAPS) - 1)]]
        line.append(f" ({n} hint{'s' * (n != 1)}: at most {cap})", style="dim")
    if feedback.next_interval:
        line.append(f" · next review in {feedback.next_interval}")
    elif not feedback.scheduled:
        line.append(" · schedule unchanged", style="dim")
    line.append(" · saved", style="dim")
    return line


def answer_lines(feedback: Feedback) -> Text:
    """What was typed, how it was read, and the verdict's own sentence."""
    v = feedback.verdict
    text = Text()
    if feedback.instance.kind == "code":
        text.append(f"Ran {v.parsed} on this review's inputs, edge cases first.\n", style="dim")
    elif feedback.instance.kind not in ("flashcard", "explain"):
        text.append("You answered: ", style="dim")
        text.append(feedback.answer.strip() or "(nothing)")
        if v.parsed and v.parsed != feedback.answer.strip():
            prefix = "  → " if v.parsed.startswith("read as") else "  → read as "
            text.append(prefix, style="dim")
            text.append(v.parsed)
        text.append("\n")
    text.append(v.message)
    if feedback.instance.kind == "explain" and feedback.answer == DONT_KNOW and feedback.instance.key_points:
        text.append("\nKey points an interviewer listens for:", style="bold")
        for point in feedback.instance.key_points:
            text.append(f"\n  • {point}")
    for step in v.steps:  # a case study: each step's own verdict, carried forward where it was
        mark = "✓" if step.verdict.correct else "↪" if step.carried_forward else "✗"
        text.append(f"\n  {mark} step {step.index}: ", style="bold")
        text.append(step.verdict.message)
    return text


def rating_choices_line(feedback: Feedback) -> Text:
    """`1 Again 10m · 2 Hard 1d · [3 Good 3d] · 4 Easy 8d`: the saved rating marked, Enter to accept."""
    line = Text()
    line.append("Your call: ", style="bold")
    for i, choice in enumerate(feedback.choices):
        if i:
            line.append(" · ", style="dim")
        saved = choice.rating == feedback.rating
        # the rating saved shows the interval saved, fuzz included, as "next review in" does; the others
        # are before fuzz
        interval = (feedback.next_interval or choice.interval) if saved else choice.interval
        label = f"{choice.rating} {choice.name} {interval}"
        if saved:
            line.append(f"[{label}]", style="bold reverse")
        else:
            line.append(label)
    line.append("\n")
    line.append_text(rating_reason(feedback))
    if easy_held(feedback.choices) and EASY in (feedback.rating, feedback.suggested):
        # only where it applies: said under every answer it pushed the feedback off a 24-row screen
        line.append("\n" + EASY_HELD, style="dim")
    return line


def rating_reason(feedback: Feedback) -> Text:
    """Why the rating was suggested ("Suggested Good: right in 38 s"), or that the saved one is the
    learner's own."""
    suggested = RATING_NAMES.get(feedback.suggested, "?")
    reason = feedback.verdict.reason
    why = reason.split(": ", 1)[-1] if reason else ""
    if not why and feedback.answer == DONT_KNOW:
        why = "you asked for the answer (Ctrl+O)"
    text = Text()
    text.append("Suggested ", style="dim")
    text.append(suggested, style="bold")
    if why:
        text.append(f": {why}")
    if feedback.rating != feedback.suggested:
        text.append(f" (saved: your {RATING_NAMES.get(feedback.rating, '?')})", style="dim")
    return text


def diagnosis_text(feedback: Feedback) -> Text | None:
    """The misconception the answer matches, the step where it goes astray and why (None: no diagnosis)."""
    v = feedback.verdict
    if not v.diagnosis:
        return None
    diag = Text()
    diag.append("Diagnosis: ", style="bold")
    diag.append(v.diagnosis)
    if v.step:
        diag.append(f"  (at the step “{v.step}”)", style="dim")
    if v.explanation:
        diag.append("\n")
        diag.append(v.explanation, style="italic")
    return diag


def chosen_line(feedback: Feedback) -> Text:
    """For choice questions: the options the user chose."""
    v = feedback.verdict
    by_key = {o.key: o for o in feedback.instance.options}
    chosen = sorted(v.value) if isinstance(v.value, frozenset) else []
    text = Text()
    text.append("You chose: ", style="dim")
    text.append(", ".join(f"{k}) {by_key[k].text}" for k in chosen if k in by_key) or "nothing")
    return text


def choice_lines(feedback: Feedback) -> tuple[list[Text], Text | None]:
    """For choice questions: why each chosen wrong option is wrong, then the right answer, said once
    (None after a right answer).

    "You chose" above already names the options chosen, so a wrong one is named by its letter; the right
    options are listed only in the answer line (they were also listed as "missed", the answer twice)."""
    v = feedback.verdict
    lines: list[Text] = []
    for opt in v.option_feedback:
        line = Text()
        line.append(f"✗ {opt.key}) ", style="bold red")
        line.append(opt.feedback)
        lines.append(line)
    if v.correct:
        return lines, None
    right = [o for o in feedback.instance.options if o.correct]
    answer = Text()
    answer.append("Correct answer: " if len(right) == 1 else "Correct answers: ", style="bold")
    for i, option in enumerate(right):
        if i:
            answer.append(" · ", style="dim")
        answer.append(f"{option.key}) {option.text}")
        if len(right) > 1 and option.key in v.missed_options:
            answer.append(" (you left it out)", style="dim")
    return lines, answer
