"""Where the right option sits: shuffled per question, so neither its letter nor its shape answers it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from quizapp.content.catalog import load_catalog
from quizapp.content.checks.gates import GateInput
from quizapp.content.checks.order_gates import (
    POSITION_SHARE,
    SHAPE_Z,
    Z_LIMIT,
    position_failures,
    shape_cues,
    shape_failures,
    shape_warnings,
)
from quizapp.content.deck import question_adapter
from quizapp.content.instance import Instance
from quizapp.content.instantiate import option_order


def _choice(i: int, right: str, wrong: tuple[str, str, str]) -> GateInput:
    raw = {
        "id": f"order-{i}",
        "type": "choice",
        "difficulty": 1,
        "tags": ["t"],
        "prompt": "Which?",
        "options": [{"text": right, "correct": True}, *({"text": w, "feedback": "No."} for w in wrong)],
        "explanation": "e",
    }
    return GateInput("d", i, question_adapter().validate_python(raw))


def test_at_one_seed_the_right_answers_of_the_bank_are_spread_over_the_letters() -> None:
    catalog = load_catalog()
    single = [
        qid
        for qid, q in catalog.questions.items()
        if q.type == "choice" and not getattr(q, "multiple", False)
    ]
    assert len(single) > 100
    for seed in (0, 1, 7):
        letters: Counter[str] = Counter()
        for qid in single:
            expected = catalog.instance(qid, seed).expected
            assert isinstance(expected, frozenset) and len(expected) == 1
            letters.update(expected)
        assert max(letters.values()) <= POSITION_SHARE * len(single), (seed, letters)  # was 130 of 131 at b
    items = [
        GateInput(deck_id, i, q)
        for deck_id, deck in catalog.decks.items()
        for i, q in enumerate(deck.questions)
    ]
    assert position_failures(items, catalog.instance) == []


def test_a_shuffle_shared_by_every_question_is_refused_with_its_seed() -> None:
    items = [_choice(i, f"right {i}", ("wrong one", "wrong two", "wrong three")) for i in range(12)]

    def same_letter(qid: str, seed: int) -> Instance:
        return Instance(qid, "d", "D", "choice", seed, "Which?", frozenset({"b"}), explanation="e")

    (failure,) = position_failures(items, same_letter, seeds=(3, 4))
    assert failure.seed == 3 and "12 of 12" in failure.message and "'b'" in failure.message


def test_the_option_order_is_the_same_in_every_process_and_differs_between_questions() -> None:
    code = "from quizapp.content.instantiate import option_order as o; print(o('serving-kivi-cache', 5, 4))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": salt},
        ).stdout
        for salt in ("1", "2")
    }
    assert runs == {f"{option_order('serving-kivi-cache', 5, 4)}\n"}, "hash() is salted: never use it here"
    orders = {tuple(option_order(f"q-{i}", 0, 4)) for i in range(40)}
    assert len(orders) > 10, "one seed no longer fixes one order for every question"
    assert sorted(option_order("q", 3, 5)) == [0, 1, 2, 3, 4]


def test_a_bank_whose_right_option_is_the_second_longest_is_refused_and_a_varied_one_is_not() -> None:
    wrong = ("short", "tiny", "a long wrong claim, longer still")
    tell = [_choice(i, "a right claim of middling size", wrong) for i in range(12)]
    second = shape_cues(tell)[0]
    assert len(second.hits) == 12 and second.expected == 3
    assert {f.question_id for f in shape_failures(tell)} == {f"order-{i}" for i in range(12)}
    assert shape_warnings(tell) == [], "a refused cue is not also warned about"
    rights = ["short", "tiny", "a right claim of middling size", "a long right claim, longer still"]
    others = ("wrong: one, two", "w", "a wrong claim that is the longest of all four")
    varied = [_choice(i, rights[i % 4], others) for i in range(12)]
    assert shape_failures(varied) == [] and shape_warnings(varied) == []


def test_a_bank_whose_right_option_has_the_most_punctuation_is_refused() -> None:
    tell = [
        _choice(i, "right (so: it is, really)", ("wrong one", "wrong two", "wrong three")) for i in range(12)
    ]
    assert "punctuation" in shape_cues(tell)[1].name and len(shape_cues(tell)[1].hits) == 12
    failures = shape_failures(tell)
    assert len(failures) == 12 and all("most punctuation" in f.message for f in failures)


def test_the_bundled_bank_gives_no_shape_cue_beyond_chance() -> None:
    catalog = load_catalog()
    items = [
        GateInput(deck_id, i, q)
        for deck_id, deck in catalog.decks.items()
        for i, q in enumerate(deck.questions)
    ]
    cues = shape_cues(items)
    assert all(cue.excess_z <= Z_LIMIT for cue in cues), [(c.name, len(c.hits), c.expected) for c in cues]
    assert shape_failures(items) == [] and shape_warnings(items) == []


def _shape_deck(path: Path, cued: int) -> Path:
    """A deck of 12 questions whose right option carries the most punctuation in the first `cued` of them
    (in the others a wrong option carries more)."""
    import yaml

    questions = [
        {
            "id": f"shape-{i}",
            "type": "choice",
            "difficulty": 1,
            "tags": ["t"],
            "prompt": f"Which statement about item {i} holds?",
            "options": [
                {"text": f"Item {i}: one, two, three, four", "correct": True},
                {"text": f"Item {i}: a wrong statement here", "feedback": "No."},
                {
                    "text": f"Item {i}: another wrong statement, longer still"
                    + ("" if i < cued else ", and, more, so"),
                    "feedback": "No.",
                },
                {"text": f"Item {i}: a third wrong one", "feedback": "No."},
            ],
            "explanation": "e",
        }
        for i in range(12)
    ]
    path.write_text(yaml.safe_dump({"id": "shape", "title": "Shape", "topic": "t", "questions": questions}))
    return path


def _run_validate(deck: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizapp", "validate", str(deck)], capture_output=True, text=True, timeout=300
    )


def test_validate_refuses_a_deck_whose_right_option_always_has_the_most_punctuation(tmp_path: Path) -> None:
    out = _run_validate(_shape_deck(tmp_path / "shape.yaml", cued=12))
    assert out.returncode == 1, out.stdout + out.stderr
    refused = [line for line in out.stdout.splitlines() if "most punctuation" in line]
    assert len(refused) == 12 and all("as in 12 of 12" in line for line in refused)
    assert all("shape.yaml:" in line and "question 'shape-" in line for line in refused)


def test_validate_only_warns_about_a_small_decks_lucky_shape(tmp_path: Path) -> None:
    # 7 of 12 where chance gives 3 is 2.7 sd above: worth a warning, not below the refusal margin
    assert Z_LIMIT < (7 - 3) / 1.5 <= SHAPE_Z
    out = _run_validate(_shape_deck(tmp_path / "shape.yaml", cued=7))
    assert out.returncode == 0, out.stdout + out.stderr
    warned = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 7 and all("most punctuation, as in 7 of 12" in line for line in warned)
