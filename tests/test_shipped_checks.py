"""The bundled decks' checked outcome ships with the package: a first start on a fresh home checks no
bundled deck, yet shows exactly the questions the checks passed; the shipped file is regenerated whenever
content/ (or a check) changes its outcome; and a stale or damaged file is never trusted."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from quizapp import paths
from quizapp.content import deck_cache, shipped_checks
from quizapp.content import load as loader
from quizapp.content.catalog import load_catalog
from quizapp.content.deck_files import find_deck_files
from quizapp.content.deck_validation import validate_deck
from quizapp.content.memos import MEMOS

REGENERATE = "python -m quizapp.content.shipped_checks"


def _bundled() -> list[tuple[Path, bytes, str]]:
    files, _ = find_deck_files([paths.bundled_content_dir()])
    return [(f, raw := f.read_bytes(), hashlib.sha256(raw).hexdigest()) for f in files]


def test_the_shipped_checks_match_content_as_checked_now() -> None:
    text, failed = shipped_checks.build()
    assert not failed, "a bundled deck fails its checks:\n" + "\n".join(failed)
    shipped = shipped_checks.SHIPPED.read_text(encoding="utf-8")
    assert text == shipped, f"{shipped_checks.SHIPPED.name} is stale: run `{REGENERATE}` and commit it"


def test_the_shipped_file_stays_small() -> None:
    size = shipped_checks.SHIPPED.stat().st_size
    content = sum(len(raw) for _, raw, _ in _bundled())
    assert size < content // 10, f"{size} bytes shipped for {content} bytes of decks"


def test_a_first_start_checks_no_bundled_deck_and_the_second_reads_its_own_cache() -> None:
    loader.reset_memos()
    catalog = load_catalog()
    assert not catalog.problems and len(catalog.decks) == len(_bundled())
    assert not MEMOS.passed and not MEMOS.new_passed, f"a bundled deck was checked: run `{REGENERATE}`"
    deck_cache.finish_cache_writes()
    for _, _, digest in _bundled():  # the first start left the usual cache for the second
        cached = deck_cache.read_cache(deck_cache.cache_key(digest))
        assert cached is not None and cached.deck is not None


def test_shipped_questions_are_the_ones_the_checks_passed() -> None:
    for file, raw, digest in _bundled():
        found = shipped_checks.lookup(file, digest, raw)
        assert found is not None, f"{file.name} is not covered: run `{REGENERATE}`"
        shipped = found[0].deck
        checked, _ = validate_deck(raw)
        assert shipped is not None and checked.deck is not None
        assert shipped.ids == checked.deck.ids
        assert (shipped.title, shipped.after, shipped.tags) == (
            checked.deck.title,
            checked.deck.after,
            checked.deck.tags,
        )
        assert shipped.to_deck().questions == checked.deck.to_deck().questions, file.name


def _edit_title(text: str) -> str:
    return text.replace('"title":"', '"title":"X', 1)


def _swap_hashes(text: str) -> str:
    stamp, first, second, *rest = text.splitlines()
    a, b = first.split(" ", 2), second.split(" ", 2)
    return "\n".join([stamp, f"{a[0]} {b[1]} {a[2]}", f"{b[0]} {a[1]} {b[2]}", *rest]) + "\n"


def _other_version(text: str) -> str:
    stamp = shipped_checks.stamp()
    return text.replace(stamp, stamp.replace('"version": "', '"version": "9'), 1)


DAMAGES: dict[str, Callable[[str], str]] = {
    "another app version": _other_version,
    "empty": lambda t: "",
    "not text": lambda t: "\udcff\x00" * 10,
    "a huge file": lambda t: t + "x" * shipped_checks.MAX_BYTES,
    "a line not of this format": lambda t: t + "not a deck line\n",
}
"""Damages after which no entry is trusted."""

PARTIAL: dict[str, Callable[[str], str]] = {
    "cut off mid-line": lambda t: t[: len(t) // 2],
    "a header edited": _edit_title,
    "payload hashes swapped between decks": _swap_hashes,
}
"""Damages to some entries: those decks are checked, the others still come from intact entries."""


def _write(tmp_path: Path, text: str) -> Path:
    damaged = tmp_path / "shipped.txt"
    damaged.write_bytes(text.encode("utf-8", "surrogateescape"))
    return damaged


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_stale_or_damaged_shipped_file_is_never_trusted(damage: str, tmp_path: Path) -> None:
    damaged = _write(tmp_path, DAMAGES[damage](shipped_checks.SHIPPED.read_text(encoding="utf-8")))
    for file, raw, digest in _bundled():
        assert shipped_checks.lookup(file, digest, raw, damaged) is None, file.name


@pytest.mark.parametrize("damage", list(PARTIAL))
def test_a_damaged_entry_means_checking_that_deck_never_other_questions(damage: str, tmp_path: Path) -> None:
    damaged = _write(tmp_path, PARTIAL[damage](shipped_checks.SHIPPED.read_text(encoding="utf-8")))
    refused = 0
    for file, raw, digest in _bundled():
        found = shipped_checks.lookup(file, digest, raw, damaged)
        if found is None:
            refused += 1
            continue
        intact = shipped_checks.lookup(file, digest, raw)
        assert intact is not None and found[1] == intact[1], file.name
    assert refused >= 1


def test_a_missing_shipped_file_means_checking(tmp_path: Path) -> None:
    file, raw, digest = _bundled()[0]
    assert shipped_checks.lookup(file, digest, raw, tmp_path / "absent.txt") is None


def test_an_edited_bundled_deck_is_checked_not_looked_up() -> None:
    file, raw, _ = _bundled()[0]
    edited = raw.replace(b"title: ", b"title: Edited ", 1)
    assert shipped_checks.lookup(file, hashlib.sha256(edited).hexdigest(), edited) is None


def test_a_users_copy_of_a_bundled_deck_is_checked_as_any_user_deck(isolated_home: Path) -> None:
    file, raw, digest = _bundled()[0]
    copy = paths.user_decks_dir() / file.name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(raw)
    assert shipped_checks.lookup(copy, digest, raw) is None


def test_the_wheel_check_lists_nothing_for_a_fresh_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert shipped_checks.main(["--check"]) == 0
    assert capsys.readouterr().out.startswith("0 bundled decks not covered")
