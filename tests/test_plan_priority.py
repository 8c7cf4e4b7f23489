"""A short runway spends its minutes where the interview is (issue 37, item 1): four days at an hour a day
cover every deck, fit a case study a day, lead with the decks interviewers weigh most, open the
prerequisite gates, keep near-duplicate templates apart, and `quizapp plan` shows today's queue in the
very order a study session asks it. Checked on the real bundled decks; expectations are computed."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from statistics import median

import pytest

from quizapp.cli import main
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.store import open_store, save_setting
from quizapp.study import QuestionSet
from quizapp.study.plan import Plan
from quizapp.study.priority import (
    CASE_STUDY_KIND,
    INTERVIEW_WEIGHTS,
    SPREAD,
    Candidate,
    introduction_order,
    keep_rank,
    spread,
)
from quizapp.study.session import StudySession
from quizapp.workspace import Workspace

NOW = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
DAYS = 4
MINUTES = 60


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_catalog(use_cache=False)
    assert loaded.questions and not loaded.skipped, f"the bundled bank did not load: {loaded.skipped[:1]}"
    return loaded


@pytest.fixture
def workspace(catalog: Catalog) -> Iterator[Workspace]:
    with open_store(None, now=NOW) as store:
        save_setting(store, "interview_date", (NOW + timedelta(days=DAYS)).date().isoformat())
        save_setting(store, "daily_minutes", MINUTES)
        yield Workspace(store=store, preloaded=catalog)


def _plan(ws: Workspace) -> Plan:
    plan = ws.plan(NOW)
    assert plan is not None and plan.days_left == DAYS and plan.left_out, "the hour leaves things out"
    return plan


def _deck_of(catalog: Catalog) -> dict[str, str]:
    return {q: d.id for d in catalog.deck_refs() for q in d.question_ids}


def test_four_days_at_an_hour_cover_every_deck_and_fit_a_case_study_each_day(
    workspace: Workspace, catalog: Catalog
) -> None:
    plan, kinds, deck_of = _plan(workspace), workspace.plan_questions, _deck_of(catalog)
    assert plan.minutes_per_day <= MINUTES
    decks = {d.id for d in catalog.deck_refs() if d.question_ids}
    assert {deck_of[q] for q in plan.order} == decks, "some of every deck"
    per_day = plan.new_per_day
    assert per_day * DAYS >= len(plan.order)
    for day in range(DAYS):
        share = plan.order[day * per_day : (day + 1) * per_day]
        assert any(kinds[q].kind == CASE_STUDY_KIND for q in share), f"no case study on day {day + 1}"
    assert any(kinds[q].difficulty == 3 for q in plan.order), "the advanced questions are not all dropped"


def test_the_decks_an_interviewer_weighs_most_keep_more_than_the_others(
    workspace: Workspace, catalog: Catalog
) -> None:
    plan, deck_of = _plan(workspace), _deck_of(catalog)
    kept = Counter(deck_of[q] for q in plan.order)
    others = [n for d, n in kept.items() if d not in INTERVIEW_WEIGHTS]
    for deck in INTERVIEW_WEIGHTS:
        assert kept[deck] > median(others), (deck, kept)


def test_day_ones_first_forty_questions_span_twelve_decks_with_the_gates_open(
    workspace: Workspace, catalog: Catalog
) -> None:
    plan, deck_of = _plan(workspace), _deck_of(catalog)
    queue = StudySession.today_queue(
        catalog, workspace.store, QuestionSet.from_catalog(catalog), now=NOW,
        plan_questions=workspace.plan_questions, plan=plan,
    )  # fmt: skip
    assert queue == plan.order[: plan.new_per_day], "nothing is due yet: today is the plan's first share"
    assert len({deck_of[q] for q in queue[:40]}) >= 12
    assert len({deck_of[q] for q in plan.order[:40]}) >= 12
    decks = {d.id for d in catalog.deck_refs() if d.question_ids}
    gated = {d for d in decks if catalog.decks[d].after}
    assert "flash-attention" in gated and "flash-attention" in {deck_of[q] for q in queue}
    # gates open: every deck, gated or not, starts within the first share of one question a deck (plus
    # the case studies placed one a day and the near-duplicates set apart)
    first_round = plan.order[: len(decks) + DAYS + SPREAD]
    assert {deck_of[q] for q in first_round} == decks


def test_near_duplicate_templates_are_introduced_apart(workspace: Workspace) -> None:
    plan, kinds = _plan(workspace), workspace.plan_questions
    families = [kinds[q].family for q in plan.order]
    close = [
        (plan.order[i], plan.order[j])
        for i in range(len(families))
        for j in range(i + 1, min(i + SPREAD, len(families)))
        if families[i] and families[i] == families[j]
    ]
    assert not close
    assert any(n > 1 for n in Counter(f for f in families if f).values()), "the check had near-duplicates"


def test_what_the_hour_leaves_out_says_why(workspace: Workspace) -> None:
    plan, kinds = _plan(workspace), workspace.plan_questions
    reasons = [item.reason for item in plan.left_out]
    assert all("no time for it in 60 min a day" in r for r in reasons)
    new = [r for r in reasons if r.startswith("new")]
    assert new and all("yields more in an interview" in r for r in new)
    left = {item.id for item in plan.left_out}
    assert not left & set(plan.order) and len(left) + len(plan.order) == len(kinds)


def test_a_study_session_asks_the_plans_queue_in_that_order(workspace: Workspace, catalog: Catalog) -> None:
    plan = _plan(workspace)
    questions = QuestionSet.from_catalog(catalog)
    queue = StudySession.today_queue(
        catalog, workspace.store, questions, now=NOW, plan_questions=workspace.plan_questions, plan=plan
    )
    session = StudySession.start(
        catalog, workspace.store, questions, mode="study", clock=lambda: NOW, rng=random.Random(3),
        plan_questions=workspace.plan_questions,  # the plan computed here, as app.py starts study
    )  # fmt: skip
    asked: list[str] = []
    while (card := session.current) is not None and len(asked) < 12:
        asked.append(card.instance.question_id)
        assert session.queue()[0] == asked[-1]
        session.dont_know()  # saved as Again: back in a minute, and the clock stands still
        session.advance()
    assert asked == list(queue[:12])


def test_cli_plan_json_lists_todays_queue(capsys: pytest.CaptureFixture[str]) -> None:
    day = (datetime.now().astimezone().date() + timedelta(days=DAYS)).isoformat()
    assert main(["plan", "--date", day, "--minutes", str(MINUTES), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["queue"] and doc["queue"] == doc["order"][: doc["new_per_day"]]
    assert main(["plan"]) == 0
    text = capsys.readouterr().out
    assert "Today, in the order study asks them" in text and doc["queue"][0] in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_near_duplicates_wait_only_while_something_else_can_go() -> None:
    items = ["a1", "a2", "a3", "b1", "c1", "d1"]
    out = spread(items, lambda s: s[0] if s[0] != "d" else "", 3)
    assert sorted(out) == sorted(items) and out[:4] == ["a1", "b1", "c1", "d1"]
    assert spread(["a1", "a2"], lambda s: s[0], 3) == ["a1", "a2"], "nothing else: they go anyway"


def test_a_budget_too_small_for_a_case_study_keeps_the_basics_instead() -> None:
    cands = [Candidate(f"case{i}", "cases", 3, CASE_STUDY_KIND) for i in range(3)]
    cands += [Candidate(f"x{i}", f"deck{i}", 1, "choice") for i in range(3)]
    costs = [1800.0] * 3 + [100.0] * 3
    roomy = keep_rank(cands, seed=0, days=3, costs=costs, budget_seconds=3 * 3600)
    assert {cands[i].question_id for i in roomy[:6]} == {c.question_id for c in cands}
    tight = keep_rank(cands, seed=0, days=3, costs=costs, budget_seconds=3 * 600)
    assert [cands[i].kind for i in tight[:3]] == ["choice"] * 3
    order = introduction_order([cands[i] for i in roomy], days=3, seed=0, after={})
    assert [q.startswith("case") for q in order] == [False, True] * 3, "one case a day, after a warm-up"
