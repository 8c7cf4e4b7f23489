"""What `pip install` makes of the project: our own distribution name, the `quizapp` command and import
packages, and the metadata the package index shows."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "attention-interview-trainer"


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        doc = tomllib.load(fh)
    project: dict[str, object] = doc["project"]
    project["_wheel"] = doc["tool"]["hatch"]["build"]["targets"]["wheel"]
    return project


def test_the_distribution_has_a_name_of_its_own_and_still_installs_the_quizapp_command() -> None:
    """ "quizapp" on the package index is another author's project: `pip install quizapp` would install it
    over ours (same import package). Ours is published under its own name; the command and the import
    packages stay quizapp and engine."""
    project = _project()
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"quizapp": "quizapp.cli:main"}
    assert project["_wheel"]["packages"] == ["quizapp", "engine"]  # type: ignore[index]


def test_the_index_page_has_links_and_classifiers() -> None:
    project = _project()
    urls = project["urls"]
    assert isinstance(urls, dict) and {"Homepage", "Changelog", "Issues"} <= set(urls)
    assert all(str(url).startswith("https://") for url in urls.values())
    classifiers = project["classifiers"]
    assert isinstance(classifiers, list)
    assert "Environment :: Console" in classifiers and "License :: OSI Approved :: MIT License" in classifiers
    # every Python version CI runs is declared, none below requires-python
    versions = {
        c.rsplit(" :: ", 1)[1] for c in classifiers if c.startswith("Programming Language :: Python :: 3.")
    }
    assert {"3.11", "3.13"} <= versions and project["requires-python"] == ">=3.11"


def test_the_readme_names_the_distribution() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"named `{DISTRIBUTION}`" in readme and "pip install . && quizapp" in readme
    assert "pip install quizapp" not in readme  # that is someone else's package
