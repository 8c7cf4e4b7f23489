"""A template whose parameters fail only for rare combinations passes the 50 load-time seeds; at study
time such a draw is replaced by another seed's, so the learner still gets the question, and
`quizapp validate` (500 seeds) names the problem for the deck's author."""

from __future__ import annotations

import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.store import open_store
from quizapp.study import QuestionSet
from quizapp.study.queues import drawable_instance
from quizapp.study.session import StudySession

NOW = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)

HEADS = [8, 16, 32, 64] * 19 + [128]  # 128 heads do not divide an odd multiple of 64: about 1 draw in 150
DECK = f"""id: rare
title: Rare draws
topic: testing
questions:
  - id: rare-head-dim
    type: numeric
    params:
      d_model: {{range: [64, 6400], step: 64}}
      n_heads: {{choices: {HEADS}}}
    prompt: "d_model = {{d_model}}, h = {{n_heads}}. What is d_k?"
    calculator: head_dim
    args: {{d_model: d_model, n_heads: n_heads}}
    unit: ""
    explanation: d_k = d_model / h.
"""


@pytest.fixture
def rare(isolated_home: Path) -> tuple[Catalog, Path]:
    folder = isolated_home / "decks"
    folder.mkdir()
    (folder / "rare.yaml").write_text(DECK, encoding="utf-8")
    catalog = load_catalog(include_default=False, use_cache=False, extra_paths=[folder])
    assert not catalog.problems  # the 50 load-time seeds all draw a divisible pair
    return catalog, folder / "rare.yaml"


def _failing_seeds(catalog: Catalog) -> list[int]:
    failing = []
    for seed in range(50, 2000):
        try:
            catalog.instance("rare-head-dim", seed)
        except Exception:
            failing.append(seed)
    return failing


def test_a_draw_that_cannot_be_built_is_replaced_by_another_seeds(rare: tuple[Catalog, Path]) -> None:
    catalog, _ = rare
    failing = _failing_seeds(catalog)
    assert failing  # such seeds exist beyond the ones checked at load
    for seed in failing:
        inst = drawable_instance(catalog, "rare-head-dim", seed)
        assert inst.seed != seed
        assert catalog.instance("rare-head-dim", inst.seed).expected == inst.expected  # replayable
        assert inst.derivation is not None and inst.derivation.value == inst.expected


def test_validate_checks_more_seeds_and_names_the_rare_failure(
    rare: tuple[Catalog, Path], isolated_home: Path
) -> None:
    _, deck = rare
    out = subprocess.run(
        [sys.executable, "-m", "quizapp", "validate", str(deck)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 1
    assert "not divisible by n_heads=128" in out.stdout and "rare-head-dim" in out.stdout


class _FirstSeed(random.Random):
    """A generator whose first draw is `first` (a seed known to fail), then an ordinary one."""

    def __init__(self, first: int) -> None:
        super().__init__(0)
        self.first: int | None = first

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        if self.first is not None:
            first, self.first = self.first, None
            return first
        return super().randrange(*args, **kwargs)


def test_a_study_session_asks_the_question_with_other_numbers_and_says_so(
    rare: tuple[Catalog, Path], tmp_path: Path
) -> None:
    catalog, _ = rare
    failing = _failing_seeds(catalog)[0]
    with open_store(tmp_path / "p.db", now=NOW) as store:
        session = StudySession.start(
            catalog, store, QuestionSet.from_catalog(catalog), mode="drill", clock=lambda: NOW,
            rng=_FirstSeed(failing), question_ids=("rare-head-dim",), fuzzing=False,
        )  # fmt: skip
        card = session.current
        assert card is not None and card.instance.seed != failing
        assert not session.problems
        assert session.redrawn == [
            f"rare-head-dim: the numbers of seed {failing} could not be built, so it is asked with seed "
            f"{card.instance.seed}. `quizapp validate` names the template for its author."
        ]
