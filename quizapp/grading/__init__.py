"""Provides answer checking: reading what users type, grading it against an Instance, suggesting a rating.

from quizapp.grading import grade
v = grade(inst, "80 GiB", hints_used=0, seconds=12.0)
v.correct, v.parsed, v.diagnosis, v.message, v.rating
"""

from quizapp.grading.diagnose import Diagnosis, diagnose_number, diagnose_shape, head_count
from quizapp.grading.explain_grade import grade_explain
from quizapp.grading.grade import grade, grade_flashcard
from quizapp.grading.parse import (
    ParsedNumber,
    accepted_forms_for,
    evaluate,
    parse_answer,
    parse_choice,
    parse_number,
    parse_rating,
    parse_shape,
)
from quizapp.grading.rating import AGAIN, EASY, GOOD, HARD, suggest_rating
from quizapp.grading.tokens import MAX_INPUT_CHARS, AnswerParseError
from quizapp.grading.verdict import OptionFeedback, Verdict
from quizapp.grading.words import accepted_forms

__all__ = [
    "AGAIN",
    "EASY",
    "GOOD",
    "HARD",
    "MAX_INPUT_CHARS",
    "AnswerParseError",
    "Diagnosis",
    "OptionFeedback",
    "ParsedNumber",
    "Verdict",
    "accepted_forms",
    "accepted_forms_for",
    "diagnose_number",
    "diagnose_shape",
    "evaluate",
    "grade",
    "grade_explain",
    "grade_flashcard",
    "head_count",
    "parse_answer",
    "parse_choice",
    "parse_number",
    "parse_rating",
    "parse_shape",
    "suggest_rating",
]
