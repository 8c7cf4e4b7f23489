"""The first answer of a day, which takes the day's backup copy: its feedback shows, and the copy is made
in a thread of its own (never on the answer's path), whole, of the progress before that answer, and in
place once the app has closed."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from textual.widgets import Input

from quizapp.content.catalog import Catalog
from quizapp.paths import DB_FILENAME
from quizapp.store import QuestionRef, open_store
from quizapp.store.reviews import review_count
from quizapp.store.rolling_backup import backup_files, backup_path
from quizapp.study import record_review
from quizapp.tui.app import make_app
from tests.tui.helpers import NOW, SEED, current, drill, question_ids, settled, text_of

SIZE = (100, 32)


async def test_the_answer_that_takes_the_days_backup_shows_its_feedback_and_the_copy_is_whole(
    catalog: Catalog, isolated_home: Path
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    with open_store(None, now=NOW) as earlier:  # yesterday's progress, in the default database
        record_review(
            earlier,
            QuestionRef(qid, catalog.deck_of(qid).id),
            seed=1,
            answer="1",
            correct=False,
            rating=1,
            duration_ms=900,
            now=NOW - timedelta(days=1),
        )
    app = make_app(now=NOW, rng_seed=SEED, catalog=catalog, cursor_blink=False)  # the default database
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        store = app.backend.store  # type: ignore[union-attr]
        assert store.backup is not None, "the default database is backed up daily"
        screen.query_one("#answer", Input).value = current(screen).expected_text()
        await pilot.press("enter")
        await settled(pilot)
        assert "Correct" in text_of(app, "#verdict")
        assert review_count(store) == 2, "the answer is saved"
        copying = store.backup._copying
        assert copying is not None and copying.name == "daily backup", "the copy ran in its own thread"
    folder = isolated_home / "backups"
    copy = backup_path(folder, NOW.astimezone().date())
    assert [p for _, p in backup_files(folder)] == [copy], "in place once the app has closed"
    assert sorted(p.name for p in folder.iterdir()) == [copy.name], "no partial file left"
    with open_store(copy, now=NOW) as restored:
        assert restored.integrity_ok() and review_count(restored) == 1, "the progress before the answer"
    assert (isolated_home / DB_FILENAME).exists()
