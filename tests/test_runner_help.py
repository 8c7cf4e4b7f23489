"""`quizapp code --help` says what confines a solution on this machine, path by path, in the words the
README uses: what each path has, and on the paths that are not sandboxes, that they are not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.runner import confine

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("force", "words"),
    [
        ("", ["own user, mount, PID, network and IPC namespaces", "seccomp allowlist", "new, empty keyring"]),
        ("limits", ["NOT fully sandboxed", "without its package folders", "seccomp allowlist"]),
        ("plain", ["NOT sandboxed", "limits only", "can read and write your files"]),
    ],
)
def test_code_help_says_what_this_path_confines(force: str, words: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), confine.FORCE_ENV: force}
    env.pop(confine.TEST_WITHOUT_ENV, None)
    done = subprocess.run(
        [sys.executable, "-m", "quizapp", "code", "--help"],
        capture_output=True, text=True, timeout=120, env=env, check=True,
    )  # fmt: skip
    said = done.stdout.split("On this machine:", 1)[1]
    confined, why = confine.probe()
    if force == "" and not confined:
        pytest.skip(f"namespaces are refused here: {why}")
    if force == "limits" and "Landlock" not in said:
        pytest.skip("this kernel has no Landlock")
    for word in words:
        assert word in " ".join(said.split()), said
    assert "TEST SETTING" not in said


def test_the_readme_names_every_layer_the_notes_name() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    for words in ("user, mount, PID, network and IPC namespaces", "new, empty session keyring",
                  "seccomp allowlist", "without any `site-packages` or `dist-packages` folder",
                  "`nobody` (uid and gid 65534", "Landlock's scoping", "at the next start"):  # fmt: skip
        assert words in readme, words
