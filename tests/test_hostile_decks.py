"""Hostile deck files: each is refused with a located message, the other decks still load, the terminal
is never driven by deck text, and nothing outside the decks folder is read.

The worst files run through the real console script in a child process, so a crash of a C parser would
show as a dead process rather than take the test runner with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.content.catalog import load_catalog
from quizapp.content.guards import MAX_FLOW_DEPTH, MAX_QUESTION_NODES

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = (ROOT / "tests/fixtures/decks/sample.yaml").read_text(encoding="utf-8")


def _quizapp(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"QUIZAPP_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "quizapp", *args],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, check=False,
    )  # fmt: skip


def _user_deck(home: Path, name: str, text: str) -> Path:
    folder = home / "decks"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _deck(question: str, deck_id: str = "hostile") -> str:
    return f"id: {deck_id}\ntitle: Hostile\ntopic: testing\nquestions:\n{question}"


FLASHCARD = "  - id: {qid}\n    type: flashcard\n    front: {front}\n    back: b\n    explanation: e\n"


def test_a_100000_deep_flow_list_is_refused_at_its_line_and_every_other_deck_still_loads(
    isolated_home: Path,
) -> None:
    _user_deck(isolated_home, "deep.yaml", "id: deep\ntitle: t\ntopic: t\nquestions: " + "[" * 100_000)
    out = _quizapp("list", home=isolated_home)
    assert out.returncode == 0, out.stderr
    assert "kv-cache" in out.stdout, "the bundled decks are listed"
    assert f"deep.yaml:4:{12 + MAX_FLOW_DEPTH}" in out.stderr and "nested more than" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "nesting",
    [
        "\n".join(" " * i + "-" for i in range(1, 3000)) + " x\n",
        "- " * 3000 + "x\n",
    ],
    ids=["indented", "compact"],
)
def test_a_3000_deep_block_nesting_is_refused_without_a_recursion_error(
    isolated_home: Path, nesting: str
) -> None:
    path = _user_deck(isolated_home, "blocks.yaml", "id: deep\ntitle: t\ntopic: t\nquestions:\n" + nesting)
    out = _quizapp("validate", str(path), home=isolated_home)
    assert out.returncode == 1
    assert "blocks.yaml:" in out.stdout and "nest at most" in out.stdout, out.stdout
    assert "Traceback" not in out.stderr + out.stdout


@pytest.mark.parametrize(
    ("param", "complaint"),
    [
        ("{range: [0, 1e29]}", "less than or equal to 1000000000000000, got 1e+29"),
        ("{range: [0.5, .inf]}", "got inf"),
        ("{range: [0, 1000000000000000], step: 0.0001}", "steps"),
        ("{matrix: {rows: 2, cols: 2, low: -1e23, high: 2}}", "matrix.low"),
    ],
)
def test_numbers_beyond_what_numpy_can_draw_are_refused_with_the_field(
    isolated_home: Path, param: str, complaint: str
) -> None:
    question = (
        "  - id: hostile-n\n    type: numeric\n    params:\n"
        f"      x: {param}\n"
        "    prompt: 'd_model {x}'\n    calculator: head_dim\n    args: {d_model: 512, n_heads: 8}\n"
        "    explanation: e\n"
    )
    path = _user_deck(isolated_home, "numbers.yaml", _deck(question))
    out = _quizapp("validate", str(path), home=isolated_home)
    assert out.returncode == 1, out.stdout
    assert "question 'hostile-n'" in out.stdout and complaint in out.stdout, out.stdout


@pytest.mark.parametrize("digits", [400, 5000], ids=["past-a-float", "past-int-to-text"])
def test_a_number_of_hundreds_of_digits_skips_its_deck_and_every_other_deck_loads(
    isolated_home: Path, digits: int
) -> None:
    """float() of a 400-digit int overflows, and Python will not write a 5,000-digit one as text: either
    took the whole catalog down with it. Now its deck is skipped, with the place and the reason."""
    question = (
        "  - id: hostile-n\n    type: numeric\n    params:\n"
        f"      h: {{value: {'9' * digits}}}\n"
        "    prompt: 'with {h} heads'\n    calculator: head_dim\n    args: {d_model: 512, n_heads: h}\n"
        "    explanation: e\n"
    )
    _user_deck(isolated_home, "huge.yaml", _deck(question))
    out = _quizapp("list", home=isolated_home)
    assert out.returncode == 0 and "kv-cache" in out.stdout and "Traceback" not in out.stderr, out.stderr
    assert "huge.yaml" in out.stderr and f"about {digits} digits" in out.stderr, out.stderr
    validated = _quizapp("validate", home=isolated_home)
    assert validated.returncode == 1 and "question 'hostile-n'" in validated.stdout, validated.stdout
    assert "at most 19 digits" in validated.stdout


def test_a_huge_literal_matrix_is_refused_before_it_reaches_the_engine(isolated_home: Path) -> None:
    side = int(MAX_QUESTION_NODES**0.5) + 2
    row = "[" + ", ".join(["1"] * side) + "]"
    question = (
        "  - id: hostile-matrix\n    type: tensor\n"
        f"    params:\n      q: {{value: [{', '.join([row] * side)}]}}\n"
        "    prompt: p\n    calculator: attention_entry\n"
        "    args: {q: q, k: q, v: q, row: 0, col: 0, which: weight}\n    explanation: e\n"
    )
    path = _user_deck(isolated_home, "matrix.yaml", _deck(question))
    catalog = load_catalog([path], use_cache=False, include_default=False)
    assert not catalog.decks
    (problem,) = catalog.problems
    assert problem.line == 5 and problem.question_id == "hostile-matrix"
    assert f"more than {MAX_QUESTION_NODES:,} values" in problem.message


def test_escape_sequences_in_deck_text_never_reach_the_terminal(isolated_home: Path) -> None:
    title = '"Evil \\e]0;PWNED\\a\\e[2J deck"'
    text = f"id: evil\ntitle: {title}\ntopic: t\nquestions:\n" + FLASHCARD.format(
        qid="evil-card", front='"front \\x1b[31mred\\x9b"'
    )
    _user_deck(isolated_home, "evil.yaml", text)
    for args in (("list",), ("show", "evil-card")):
        out = _quizapp(*args, home=isolated_home)
        assert out.returncode == 0, out.stderr
        assert "\x1b" not in out.stdout + out.stderr and "\x07" not in out.stdout and "\x9b" not in out.stdout
    catalog = load_catalog(include_default=False, use_cache=False, extra_paths=[isolated_home / "decks"])
    assert catalog.decks["evil"].title == "Evil  deck"  # each sequence removed whole, its payload too
    assert catalog.question("evil-card").front == "front red"  # type: ignore[union-attr]


def test_a_link_out_of_the_decks_folder_is_not_followed(isolated_home: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text(
        _deck(FLASHCARD.format(qid="secret-card", front="TOP-SECRET"), "secret"), encoding="utf-8"
    )
    folder = isolated_home / "decks"
    folder.mkdir()
    os.symlink(secret, folder / "link.yaml")
    inside = _user_deck(
        isolated_home, "real.yaml", _deck(FLASHCARD.format(qid="real-card", front="f"), "real")
    )
    os.symlink(inside, folder / "alias.yaml")
    catalog = load_catalog([folder], include_default=False)
    assert "secret" not in catalog.decks and "real" in catalog.decks
    assert any("link to a file outside" in p.message for p in catalog.problems)
    cached = b"".join(p.read_bytes() for p in (isolated_home / "cache").rglob("*") if p.is_file())
    assert b"TOP-SECRET" not in cached


def test_a_byte_order_mark_is_accepted(isolated_home: Path) -> None:
    path = _user_deck(
        isolated_home, "bom.yaml", "\ufeff" + _deck(FLASHCARD.format(qid="bom-card", front="f"), "bom")
    )
    catalog = load_catalog([path], include_default=False, use_cache=False)
    assert "bom" in catalog.decks and not catalog.problems


def test_an_id_of_100000_characters_is_refused(isolated_home: Path) -> None:
    path = _user_deck(isolated_home, "long.yaml", _deck(FLASHCARD.format(qid="a" * 100_000, front="f")))
    catalog = load_catalog([path], include_default=False, use_cache=False)
    assert not catalog.decks
    assert any("at most 100 characters" in p.message for p in catalog.problems)


def test_validate_warns_where_deck_text_holds_control_characters(isolated_home: Path) -> None:
    text = "id: noisy\ntitle: Noisy\ntopic: t\nquestions:\n" + FLASHCARD.format(
        qid="noisy-card", front='"bell \\a and \\e[2J clear"'
    )
    deck = _user_deck(isolated_home, "noisy.yaml", text)
    out = _quizapp("validate", "--no-gates", str(deck), home=isolated_home)
    assert out.returncode == 0, out.stdout + out.stderr  # a warning, not an error: the deck still loads
    line = text.splitlines().index(next(x for x in text.splitlines() if "front:" in x)) + 1
    assert (
        f"warning: {deck}:{line}:" in out.stderr
        and "question 'noisy-card', field 'front': control, bidi or zero-width characters U+0007, U+001B "
        "removed"
        in out.stderr
    ), out.stderr
    bundled = _quizapp("validate", "--no-gates", str(ROOT / "content"), home=isolated_home)
    assert bundled.returncode == 0 and "warning:" not in bundled.stderr  # the bundled decks have none


# --------------------------------------------------------------------------- bounded before parsing


def _fine_deck(folder: Path) -> Path:
    path = folder / "fine.yaml"
    path.write_text(_deck(FLASHCARD.format(qid="fine-card", front="f"), "fine"), encoding="utf-8")
    return path


def test_a_sparse_3_gb_deck_is_refused_by_its_size_without_being_read(tmp_path: Path) -> None:
    import tracemalloc

    sparse = tmp_path / "sparse.yaml"
    with sparse.open("wb") as fh:
        fh.truncate(3 << 30)  # 3 GB of holes: no disk used, and reading it whole took 6.3 GB of memory
    tracemalloc.start()
    try:
        catalog = load_catalog([sparse, _fine_deck(tmp_path)], include_default=False, use_cache=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert list(catalog.decks) == ["fine"]
    (problem,) = catalog.problems
    assert problem.file.endswith("sparse.yaml") and "3.0 GB" in problem.message, problem
    assert "larger than the 32 MB a deck may be (it was not read)" in problem.message
    assert peak < 64 << 20, f"{peak:,} bytes allocated: the file was read"


def test_a_fifo_or_a_device_in_place_of_a_deck_is_refused_without_waiting(tmp_path: Path) -> None:
    from quizapp.content.load import load_file

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # nobody ever writes to it: opening it to read would wait for ever
    for path in (fifo, Path("/dev/zero")):
        loaded = load_file(path, use_cache=False)
        assert loaded.deck is None and "not a regular file" in loaded.problems[0].message, loaded


def _alias_bomb(path: Path) -> Path:
    """The second round's deck: about 1 MB, one string aliased 4,000 times (4 GB once expanded)."""
    text = f'id: bomb\ntitle: &a "{"A" * 1_000_000}"\ntopic: t\nquestions:\n' + "  - *a\n" * 4000
    path.write_text(text, encoding="utf-8")
    return path


