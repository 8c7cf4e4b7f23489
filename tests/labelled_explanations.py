"""Provides the labelled set of typed explanations: answers written as candidates type them, each key
point labelled covered, missing or contradicted by a fair interviewer, with a rating and the kind of answer.

The labels of `train/` and `held_out/` were written before any accepted or rejected form, by writers who saw
neither; `dev/` and `dev2/` (more paraphrases and fresh misconceptions) were written later, from the
questions alone, to tune the forms of every question. `dev3/` (issue 34) was written from each question's
prompt, key points and model answer before any form was changed for it: two paraphrases in a nervous
candidate's own words, one plainly stated classic misconception and one negation, to measure how the forms
generalise. `train/` to `dev13/` are for tuning (TUNING); `held_out/` is kept aside for the final
figure and is never read while writing forms. `dev4/` was written the same way as `dev3/`, later, and tuned
on after it was measured. `dev5/` (36 questions, 216 answers) was written and labelled
from each question's prompt, key-point texts and core alone, without its forms, and measured before any form
was changed for it; forms were then widened against it, so later figures on it are no longer unseen ones.
`dev6/` (56 questions, 334 answers) was written the same way and first measured before any form was changed
for it; forms were then widened against it too. `dev7/` was written the same way, in two halves by two
writers (368 answers over all 92 questions), and measured unseen before forms were widened against it.
`dev8/` (460 answers over all 92 questions, by four writers) stresses right answers: for each question a
terse one, a paraphrase in everyday words that avoids the key terms and one in another engineer's
vocabulary, then a misconception and a negation, soup or off-topic answer; measured unseen, then tuned on.
`dev9/` (460 answers, four other writers) was written as an interviewer builds a test set for a grader
(a full answer in a strong candidate's words, a terse one, a practitioner's paraphrase, a misconception
and a wrong one), after dev8 was tuned on, and measured unseen before it was tuned on in turn.
`dev10/` (460 answers, four writers, each on questions another wrote for dev9) was written after dev9 was
tuned on: a full answer as spoken in an interview, a terse one, a practitioner's paraphrase with a real
model's numbers, an explanation to a junior colleague by analogy, and a wrong one; measured unseen (right
answers suggested Again 111 of 368: full 5 of 92, terse 7, practitioner 41, analogy 58), then tuned on.
`dev11/` (460 answers, four writers, each on a quarter neither of the last two splits gave them) was written
after dev10 was tuned on: a full answer as spoken, a terse one, a production engineer's paraphrase and a
researcher's, and a wrong one; measured unseen (right answers suggested Again 78 of 368), then tuned on.
`dev12/` (460 answers, four writers, each on a quarter they did not write for dev11) was written after
dev11 was tuned on: a candidate thinking out loud (hedges, asides, a false start), a terse whiteboard line,
a paraphrase in plain words that avoids the field's terms, a partial answer that states only the core,
and a wrong one; measured unseen (right answers suggested Again 53 of 368: full 2, terse 6, paraphrase
45), then tuned on. `dev13/` (460 answers, four writers, on quarters they did not write for dev12) was
written after dev12 was tuned on: a chat-window answer typed fast (lowercase, abbreviations, typos), a
whiteboard line, an explanation for a product manager, a worked example from a real model, and a wrong
one; measured unseen (right answers suggested Again 51 of 368: full 1, terse 5, paraphrase 45), then
tuned on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).parent / "cases" / "explain"
SPLITS = (
    "train",
    "dev",
    "dev2",
    "dev3",
    "dev4",
    "dev5",
    "dev6",
    "dev7",
    "dev8",
    "dev9",
    "dev10",
    "dev11",
    "dev12",
    "dev13",
    "held_out",
)
TUNING = tuple(split for split in SPLITS if split != "held_out")
"""The splits forms may be written against (each new one first measured unseen, then tuned on); `held_out`
is not one of them."""
KINDS = ("full", "terse", "paraphrase", "partial", "soup", "misconception", "negation", "off-topic", "empty")
RIGHT_KINDS = frozenset({"full", "terse", "paraphrase"})
"""Answers an interviewer takes as right: never to be suggested Again more than 1 time in 10."""
WRONG_KINDS = frozenset({"soup", "misconception", "negation", "off-topic", "empty"})
"""Answers an interviewer takes as wrong or empty: never to be suggested Good."""


@dataclass(frozen=True)
class LabelledAnswer:
    """One typed answer to one question with the interviewer's labels."""

    question_id: str
    split: str
    kind: str
    text: str
    points: tuple[str, ...]
    rating: str
    core: int
    """The question's core key point, from 0, as the labeller saw it."""


def labelled(split: str | None = None) -> list[LabelledAnswer]:
    """Every labelled answer of a split (both when None), in file order."""
    out = []
    for name in SPLITS if split is None else (split,):
        for file in sorted((ROOT / name).glob("*.yaml")):
            data = yaml.safe_load(file.read_text(encoding="utf-8"))
            for a in data["answers"]:
                out.append(
                    LabelledAnswer(
                        question_id=data["question"],
                        split=name,
                        kind=a["kind"],
                        text=a["text"] or "",
                        points=tuple(a["points"]),
                        rating=a["rating"],
                        core=int(data["core"]) - 1,
                    )
                )
    return out
