"""The deck list a start leaves for the next one's first frame: what is written is read back under the same
deck folders only, and a file that is not what the app wrote (any bytes at all) reads as no list."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.remembered_decks import (
    FILE_NAME,
    MAX_BYTES,
    MAX_DECKS,
    MAX_TITLE,
    RememberedDeck,
    remember_decks,
    remembered_decks,
)
from quizapp.terminal_text import terminal_text

KEY = ("0.1.0", "/bundled", "/home/me/decks")
DECKS = Path(__file__).parent / "tui" / "decks"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_catalog([DECKS], include_default=False, use_cache=False)
    assert len(loaded.deck_refs()) >= 2 and not loaded.skipped
    return loaded


def _decks(catalog: Catalog) -> tuple[RememberedDeck, ...]:
    return tuple(RememberedDeck(d.id, d.title, len(d.question_ids)) for d in catalog.deck_refs())


def test_the_decks_come_back_under_the_same_folders_only(catalog: Catalog, tmp_path: Path) -> None:
    decks = _decks(catalog)
    remember_decks(KEY, decks, tmp_path)
    assert remembered_decks(KEY, tmp_path) == decks
    assert remembered_decks((*KEY, "/also/these"), tmp_path) == ()  # `--decks` for one run: not these
    assert remembered_decks(("0.2.0", *KEY[1:]), tmp_path) == ()  # another version's bundled decks
    assert remembered_decks(KEY, tmp_path / "elsewhere") == ()


def test_an_unchanged_list_is_not_written_again(catalog: Catalog, tmp_path: Path) -> None:
    decks = _decks(catalog)
    remember_decks(KEY, decks, tmp_path)
    target = tmp_path / FILE_NAME
    before = target.stat().st_mtime_ns
    target.touch()
    stamped = target.stat().st_mtime_ns
    remember_decks(KEY, decks, tmp_path)
    assert target.stat().st_mtime_ns == stamped >= before
    remember_decks(KEY, decks[1:], tmp_path)  # a deck left: written
    assert remembered_decks(KEY, tmp_path) == decks[1:]


def test_what_the_reader_refuses_is_never_written(tmp_path: Path) -> None:
    """Too many decks, an empty or overlong id, a title past MAX_TITLE: the file keeps what the reader
    accepts, so it is read back rather than written again at every start."""
    many = [RememberedDeck(f"d{i}", f"Deck {i}", i) for i in range(MAX_DECKS + 20)]
    odd = [RememberedDeck("", "no id", 1), RememberedDeck("x" * 5000, "long id", 2)]
    remember_decks(KEY, [*odd, *many], tmp_path)
    assert remembered_decks(KEY, tmp_path) == tuple(many[:MAX_DECKS])
    wide = [RememberedDeck(f"d{i}", "𝑄𝐾𝑉" * 200, 1) for i in range(MAX_DECKS)]  # 4-byte characters
    remember_decks(KEY, wide[:50], tmp_path)
    cut = tuple(RememberedDeck(d.id, d.title[:MAX_TITLE], 1) for d in wide[:50])
    assert remembered_decks(KEY, tmp_path) == cut
    remember_decks(KEY, wide, tmp_path)  # 500 of them: past MAX_BYTES in UTF-8, so not written
    assert remembered_decks(KEY, tmp_path) == cut


def test_a_link_or_a_pipe_in_its_place_is_not_read(catalog: Catalog, tmp_path: Path) -> None:
    """It is read before home's first frame: a pipe would hang the start, a link would read elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    remember_decks(KEY, _decks(catalog), elsewhere)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / FILE_NAME).symlink_to(elsewhere / FILE_NAME)
    assert remembered_decks(KEY, elsewhere) and remembered_decks(KEY, linked) == ()
    piped = tmp_path / "piped"
    piped.mkdir()
    os.mkfifo(piped / FILE_NAME)  # nobody writes to it: a blocking read would never return
    assert remembered_decks(KEY, piped) == ()


def test_an_unwritable_cache_folder_costs_only_the_early_rows(catalog: Catalog, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    remember_decks(KEY, _decks(catalog), blocker)  # no exception
    assert remembered_decks(KEY, blocker) == ()


def test_a_huge_file_is_not_read(tmp_path: Path) -> None:
    rows = [["d", "t" * 200, 1]] * (MAX_BYTES // 100)
    (tmp_path / FILE_NAME).write_text(json.dumps({"format": 1, "key": list(KEY), "decks": rows}))
    assert (tmp_path / FILE_NAME).stat().st_size > MAX_BYTES
    assert remembered_decks(KEY, tmp_path) == ()


_ROWS = st.lists(
    st.tuples(st.text(min_size=1, max_size=MAX_TITLE), st.text(max_size=MAX_TITLE), st.integers(0, 10**7)),
    max_size=20,
)
_ODD = st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers(-5, -1) | st.just("")


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_any_bytes_read_as_a_list_or_none(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    folder = tmp_path_factory.mktemp("bytes")
    (folder / FILE_NAME).write_bytes(raw)
    found = remembered_decks(KEY, folder)
    assert isinstance(found, tuple) and all(isinstance(d, RememberedDeck) for d in found)


@settings(max_examples=200)
@given(rows=_ROWS, spoil=st.none() | st.tuples(st.integers(0, 19), st.integers(0, 3), _ODD))
def test_rows_in_the_written_shape_come_back_and_one_bad_cell_spoils_the_file(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[str, str, int]],
    spoil: tuple[int, int, object] | None,
) -> None:
    """Rows of [id, title, count] come back as written; one cell of the wrong type or range (or a row of
    four cells) and the whole file reads as no list, rather than as part of one."""
    data: list[list[object]] = [list(row) for row in rows]
    spoiled = spoil is not None and bool(data)
    if spoil is not None and data:
        row, cell, value = spoil
        target = data[row % len(data)]
        if cell == 3:
            target.append(value)
        elif cell == 1 and isinstance(value, str):
            target[cell] = None  # a string is a good title: spoil it with something that is not
        else:
            target[cell] = value  # none of _ODD is a good id (non-empty text) or count (int >= 0)
    folder = tmp_path_factory.mktemp("rows")
    (folder / FILE_NAME).write_text(json.dumps({"format": 1, "key": list(KEY), "decks": data}))
    found = remembered_decks(KEY, folder)
    shown = all(terminal_text(text) == text for row in rows for text in row[:2])  # else not the app's
    assert found == (() if spoiled or not shown else tuple(RememberedDeck(*row) for row in rows))
