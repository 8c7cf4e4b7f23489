"""Mock interview flows a user notices: the countdown runs on the app's clock, answers are saved without
feedback, time running out submits the open answer and shows the report, and the report reopens later."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import DataTable, Input, TextArea

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.content.units import to_display
from quizapp.interview.report import summary_line
from quizapp.store import list_interviews, load_interview, reviews_for
from quizapp.tui.app import QuizApp, make_app
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.interview import EndInterviewScreen, InterviewScreen
from quizapp.tui.screens.interview_history import InterviewHistoryScreen
from quizapp.tui.screens.interview_report import InterviewReportScreen, ReportItemView
from quizapp.tui.screens.interview_setup import InterviewSetupScreen
from tests.tui.helpers import NOW, SEED, loaded, press, until
from tests.tui.interview_helpers import Clock

SIZE = (80, 24)
TYPED_KINDS = ("numeric", "tensor", "shape")


def typed_tag(catalog: Catalog) -> str:
    """A tag whose questions all take a typed answer (numbers, tensor entries, shapes), at least three."""
    kinds: dict[str, list[str]] = {}
    for question in catalog.questions.values():
        for tag in question.tags:
            kinds.setdefault(tag, []).append(question.type)
    return next(t for t, k in sorted(kinds.items()) if len(k) >= 3 and set(k) <= set(TYPED_KINDS))


def wrong_or_partial(inst: Instance) -> str:
    """Something half-typed when time runs out: a misconception's value if the engine knows one."""
    if inst.derivation is not None:
        for m in inst.derivation.misconceptions:
            if m.value != inst.expected and isinstance(m.value, (int, float)):
                return repr(to_display(m.value, inst.unit))
    return "12"


async def start_interview(app: QuizApp, pilot: Pilot[None], tag: str, questions: int, minutes: int) -> None:
    await loaded(app, pilot)
    await press(pilot, "i")
    setup = app.screen
    assert isinstance(setup, InterviewSetupScreen)
    setup.query_one("#setup-questions", Input).value = str(questions)
    setup.query_one("#setup-minutes", Input).value = str(minutes)
    setup.query_one("#setup-tags", Input).value = tag
    await press(pilot, "ctrl+s")
    await pilot.pause()


async def wait_for(pilot: Pilot[None], screen_type: type, tries: int = 2400) -> None:
    """Lets the countdown tick (it fires every 0.25 s of real time) until `screen_type` is on top; the cap
    (at least two minutes) only stops a hang from running forever."""
    for _ in range(tries):
        if isinstance(pilot.app.screen, screen_type):
            await pilot.pause()  # let the new screen compose
            return
        await pilot.pause(0.05)
    raise AssertionError(f"{screen_type.__name__} never appeared; on screen: {pilot.app.screen!r}")