def _in_3_gb(code: str) -> list[str]:
    """A child Python that runs `code` with 3 GB of address space, as on a machine with 3 GB to spare."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
    return [sys.executable, "-c", limit + code]


def test_the_alias_bomb_aborts_the_bare_fast_parser(tmp_path: Path) -> None:
    """Why the budget exists: yaml_rs copies what an alias names, and where memory runs out it aborts
    the whole process (SIGABRT), which no `except` can catch."""
    bomb = _alias_bomb(tmp_path / "bomb.yaml")
    code = f"import yaml_rs; yaml_rs.loads(open({str(bomb)!r}, encoding='utf-8').read())"
    out = subprocess.run(_in_3_gb(code), capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == -6, (out.returncode, out.stderr[-300:])


def test_the_alias_bomb_is_refused_before_any_parser_and_list_and_stats_keep_running(
    isolated_home: Path,
) -> None:
    folder = isolated_home / "decks"
    folder.mkdir()
    bomb = _alias_bomb(folder / "bomb.yaml")
    _fine_deck(folder)
    for args in (("list",), ("stats",)):
        env = {"QUIZAPP_HOME": str(isolated_home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
        run = "import sys, runpy\nsys.argv = ['quizapp', *%r]\nrunpy.run_module('quizapp', None, '__main__')"
        code = run % (args,)
        out = subprocess.run(
            _in_3_gb(code), capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, check=False
        )
        assert out.returncode == 0, (args, out.returncode, out.stderr[-500:])
        assert "Traceback" not in out.stderr
    listed = _quizapp("list", home=isolated_home)
    assert "fine" in listed.stdout and "kv-cache" in listed.stdout
    assert "bomb.yaml:37:5" in listed.stderr and "aliases that expand it past the 32 MB" in listed.stderr
    catalog = load_catalog([bomb, folder / "fine.yaml"], include_default=False, use_cache=False)  # the TUI's
    assert list(catalog.decks) == ["fine"] and len(catalog.problems) == 1


@pytest.mark.parametrize(
    ("body", "place", "said"),
    [
        (  # a billion laughs: each level ten aliases of the one before
            'a0: &a0 "lol"\n'
            + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 12)),
            ":12:",
            "expand it past the 32 MB",
        ),
        ("x: &x 1\nl: [" + ", ".join(["*x"] * 10_001) + "]\n", ":6:", "more than 10,000 aliases"),
    ],
    ids=["nested", "many"],
)
def test_aliases_past_the_budget_are_refused_at_their_line(
    isolated_home: Path, body: str, place: str, said: str
) -> None:
    path = isolated_home / "laughs.yaml"
    path.write_text("id: laughs\ntitle: t\ntopic: t\nquestions: []\n" + body, encoding="utf-8")
    catalog = load_catalog([path, _fine_deck(isolated_home)], include_default=False, use_cache=False)
    assert list(catalog.decks) == ["fine"]
    (problem,) = catalog.problems
    assert place in str(problem) and said in problem.message, problem


def test_a_deck_with_a_few_aliases_still_loads(isolated_home: Path) -> None:
    text = (
        "id: shared\ntitle: &t Shared\ntopic: t\nquestions:\n"
        "  - id: shared-one\n    type: flashcard\n    front: f\n    back: &b the same back\n"
        "    explanation: &e the same explanation\n"
        "  - id: shared-two\n    type: flashcard\n    front: *t\n    back: *b\n    explanation: *e\n"
    )
    path = isolated_home / "shared.yaml"
    path.write_text(text, encoding="utf-8")
    catalog = load_catalog([path], include_default=False, use_cache=False)
    assert not catalog.problems and catalog.question("shared-two").back == "the same back"  # type: ignore[union-attr]
