"""Provides `quizapp heads`: the trained toy transformer's heads and what they measure, and
`quizapp heads train`, which trains them again from a seed with a live progress line.

The numbers all come from engine.toy; this module only words them and writes the file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from engine import toy
from quizapp.commands.terminal import own_controls
from quizapp.errors import QuizappError
from quizapp.explore.trained import progress_text, toy_model, user_model_path

if TYPE_CHECKING:
    from engine.toy import TrainProgress

MAX_STEPS = 100_000
ICL_LENGTH, ICL_SEQUENCES = 24, 16
"""The in-context loss `quizapp heads` prints: repeats as long as the longest the toy trained on."""


def run_scores(args: argparse.Namespace) -> int:
    _check_seed(args.seed)
    model, where = toy_model(args.model)
    scores = toy.head_scores(model, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    repeats = np.stack([toy.repeated_tokens(rng, ICL_LENGTH) for _ in range(ICL_SEQUENCES)])  # (N, 2n)
    icl = toy.in_context_loss(model, repeats)
    print(f"Toy transformer: {where}. A 2-layer attention-only toy trained on repeated random tokens;")
    print("not a language model. Scores are mean attention weights (Olsson et al. 2022).")
    print(f"{'head':<6}{'previous-token':>16}{'induction':>11}")
    for layer in range(model.n_layers):
        for head in range(model.n_heads):
            prev, ind = scores.prev_token[layer, head], scores.induction[layer, head]
            print(f"L{layer}H{head:<4}{prev:>16.2f}{ind:>11.2f}")
    pl, ph, ps = scores.best_prev_token
    il, ih, iscore = scores.best_induction
    print(f"best previous-token head: L{pl}H{ph} ({ps:.2f}); best induction head: L{il}H{ih} ({iscore:.2f})")
    print(
        f"In-context loss {icl:+.2f} nats (repeated half minus first half, {ICL_SEQUENCES} sequences of "
        f"{ICL_LENGTH} tokens)"
    )
    return 0


def _check_seed(seed: int) -> None:
    if not 0 <= seed < 2**32:
        raise QuizappError(f"--seed must be between 0 and 2**32 - 1, not {seed}")


def run_train(args: argparse.Namespace) -> int:
    steps = toy.DEFAULT_STEPS if args.steps is None else args.steps
    if not 1 <= steps <= MAX_STEPS:
        raise QuizappError(f"--steps must be between 1 and {MAX_STEPS}, not {steps}")
    _check_seed(args.seed)
    out = Path(args.out).expanduser() if args.out else user_model_path()
    if out.is_dir():
        raise QuizappError(f"--out {out} is a folder; give a file name such as {out / 'heads.npz'}")
    if out.suffix != ".npz":
        out = out.with_name(out.name + ".npz")  # numpy adds it anyway; say the name it really gets
    out.parent.mkdir(parents=True, exist_ok=True)
    line = ProgressLine(sys.stderr, steps)
    try:
        model = toy.train(seed=args.seed, steps=steps, on_progress=line.show)
    except KeyboardInterrupt:
        line.end()
        print(f"Stopped at step {line.step} of {steps}; nothing was written.", file=sys.stderr)
        return 130
    line.end()
    temporary = out.with_name(f".{out.stem}.partial.npz")
    try:
        toy.save(model, temporary)
        temporary.replace(out)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise QuizappError(f"cannot write {out}: {exc.strerror or exc}") from None
    scores = toy.head_scores(model, seed=0)
    print(f"Saved {out}. {scores_sentence(scores)}")
    if not args.out:
        print("Explore's trained mode and `quizapp heads` now use it; delete the file to go back.")
    return 0


def scores_sentence(scores: Any) -> str:
    pl, ph, ps = scores.best_prev_token
    il, ih, iscore = scores.best_induction
    return f"Best previous-token head L{pl}H{ph} {ps:.2f}; best induction head L{il}H{ih} {iscore:.2f}."


class ProgressLine:
    """One line redrawn in place on a terminal (a line per report elsewhere), so a long run shows it lives."""

    def __init__(self, stream: TextIO, steps: int) -> None:
        self.stream, self.steps, self.step = own_controls(stream), steps, 0  # its \r is ours
        self.started = time.monotonic()
        self.live = stream.isatty()

    def show(self, p: TrainProgress) -> None:
        self.step = p.step
        self.stream.write(("\r" if self.live else "") + progress_text(p, time.monotonic() - self.started))
        self.stream.write("" if self.live else "\n")
        self.stream.flush()

    def end(self) -> None:
        if self.live and self.step:
            self.stream.write("\n")
            self.stream.flush()