async def test_an_interview_that_runs_out_of_time_submits_the_open_answer_and_reopens(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    clock = Clock(NOW)
    app = new_app(now=clock)
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, typed_tag(catalog), questions=3, minutes=2)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        assert screen.sub_title.startswith("⏱ 2:00 left")
        store = app.backend.store  # type: ignore[union-attr]
        interview_id = screen.session.id

        # question 1, answered right after 30 s: saved at once, and nothing says whether it was right
        first = screen.session.current
        assert first is not None
        clock.advance(seconds=30)
        screen.query_one("#answer", Input).value = first.instance.expected_text()
        await press(pilot, "enter")
        await pilot.pause()
        saved = load_interview(store, interview_id).answers
        assert [(a.question_id, a.correct, a.seconds) for a in saved] == [
            (first.instance.question_id, True, 30.0)
        ]
        assert reviews_for(store, first.instance.question_id)[-1].mode == "interview"
        assert not screen.query("#feedback, #verdict, FeedbackPanel")
        for _ in range(2400):  # until the countdown has ticked; the cap only bounds a hang
            if "question 2 of 3" in screen.sub_title:
                break
            await pilot.pause(0.05)
        assert "1:30 left" in screen.sub_title and "question 2 of 3" in screen.sub_title

        # question 2: something is typed, then the clock passes the deadline
        second = screen.session.current
        assert second is not None
        typed = wrong_or_partial(second.instance)
        screen.query_one("#answer", Input).value = typed
        clock.advance(minutes=2)
        await wait_for(pilot, InterviewReportScreen)

        answers = load_interview(store, interview_id).answers
        assert [a.answer for a in answers] == [first.instance.expected_text(), typed]
        assert answers[1].seconds == 90.0  # counted up to the deadline, not past it
        report_screen = app.screen
        assert isinstance(report_screen, InterviewReportScreen)
        report = report_screen.report
        assert report.not_reached == 1 and report.correct == 1
        assert report_screen.query(".report-item").first().query("DerivationView")  # worked derivation shown
        assert "1/3 right" in str(report_screen.query_one("#report-score").render())
        await until(  # the first question at once, the others a frame each
            pilot,
            lambda: len(report_screen.query(".report-item")) == len(report.items),
            "every question in the report",
        )
        assert report_screen.query_one("#report-body").children[-1].id == "report-not-reached"
        views = report_screen.query(".report-item").results(ReportItemView)
        assert [v.item.number for v in views] == [item.number for item in report.items]

        # the report is saved: home, interview set-up, past interviews, Enter reopens it
        await press(pilot, "escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "i")
        await press(pilot, "ctrl+o")
        await pilot.pause()
        history = app.screen
        assert isinstance(history, InterviewHistoryScreen)
        assert history.query_one(DataTable).row_count == 1
        await press(pilot, "enter")
        await pilot.pause()
        reopened = app.screen
        assert isinstance(reopened, InterviewReportScreen)
        assert reopened.report.id == interview_id
        assert reopened.report.score_text == report.score_text
        assert [i.answer for i in reopened.report.items] == [i.answer for i in report.items]


async def test_skip_flag_and_ending_early_are_saved(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    clock = Clock(NOW)
    app = new_app(now=clock)
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, typed_tag(catalog), questions=3, minutes=10)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        await press(pilot, "ctrl+f")  # flag the first question ...
        assert "flagged" in str(screen.query_one("#interview-bar").render())
        clock.advance(seconds=12)
        await press(pilot, "ctrl+n")  # ... and skip it
        await pilot.pause()
        await press(pilot, "escape")
        await pilot.pause()
        assert isinstance(app.screen, EndInterviewScreen)
        await press(pilot, "n")  # keep going
        await pilot.pause()
        assert app.screen is screen
        await press(pilot, "escape", "y")
        await wait_for(pilot, InterviewReportScreen)
        store = app.backend.store  # type: ignore[union-attr]
        (summary,) = list_interviews(store)
        answers = load_interview(store, summary.id).answers
        assert [(a.skipped, a.flagged, a.seconds) for a in answers] == [
            (True, True, 12.0),
            (True, False, 0.0),
        ]
        assert summary.finished_at is not None

        # the list of past interviews is readable at 80x24: every cell in full, nothing cut off
        await press(pilot, "p")
        await pilot.pause()
        history = app.screen
        assert isinstance(history, InterviewHistoryScreen)
        table = history.query_one(DataTable)
        shown = "\n".join(str(line.text) for line in table.render_lines(table.region.reset_offset))
        for cell in summary_line(summary):
            assert cell in shown, (cell, shown)


async def test_the_bar_counts_a_skip_as_skipped_not_answered(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    app = new_app(now=Clock(NOW))
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, typed_tag(catalog), questions=3, minutes=10)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)

        def bar() -> str:
            return str(screen.query_one("#interview-bar").render())

        assert "0 answered" in bar() and "skipped" not in bar()
        await press(pilot, "ctrl+n")
        await pilot.pause()
        assert "Question 2 of 3" in bar() and "0 answered" in bar() and "1 skipped" in bar()
        asked = screen.session.current
        assert asked is not None
        screen.query_one(Input).value = wrong_or_partial(asked.instance)
        await press(pilot, "enter")
        await pilot.pause()
        assert "Question 3 of 3" in bar() and "1 answered" in bar() and "1 skipped" in bar()


