"""What a finished study session says comes back (issue 37, item 4), and the QUIZAPP_TODAY clock (item 9):
counted from a real store at a given `now`, and the `quizapp` command run with the variable set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.config import system_now
from quizapp.store import QuestionRef, open_store
from quizapp.store.buried import bury
from quizapp.study import make_scheduler, record_review
from quizapp.study.coming_back import ComingBack, coming_back, in_time
from quizapp.tui.backend import AppConfig

NOW = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)


def _answer(store: object, qid: str, rating: int, when: datetime) -> datetime:
    """Answers `qid` (deck "d") with `rating` at `when`; returns when it is due next."""
    outcome = record_review(
        store,  # type: ignore[arg-type]
        QuestionRef(qid, "d"),
        seed=1,
        answer="x",
        correct=rating > 1,
        rating=rating,
        duration_ms=1000,
        now=when,
        mode="study",
        scheduler=make_scheduler(fuzzing=False),
    )
    assert outcome.card.due is not None
    return outcome.card.due


def test_failed_cards_are_counted_with_the_first_and_last_time_they_come_back(tmp_path: Path) -> None:
    with open_store(tmp_path / "p.db", now=NOW) as store:
        first = _answer(store, "q1", 1, NOW - timedelta(minutes=5))  # Again: back in a minute
        last = _answer(store, "q2", 1, NOW)
        _answer(store, "q3", 1, NOW)  # buried today: it comes back tomorrow, not in this count
        bury(store, "q3", NOW.date())
        _answer(store, "other", 1, NOW)  # not one of this session's questions
        later = coming_back(store, {"q1", "q2", "q3"}, now=NOW - timedelta(minutes=4, seconds=30))
    assert (later.later_today, later.first, later.last) == (2, first, last)
    assert first < last and later.next_due is None
    assert not later.ready(first - timedelta(seconds=1)) and later.ready(first)


def test_with_nothing_left_today_the_next_due_card_is_named(tmp_path: Path) -> None:
    with open_store(tmp_path / "p.db", now=NOW) as store:
        due = _answer(store, "q1", 4, NOW)  # Easy: days away
        later = coming_back(store, {"q1"}, now=NOW)
        nothing = coming_back(store, {"never-seen"}, now=NOW)
    assert later == ComingBack(NOW, next_due=due) and not later.ready(due + timedelta(days=9))
    assert "Nothing more is due today. The next card is due " in later.summary()
    assert f"at {due:%H:%M}" in later.summary()
    assert nothing == ComingBack(NOW) and nothing.summary() == "" and nothing.countdown(NOW) == ""


def test_the_end_of_session_sentences_say_how_many_when_and_in_how_long() -> None:
    one = ComingBack(NOW, 1, NOW + timedelta(seconds=61), NOW + timedelta(seconds=61))
    assert one.summary() == "1 card comes back later today, at 09:31 (in 2 min)."
    assert one.countdown(NOW) == "1 card comes back in 1:01 (at 09:31)"
    assert one.countdown(NOW + timedelta(minutes=5)) == "1 card comes back in 0:00 (at 09:31)"
    many = ComingBack(NOW, 25, NOW + timedelta(minutes=1), NOW + timedelta(minutes=10))
    assert many.summary() == (
        "25 cards come back later today: the first at 09:31 (in 1 min), the last at 09:40 (in 10 min)."
    )
    tomorrow = ComingBack(NOW, next_due=NOW + timedelta(hours=23))
    assert (
        tomorrow.summary() == "Nothing more is due today. The next card is due tomorrow at 08:30 (in 23 h)."
    )
    assert "on Sat 8 Mar at 09:30 (in 5 days)" in ComingBack(NOW, next_due=NOW + timedelta(days=5)).summary()
    assert [in_time(timedelta(seconds=s)) for s in (0, 59, 3600, 5400)] == [
        "in 1 min",
        "in 1 min",
        "in 1 h",
        "in 1 h 30 min",
    ]


def test_quizapp_today_moves_the_plans_days_left(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "p.db")
    monkeypatch.setenv("QUIZAPP_TODAY", "2030-01-01")
    assert main(["plan", "--db", db, "--date", "2030-01-11"]) == 0
    assert "in 10 days" in capsys.readouterr().out
    monkeypatch.setenv("QUIZAPP_TODAY", "2030-01-08")
    assert main(["plan", "--db", db]) == 0
    assert "Interview on Fri 11 Jan 2030, in 3 days." in capsys.readouterr().out
    assert system_now().date().isoformat() == "2030-01-08"
    assert AppConfig().now().date().isoformat() == "2030-01-08"  # the app's clock, when none is injected


@pytest.mark.parametrize("value", ["2030-02-30", "tomorrow", "20300101", "0001-01-01", "2030-1-1"])
def test_a_malformed_quizapp_today_is_a_clear_message_and_exit_2(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("QUIZAPP_TODAY", value)
    assert main(["plan", "--db", str(tmp_path / "p.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"quizapp: QUIZAPP_TODAY={value!r} is not a day: write it as YYYY-MM-DD")
    assert "Traceback" not in err and not (tmp_path / "p.db").exists()
