"""Study screen flows a user notices: right and wrong numeric answers with their diagnosis, hints,
choice questions, and answers that survive Escape."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input, OptionList, SelectionList, TextArea

from quizapp.content.catalog import Catalog
from quizapp.content.instance import Instance
from quizapp.content.units import to_display
from quizapp.grading.grade import grade
from quizapp.store import review_count, reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.answer import answer_hint
from tests.tui.helpers import SIZE, current, drill, loaded, press, question_ids, settled, text_of


def _has_misconception(inst: Instance) -> bool:
    return bool(inst.derivation and any(m.value != inst.expected for m in inst.derivation.misconceptions))


def _misconception_answer(inst: Instance) -> str:
    """A wrong answer the engine itself predicts: a misconception's value, in the unit the prompt asks."""
    assert inst.derivation is not None
    wrong = next(m for m in inst.derivation.misconceptions if m.value != inst.expected)
    assert isinstance(wrong.value, (int, float))
    return repr(to_display(wrong.value, inst.unit))


async def _answer(screen: StudyScreen, pilot: Pilot[None], text: str) -> None:
    field = screen.query_one("#answer", Input)
    field.value = text
    await press(pilot, "enter")


async def test_numeric_right_then_wrong_shows_the_diagnosis(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric", _has_misconception)[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        first = current(screen)
        await _answer(screen, pilot, first.expected_text())
        assert "Correct" in text_of(app, "#verdict")
        assert app.screen.query("#derivation")

        await press(pilot, "enter")  # next card: the same question with fresh numbers
        await pilot.pause()
        second = current(screen)
        assert _has_misconception(second)
        wrong = _misconception_answer(second)
        expected_diagnosis = grade(second, wrong).diagnosis
        await _answer(screen, pilot, wrong)
        assert "Not quite" in text_of(app, "#verdict")
        assert expected_diagnosis and expected_diagnosis in text_of(app, "#diagnosis")
        saved = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert [r.correct for r in saved] == [True, False]


async def test_a_slow_disk_never_freezes_the_screen_and_the_answer_is_saved_once_it_is_free(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        store = app.backend.store  # type: ignore[union-attr]
        screen.query_one("#answer", Input).value = current(screen).expected_text()
        with store.transaction():  # the disk is busy: this thread holds the write lock
            await pilot.press("enter")
            for _ in range(5):
                await pilot.pause(0.02)  # the event loop keeps running while the save waits
            assert not screen.query_one("#feedback").display
            await pilot.press("enter", "ctrl+z")  # keys that act on the card wait for the save
            assert review_count(store) == 0
        await settled(pilot)
        assert "Correct" in text_of(app, "#verdict")
        assert review_count(store) == 1 and current(screen).question_id == qid


async def test_two_hint_rungs_show_the_formulas_then_the_hinge_and_the_rating_drops_to_hard(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        inst = current(screen)
        assert inst.derivation is not None
        await press(pilot, "h")
        await pilot.pause()
        assert inst.derivation.steps[0].label in text_of(app, "#hint-box")
        assert "Hint 1/" in text_of(app, "#hint-box") and "best rating now Good" in text_of(app, "#hint-box")
        await press(pilot, "ctrl+g")
        await pilot.pause()
        assert "Hint 2/" in text_of(app, "#hint-box") and "Hint 1/" in text_of(app, "#hint-box")
        assert screen.query_one("#answer", Input).value == ""  # h gave a hint, it did not type
        await _answer(screen, pilot, inst.expected_text())
        assert "rated Hard" in text_of(app, "#verdict") and "2 hints: at most Hard" in text_of(
            app, "#verdict"
        )


async def test_a_choice_question_answered_by_letter_then_wrong_shows_the_option_feedback(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "choice", lambda i: not i.multiple)[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        inst = current(screen)
        right = next(o for o in inst.options if o.correct)
        await press(pilot, right.key, "enter")
        await pilot.pause()
        assert "Correct" in text_of(app, "#verdict")

        await press(pilot, "enter")
        await pilot.pause()
        inst = current(screen)
        wrong = next(o for o in inst.options if not o.correct)
        assert isinstance(screen.query_one("#answer"), OptionList)
        await press(pilot, wrong.key, "enter")
        await pilot.pause()
        assert "Not quite" in text_of(app, "#verdict")
        shown = " ".join(str(w.render()) for w in app.screen.query(".option-feedback"))
        assert wrong.feedback.split()[0] in shown


async def test_an_unreadable_answer_says_what_to_type_and_keeps_the_input(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        await _answer(screen, pilot, "a lot of bytes??")
        assert app.screen.query_one("#answer-error").display
        assert not app.screen.query_one("#feedback").display  # built with the question, still hidden
        assert review_count(app.backend.store) == 0  # type: ignore[union-attr]
        screen.query_one("#answer", Input).value = ""  # emptied: the message is about nothing any more
        await settled(pilot)
        assert not app.screen.query_one("#answer-error").display


async def test_escape_goes_home_and_keeps_every_answer(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        inst = current(screen)
        if inst.kind == "flashcard":
            await press(pilot, "space", "3")
        elif inst.kind == "choice":
            field = screen.query_one("#answer")
            if inst.multiple:
                for option in inst.options:
                    if option.correct:
                        await press(pilot, option.key)
            else:
                await press(pilot, next(o.key for o in inst.options if o.correct))
            assert field.has_focus
            await press(pilot, "enter")
        elif inst.kind == "explain":
            screen.query_one("#explain-text", TextArea).text = "Sharing K and V shrinks the cache."
            await press(pilot, "ctrl+s")
        else:
            await _answer(screen, pilot, inst.expected_text())
        await pilot.pause()
        await press(pilot, "escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert review_count(app.backend.store) >= 1  # type: ignore[union-attr]
        assert "1 answered today" in text_of(app, "#home-totals")


async def test_study_answer_shows_each_interval_and_a_number_key_rates_it_moves_on_and_ctrl_z_takes_it_back(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        inst = current(screen)
        await _answer(screen, pilot, inst.expected_text())
        choices = text_of(app, "#rating-choices")
        assert "1 Again" in choices and "4 Easy" in choices and "Suggested Good: right in" in choices
        saved_in = text_of(app, "#verdict").split("next review in ")[1].split(" ")[0]
        assert f" {saved_in}]" in choices  # the rating saved shows the interval saved, as the verdict does
        assert app.backend is not None
        store = app.backend.store
        suggested = reviews_for(store, qid)[0].rating
        assert suggested >= 3

        await press(pilot, "1")  # the user knows they guessed: Again, saved at once, and on to the next
        await pilot.pause()
        assert [r.rating for r in reviews_for(store, qid)] == [1]
        assert screen.query("#session-done")  # the only card is due again in a minute, not now

        await press(pilot, "ctrl+z")  # and takes it back: no review, the same question to answer again
        await pilot.pause()
        assert review_count(store) == 0
        assert current(screen).question_id == qid and current(screen).seed == inst.seed
        assert screen.query_one("#answer", Input).has_focus


async def test_i_dont_know_shows_the_answer_and_saves_again(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        inst = current(screen)
        await press(pilot, "ctrl+o")
        await pilot.pause()
        assert "Not quite" in text_of(app, "#verdict") and "rated Again" in text_of(app, "#verdict")
        assert inst.expected_text() in text_of(app, "#verdict-message")
        assert screen.query("#derivation")
        assert app.backend is not None
        assert [r.answer for r in reviews_for(app.backend.store, qid)] == ["I don't know"]


async def test_escape_with_a_typed_explanation_asks_before_leaving(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        screen.query_one("#explain-text", TextArea).text = "Heads look at different subspaces."
        await pilot.pause()
        await press(pilot, "escape")
        await pilot.pause()
        assert app.screen is screen, "the typed explanation would be lost: Escape asks first"
        assert any("not submitted" in str(n.message) for n in app._notifications)
        await press(pilot, "escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert app.backend is not None and review_count(app.backend.store) == 0


async def test_escape_on_an_empty_answer_leaves_at_once(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await drill(app, pilot, qid)
        await press(pilot, "escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_long_question_opens_at_its_input_and_typing_shows_it_after_scrolling_up(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    typed = [q for q in catalog.questions.values() if q.type in ("numeric", "tensor", "shape")]
    longest = max(typed, key=lambda q: (q.prompt.count("\n"), q.id))
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, longest.id)
        body = screen.body
        field = screen.query_one("#answer", Input)
        # Taller than 80x24: it opens at its end (the sentence that asks, and the input), not its top.
        assert field.has_focus and body.scroll_y == body.max_scroll_y > 0
        assert body.region.contains_region(field.region)
        await press(pilot, "pageup")  # to the first line, the input below the bottom edge
        assert body.scroll_y == 0 and not body.region.contains_region(field.region)
        await press(pilot, "1", "2")
        await pilot.pause()
        assert field.value == "12" and body.scroll_y > 0
        assert body.region.contains_region(field.region)


async def test_the_bar_counts_what_is_left_in_a_worker_after_each_answer(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen) and screen.session.mode == "study"
        before = screen.session.progress().left
        assert before is not None and f"{before} left" in text_of(app, "#session-bar")
        await press(pilot, "ctrl+o")  # "I don't know": saved as Again, due again in minutes, not now
        await pilot.pause()
        await screen.workers.wait_for_complete()
        await pilot.pause()
        bar = text_of(app, "#session-bar")
        assert "1 done (0 right)" in bar and f"{before - 1} left" in bar, bar


async def test_a_select_all_option_cut_by_the_width_is_shown_whole_when_highlighted(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    def has_a_long_option(inst: Instance) -> bool:
        return inst.multiple and any(len(o.text) > 70 for o in inst.options)

    qid = next(q for q in question_ids(catalog, "choice", has_a_long_option))
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, qid)
        options = current(screen).options
        long_index = next(i for i, o in enumerate(options) if len(o.text) > 70)
        short_index = next(i for i, o in enumerate(options) if len(o.text) < 40)
        answer = screen.query_one("#answer", OptionList)
        answer.highlighted = long_index
        await settled(pilot)
        long_option = options[long_index]
        assert f"{long_option.key}) {long_option.text}" in text_of(app, "#answer-hint")
        answer.highlighted = short_index
        await settled(pilot)
        assert long_option.text not in text_of(app, "#answer-hint")
        assert "Space or a letter ticks an option" in text_of(app, "#answer-hint")


async def test_a_ticked_select_all_option_reads_differently_from_an_unticked_one_without_colour(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "choice", lambda inst: inst.multiple and len(inst.options) >= 3)[0]
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, qid)
        keys = [o.key for o in current(screen).options]
        answer = screen.query_one("#answer", SelectionList)

        def box(line: int) -> str:
            """The characters before the option's letter, as drawn (the text alone, no colour)."""
            text = answer.render_line(line).text
            return text[: text.index(f"{keys[line]}) ")]

        await press(pilot, "space", "down", "down", "space")  # tick the first and third options
        assert answer.selected == [keys[0], keys[2]]
        ticked, unticked = box(0), box(1)
        assert ticked.strip() and ticked != unticked, "a ticked option looks like an unticked one"
        assert box(2) == ticked  # the highlight does not change what the box says
        await press(pilot, keys[1])  # a letter ticks its option too
        assert box(1) == ticked
        await press(pilot, keys[0])  # and unticks it
        assert answer.selected == [keys[2], keys[1]] and box(0) == unticked


async def test_a_select_all_question_whose_options_fit_opens_with_the_reminder_alone(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    def all_fit(inst: Instance) -> bool:
        return inst.multiple and all(len(o.text) < 50 for o in inst.options)

    qid = question_ids(catalog, "choice", all_fit)[0]
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, qid)
        await settled(pilot)  # the first option is highlighted before the list is laid out
        assert text_of(app, "#answer-hint") == answer_hint(current(screen)).plain
