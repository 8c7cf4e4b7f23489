"""Every file the app writes atomically goes through a temporary file of an unguessable name made in the
target's folder (tempfile.mkstemp): a symlink planted at the old predictable name (`FILE.tmp`) is never
followed, so an export or a draft cannot be sent into another file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.study.drafts import draft_path, save_draft

ROOT = Path(__file__).resolve().parent.parent


def _plant(at: Path, victim: Path) -> None:
    victim.write_text("precious")
    at.symlink_to(victim)


@pytest.mark.parametrize("kind", ["progress", "anki"])
def test_an_export_never_follows_a_link_planted_at_its_temporary_name(
    kind: str, isolated_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / ("backup.json" if kind == "progress" else "deck.apkg")
    victim = tmp_path / "victim.txt"
    _plant(target.with_name(target.name + ".tmp"), victim)
    env = {**os.environ, "QUIZAPP_HOME": str(isolated_home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "quizapp", "export", kind, str(target), "--deck", "kv-cache"][
            : 6 if kind == "progress" else 8
        ],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "precious"
    assert target.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == [target.name + ".tmp"], (
        "no temporary file is left behind"
    )


def test_a_draft_never_follows_a_link_planted_at_its_temporary_name(tmp_path: Path) -> None:
    target = draft_path("code-softmax-q")
    target.parent.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    _plant(target.with_name(target.name + ".tmp"), victim)
    save_draft("code-softmax-q", "def softmax(x):\n    pass\n")
    assert victim.read_text() == "precious"
    assert target.read_text() == "def softmax(x):\n    pass\n"
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []
