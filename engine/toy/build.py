"""Builds the shipped weights: `python -m engine.toy.build` trains from the default seed and steps and
writes engine/toy/pretrained.npz, then prints the heads it found."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engine.toy.files import PRETRAINED, save
from engine.toy.metrics import head_scores
from engine.toy.model import ToyModel
from engine.toy.train import DEFAULT_SEED, DEFAULT_STEPS, TrainProgress, train


def build(path: Path = PRETRAINED, *, seed: int = DEFAULT_SEED, steps: int = DEFAULT_STEPS) -> ToyModel:
    """Trains and saves; the progress lines show the heads forming."""

    def report(p: TrainProgress) -> None:
        print(f"step {p.step:5d}/{p.steps}  loss {p.loss:.3f}  prev-token {p.prev_token:.2f}  "
              f"induction {p.induction:.2f}", flush=True)  # fmt: skip

    start = time.perf_counter()
    model = train(seed=seed, steps=steps, on_progress=report, progress_every=100)
    save(model, path)
    scores = head_scores(model)
    print(f"trained in {time.perf_counter() - start:.1f} s; wrote {path}")
    print(f"best previous-token head {scores.best_prev_token}, best induction head {scores.best_induction}")
    return model


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    build(Path(args[0]) if args else PRETRAINED)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
