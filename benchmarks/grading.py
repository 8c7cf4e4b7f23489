"""Provides the grading benchmark: median time to parse and grade one typical answer (target <= 1 ms).

Run: python benchmarks/grading.py [--repeats N]

Each row is one kind of answer graded against an Instance built from the engine; it prints the median
per call, the ratio to the 1 ms target, and the ratio to a reference measured in the same run
(`float(text)` on a plain number string), because times on a shared machine drift and ratios do not.
A second table times the parser on hostile and long input (target: each refused or read in 50 ms).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import time
from collections.abc import Callable

import engine
from quizapp.content.instance import ChoiceOption, Instance
from quizapp.content.tolerance import Tolerance, default_tolerance
from quizapp.content.units import to_display
from quizapp.grading import AnswerParseError, grade, parse_choice, parse_number, parse_shape

TARGET_SECONDS = 1e-3
HOSTILE_TARGET_SECONDS = 0.05
HOSTILE = ["9**9**9**9", "9^9^9^9^9^9", "x" * 10_000, "1" * 10_000, "(" * 5000, "2^2^2^2^2^2", "10**10**10"]
PIECES = ["9", "**", "^", "(", ")", "1e300", "*", "/", "-", "GiB", "2", "x", ".5", "0", "%", "sqrt"]


def numeric(calculator: str, display: str, tolerance: Tolerance | None = None, **args: object) -> Instance:
    """An Instance built straight from the engine, as the catalog would build it."""
    d = engine.calculate(calculator, **args)
    assert isinstance(d.value, (int, float))
    tol = tolerance or default_tolerance(to_display(d.value, display))
    kind = "tensor" if calculator == "attention_entry" else "numeric"
    return Instance(
        question_id=f"bench-{calculator}",
        deck_id="bench",
        deck_title="bench",
        kind=kind,
        seed=0,
        prompt="",
        expected=d.value,
        unit=display,
        base_unit=d.unit,
        tolerance=tol,
        derivation=d,
    )


def cases() -> list[tuple[str, Instance, str]]:
    """(label, instance, typed answer): the forms users type most, right and wrong."""
    kv = {"n_layers": 80, "n_kv_heads": 8, "d_head": 128, "seq_len": 4096, "batch": 8, "bytes_per_element": 2}
    kv_gib = numeric("kv_cache_bytes", "GiB", Tolerance(kind="sigfigs", value=3), **kv)
    params = numeric("attention_parameters", "params", d_model=512, n_heads=8)
    head = numeric("head_dim", "", d_model=768, n_heads=12)
    savings = numeric("kv_cache_savings", "x", n_heads=64, n_kv_heads=8)
    flops = numeric(
        "attention_flops",
        "GFLOPs",
        Tolerance(kind="relative", value=0.01),
        seq_len=1024,
        d_model=768,
        n_heads=12,
    )
    shape_d = engine.calculate(
        "attention_shape", batch=2, seq_len=128, d_model=512, n_heads=8, stage="q_heads"
    )
    shape = Instance(
        "bench-shape", "bench", "bench", "shape", 0, "", shape_d.value, "shape", "shape", None, shape_d
    )
    choice = Instance(
        "bench-choice",
        "bench",
        "bench",
        "choice",
        0,
        "",
        frozenset({"a", "c"}),
        options=(
            ChoiceOption("a", "one", True, ""),
            ChoiceOption("b", "two", False, "No: two is wrong."),
            ChoiceOption("c", "three", True, ""),
            ChoiceOption("d", "four", False, "No: four is wrong."),
        ),
        multiple=True,
    )
    gib = to_display(kv_gib.expected, "GiB")  # type: ignore[arg-type]
    return [
        ("bare number, right", head, str(head.expected)),
        ("bare number, wrong (diagnosed)", head, str(2 * int(head.expected))),  # type: ignore[call-overload]
        ("1,048,576 params", params, f"{params.expected:,}"),
        ("4*512^2", params, "4*512^2"),
        ("80 GiB style", kv_gib, f"{gib} GiB"),
        ("GB for GiB (converted)", kv_gib, f"{float(kv_gib.expected) / 1e9:.3g} GB"),  # type: ignore[arg-type]
        ("GiB read as GB (slip)", kv_gib, f"{gib} GB"),
        ("long product with unit", kv_gib, "2*80*8*128*4096*8*2 B"),
        ("8x ratio", savings, f"{savings.expected}x"),
        ("GFLOPs", flops, f"{float(flops.expected) / 1e9:.4g} GFLOPs"),  # type: ignore[arg-type]
        ("unparseable", kv_gib, "eighty gigs"),
        ("shape", shape, str(shape.expected)),
        ("choice a, c", choice, "a, c"),
        ("hostile 9**9**9**9", head, "9**9**9**9"),
    ]


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of one call, each call timed on its own after a warm-up."""
    for _ in range(20):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def parse_all_ways(text: str) -> None:
    """Reads `text` as a number, a shape and a choice, as the grader may; refusals are expected."""
    with contextlib.suppress(AnswerParseError):
        parse_number(text, "GiB")
    with contextlib.suppress(AnswerParseError):
        parse_shape(text)
    with contextlib.suppress(AnswerParseError):
        parse_choice(text, ["a", "b", "c", "d"], multiple=True)


def hostile_inputs(seed: int = 0) -> list[tuple[str, str]]:
    """(label, text): the known hostile answers, then long random runs of operator pieces and characters."""
    rng = random.Random(seed)
    out = [(f"hostile {text[:20]!r}", text) for text in HOSTILE]
    for i in range(20):
        out.append((f"pieces #{i}", "".join(rng.choice(PIECES) for _ in range(120))))
        out.append((f"characters #{i}", "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(10_000))))
    return out


def worst_parse_seconds() -> tuple[str, float]:
    """The slowest of the hostile inputs, each timed as the best of three runs (a GC pause is not it)."""
    worst = ("", 0.0)
    for label, text in hostile_inputs():
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            parse_all_ways(text)
            best = min(best, time.perf_counter() - start)
        worst = max(worst, (label, best), key=lambda row: row[1])
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    reference = median_seconds(lambda: float("1048576"), args.repeats)
    rows = []
    for label, inst, text in cases():
        t = median_seconds(lambda inst=inst, text=text: grade(inst, text, seconds=10.0), args.repeats)
        rows.append((label, text, t))
    print(f"reference float('1048576'): {reference * 1e6:.3f} µs (median of {args.repeats})")
    print(f"{'case':34} {'answer':28} {'median µs':>10} {'/ target':>9} {'/ reference':>12}")
    for label, text, t in rows:
        print(f"{label:34} {text[:28]:28} {t * 1e6:10.1f} {t / TARGET_SECONDS:9.3f} {t / reference:12.0f}")
    overall = statistics.median(t for _, _, t in rows)
    worst = max(t for _, _, t in rows)
    print(
        f"overall median {overall * 1e6:.1f} µs = {overall / TARGET_SECONDS:.3f} of the 1 ms target; "
        f"worst case {worst * 1e6:.1f} µs; {'PASS' if worst <= TARGET_SECONDS else 'FAIL'}"
    )
    label, hostile = worst_parse_seconds()
    hostile_ok = hostile <= HOSTILE_TARGET_SECONDS
    print(
        f"hostile and long input: slowest {label} in {hostile * 1e3:.2f} ms = "
        f"{hostile / HOSTILE_TARGET_SECONDS:.3f} of the 50 ms target; {'PASS' if hostile_ok else 'FAIL'}"
    )
    return 0 if worst <= TARGET_SECONDS and hostile_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