async def test_the_report_says_a_missed_question_went_to_review(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    from textual.widgets import Static

    app = new_app(now=Clock(NOW))
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, typed_tag(catalog), questions=3, minutes=10)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        assert not screen.session.config.update_schedule and screen.session.config.misses_to_review
        await press(pilot, "ctrl+n")  # a miss: due for review at once, by default
        await press(pilot, "escape", "y")
        await wait_for(pilot, InterviewReportScreen)
        shown = str(app.screen.query_one("#report-score", Static).render())
        assert "missed are due for review now" in shown and "your review schedule is unchanged" not in shown


async def test_an_explain_answer_is_scored_point_by_point_in_the_report(tmp_path: Path) -> None:
    decks = load_catalog(
        [Path(__file__).with_name("interview_decks")], include_default=False, use_cache=False
    )
    clock = Clock(NOW)
    app = make_app(tmp_path / "p.db", now=clock, rng_seed=SEED, catalog=decks, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, "heads", questions=1, minutes=5)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        inst = screen.session.plan[0][1]
        assert inst.kind == "explain"
        screen.query_one("#explain-text", TextArea).text = "Each head has its own projections."
        clock.advance(seconds=80)
        await press(pilot, "ctrl+s")
        await wait_for(pilot, InterviewReportScreen)
        report = app.screen
        assert isinstance(report, InterviewReportScreen)
        (item,) = report.report.items
        # the core point is stated, the other two are not: partly right, and it counts in the score
        assert (item.outcome, item.answer, item.seconds) == (
            "partly",
            "Each head has its own projections.",
            80.0,
        )
        assert item.scored and report.report.scored == 1 and "to compare" not in report.report.score_text
        shown = " ".join(str(w.render()) for w in report.query(".item-points"))
        assert f"✓ 1. {inst.key_points[0]}" in shown and "“head has its own projections”" in shown
        assert f"· 2. {inst.key_points[1]}" in shown and f"· 3. {inst.key_points[2]}" in shown


async def test_an_explanation_that_states_a_misconception_is_wrong_in_the_report(tmp_path: Path) -> None:
    decks = load_catalog(
        [Path(__file__).with_name("interview_decks")], include_default=False, use_cache=False
    )
    app = make_app(tmp_path / "p.db", now=Clock(NOW), rng_seed=SEED, catalog=decks, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, "heads", questions=1, minutes=5)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        text = "Each head has its own projections, and more heads add more parameters."
        screen.query_one("#explain-text", TextArea).text = text
        await press(pilot, "ctrl+s")
        await wait_for(pilot, InterviewReportScreen)
        report = app.screen
        assert isinstance(report, InterviewReportScreen)
        (item,) = report.report.items
        assert item.reading is not None and [m.id for m in item.reading.misconceptions] == [
            "heads-add-parameters"
        ]
        shown = " ".join(str(w.render()) for w in report.query(".item-points"))
        assert "✗ 3." in shown and "Correction:" in shown


async def test_the_set_up_counts_the_questions_its_choices_allow(catalog: Catalog) -> None:
    """The count follows each change of the form (counted in a worker), and a tag no question has says so."""
    from quizapp.interview.setup import INTERVIEW_KINDS
    from tests.tui.helpers import text_of, until

    tag = typed_tag(catalog)
    expected = sum(1 for q in catalog.questions.values() if tag in q.tags and q.type in INTERVIEW_KINDS)
    assert expected >= 3
    app = make_app(catalog=catalog, now=NOW, rng_seed=SEED, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "i")
        setup = app.screen
        assert isinstance(setup, InterviewSetupScreen)
        setup.query_one("#setup-tags", Input).value = tag
        await until(
            pilot, lambda: f"{expected} questions match" in text_of(app, "#setup-status"), "the count"
        )
        setup.query_one("#setup-tags", Input).value = "no-such-tag"
        await until(
            pilot, lambda: "No question has the tag(s) no-such-tag" in text_of(app, "#setup-status"), "why"
        )
