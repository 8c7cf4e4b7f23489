"""Provides the engine.toy benchmark: training time to working heads, steps per second against torch,
cold load of the shipped model and one forward pass for the heatmaps.

(a) train from the default seed until the best layer-0 previous-token score and the best layer-1
    induction score are both >= 0.5 (checked every 50 steps): seconds, median over --repeats; target < 60 s.
(b) one training step (forward, backward, Adam) on the same batch and weights: NumPy (engine.toy's
    hand-written backward) vs torch autograd + torch.optim.Adam on the CPU with torch.set_num_threads
    set to the machine's core count (what NumPy's OpenBLAS uses). Blocks alternate, with a pause before
    each, as in benchmarks/engine_vs_torch.py.
(c) load of engine/toy/pretrained.npz: a fresh `load(path)` call in a new process (cold: nothing cached,
    the import of engine.toy itself not counted), and the median of repeated fresh calls in this process.
    Target <= 20 ms.
(d) one forward pass of a 48-token sequence (logits and all weights, for the heatmaps). Target <= 5 ms.

torch is imported only here, never by engine/ or quizapp/.

Run: python benchmarks/toy_training.py [--repeats 3] [--rounds 5]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import engine.toy as toy
from engine.toy.backward import loss_and_grads
from engine.toy.data import training_batch
from engine.toy.files import PRETRAINED
from engine.toy.train import DEFAULT_BATCH, DEFAULT_LR, DEFAULT_SEQ_LEN, _Adam, init_params

TRAIN_TARGET_S, LOAD_TARGET_MS, FORWARD_TARGET_MS = 60.0, 20.0, 5.0


def time_to_heads() -> tuple[float, int]:
    """Seconds and steps until both scores reach 0.5 (or the default steps run out)."""
    reached: list[int] = []

    def stop_when_formed(p: toy.TrainProgress) -> bool:
        if p.prev_token >= 0.5 and p.induction >= 0.5:
            reached.append(p.step)
            return False
        return True

    start = time.perf_counter()
    model = toy.train(seed=0, on_progress=stop_when_formed, progress_every=50)
    seconds = time.perf_counter() - start
    if not reached:
        raise SystemExit(f"the heads did not form within {model.steps} steps")
    return seconds, reached[0]


def torch_step(config: toy.ToyConfig, params: dict[str, np.ndarray], tokens: np.ndarray) -> Callable[[], Any]:
    """The same model, loss and optimiser in torch, as one callable training step."""
    import torch

    tp = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    opt = torch.optim.Adam(list(tp.values()), lr=DEFAULT_LR)
    t = torch.tensor(tokens)
    B, T = tokens.shape
    h, dh = config.n_heads, config.d_head
    mask = torch.ones(T, T, dtype=torch.bool).tril()

    def step() -> float:
        x = tp["embed"][t] + tp["pos"][:T]
        for i in range(config.n_layers):
            q, k, v = ((x @ tp[f"l{i}.{w}"]).view(B, T, h, dh).transpose(1, 2) for w in ("w_q", "w_k", "w_v"))
            s = (q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(~mask, float("-inf"))
            x = x + (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(B, T, -1) @ tp[f"l{i}.w_o"]
        logits = x @ tp["unembed"]
        loss = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, config.vocab_size), t[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        return float(loss.item())

    return step


def numpy_step(config: toy.ToyConfig, params: dict[str, np.ndarray], tokens: np.ndarray) -> Callable[[], Any]:
    own = {k: v.copy() for k, v in params.items()}
    adam = _Adam(own, DEFAULT_LR)

    def step() -> float:
        loss, grads = loss_and_grads(config, own, tokens)
        adam.update(own, grads)
        return loss

    return step


def block(fn: Callable[[], Any], n: int, settle: float = 0.3) -> float:
    """Seconds per call over n calls after a pause and a few warm-up calls."""
    time.sleep(settle)
    for _ in range(3):
        fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def cold_load_ms() -> float:
    code = (
        "import time, engine.toy as toy\nfrom engine.toy.files import PRETRAINED\n"
        "s = time.perf_counter(); toy.load(PRETRAINED); print((time.perf_counter() - s) * 1e3)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=3, help="training runs for (a) and cold loads for (c)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating step blocks per library for (b)")
    parser.add_argument("--steps", type=int, default=40, help="training steps per block for (b)")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch is not installed; skipping (pip install -e '.[test]' installs it).")
        return 0
    threads = os.cpu_count() or 1
    torch.set_num_threads(threads)

    runs = [time_to_heads() for _ in range(args.repeats)]
    train_s = statistics.median(s for s, _ in runs)
    each = ", ".join(f"{s:.1f} s at step {n}" for s, n in runs)
    verdict = "OK" if train_s < TRAIN_TARGET_S else "MISSED"
    print(f"(a) default seed, until prev-token and induction >= 0.5: {train_s:.1f} s median over "
          f"{args.repeats} (runs {each}); target < {TRAIN_TARGET_S:.0f} s {verdict}")  # fmt: skip

    config = toy.ToyConfig()
    rng = np.random.default_rng(0)
    params = init_params(config, rng)
    tokens = training_batch(rng, DEFAULT_BATCH, DEFAULT_SEQ_LEN, config.vocab_size, min_repeat=12)  # (B, T)
    np_fn, torch_fn = numpy_step(config, params, tokens), torch_step(config, params, tokens)
    if abs(np_fn() - torch_fn()) > 1e-4:
        raise SystemExit("NumPy and torch disagree on the first step's loss")
    np_s, t_s = [], []
    for i in range(args.rounds):
        pair = [(np_fn, np_s), (torch_fn, t_s)]
        for fn, out in pair if i % 2 == 0 else pair[::-1]:
            out.append(block(fn, args.steps))
    ratio = statistics.median(n / t for n, t in zip(np_s, t_s, strict=True))
    print(f"(b) training step, batch {DEFAULT_BATCH} x {DEFAULT_SEQ_LEN} tokens, {threads} threads:")
    print(f"    {'':8} {'ms/step':>8} {'steps/s':>8}")
    for name, s in (("numpy", np_s), ("torch", t_s)):
        print(f"    {name:8} {statistics.median(s) * 1e3:8.2f} {1 / statistics.median(s):8.1f}")
    print(f"    ratio numpy/torch time per step (median over rounds): {ratio:.2f}")

    cold = statistics.median(cold_load_ms() for _ in range(args.repeats))
    warm = []
    for _ in range(20):
        start = time.perf_counter()
        toy.load(PRETRAINED)
        warm.append((time.perf_counter() - start) * 1e3)
    load_ms = max(cold, statistics.median(warm))
    print(f"(c) load(pretrained.npz): new process {cold:.2f} ms (median of {args.repeats}), "
          f"fresh calls in this process {statistics.median(warm):.2f} ms; target <= {LOAD_TARGET_MS:.0f} ms "
          f"{'OK' if load_ms <= LOAD_TARGET_MS else 'MISSED'}")  # fmt: skip

    model = toy.pretrained()
    seq = toy.repeated_tokens(np.random.default_rng(1), 24)  # (48,)
    fwd = []
    for _ in range(200):
        start = time.perf_counter()
        model.forward(seq)
        fwd.append((time.perf_counter() - start) * 1e3)
    fwd_ms = statistics.median(fwd)
    verdict = "OK" if fwd_ms <= FORWARD_TARGET_MS else "MISSED"
    print(f"(d) one forward, T=48 (logits + weights): {fwd_ms:.3f} ms median; "
          f"target <= {FORWARD_TARGET_MS:.0f} ms {verdict}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
