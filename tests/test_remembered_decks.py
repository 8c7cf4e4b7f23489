"""The deck list a start leaves for the next one's first frame: what is written is read back under the same
deck folders only, and a file that is not what the app wrote (any bytes at all) reads as no list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.remembered_decks import (
    FILE_NAME,
    MAX_BYTES,
    MAX_DECKS,
    RememberedDeck,
    remember_decks,
    remembered_decks,
)

KEY = ("0.1.0", "/bundled", "/home/me/decks")
DECKS = Path(__file__).parent / "tui" / "decks"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_catalog([DECKS], include_default=False, use_cache=False)
    assert len(loaded.deck_headers()) >= 2 and not loaded.skipped
    return loaded


def _decks(catalog: Catalog) -> tuple[RememberedDeck, ...]:
    return tuple(RememberedDeck(d, title, len(qids)) for d, title, qids in catalog.deck_headers())


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
    """Too many decks, an empty or overlong id: the file keeps what the reader accepts."""
    many = [RememberedDeck(f"d{i}", f"Deck {i}", i) for i in range(MAX_DECKS + 20)]
    odd = [RememberedDeck("", "no id", 1), RememberedDeck("x" * 5000, "long id", 2)]
    remember_decks(KEY, [*odd, *many], tmp_path)
    assert remembered_decks(KEY, tmp_path) == tuple(many[: MAX_DECKS - 2])


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


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_any_bytes_read_as_a_list_or_none(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    folder = tmp_path_factory.mktemp("bytes")
    (folder / FILE_NAME).write_bytes(raw)
    found = remembered_decks(KEY, folder)
    assert isinstance(found, tuple) and all(isinstance(d, RememberedDeck) for d in found)


@settings(max_examples=200)
@given(decks=_JSON, key=st.just(list(KEY)) | _JSON)
def test_any_json_in_the_written_shape_reads_as_decks_or_none(
    tmp_path_factory: pytest.TempPathFactory, decks: object, key: object
) -> None:
    """Only rows of [id, title, count] under this key come back, each as it was written."""
    folder = tmp_path_factory.mktemp("json")
    (folder / FILE_NAME).write_text(json.dumps({"format": 1, "key": key, "decks": decks}))
    found = remembered_decks(KEY, folder)
    if found:
        assert key == list(KEY) and isinstance(decks, list)
        assert [[d.id, d.title, d.questions] for d in found] == decks
