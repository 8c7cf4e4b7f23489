"""Provides the explanation reader's agreement with the labelled set, and its speed.

Run: python benchmarks/explain_agreement.py [--split train|dev|dev2 ... dev13|held_out|all] [--question ID]
[--show]

Prints, over the chosen split of tests/cases/explain/: per-key-point agreement with the labels, overall and
per status (of the points labelled covered, how many the reader found covered...), per kind of answer, the
suggested rating against the interviewer's, the two safety figures (wrong answers suggested Good; right
answers suggested Again), and the median and p95 time to read a 600-character answer. `--show` prints each
disagreement with the answer, for whoever writes the forms (train split only, by default).

Targets (issue 34): on the held-out split, agreement >= 0.85; no wrong answer (soup, misconception,
negation, off-topic) suggested Good; right answers (terse, paraphrase) suggested Again at most 1 in 10;
reading at most 20 ms per answer, median, at 600 characters.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quizapp.content.catalog import load_catalog
from quizapp.grading.explain import read_explanation
from quizapp.grading.rating import RATING_NAMES
from tests.labelled_explanations import KINDS, RIGHT_KINDS, SPLITS, TUNING, WRONG_KINDS, labelled

TARGET_AGREEMENT = 0.85
TARGET_MS = 20.0
LENGTH = 600


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        choices=(*SPLITS, "all"),
        default="train",
    )
    parser.add_argument("--question", help="only this question id")
    parser.add_argument("--show", action="store_true", help="print every disagreement")
    parser.add_argument("--repeats", type=int, default=200, help="timed reads of a 600-character answer")
    args = parser.parse_args()
    catalog = load_catalog()
    answers = labelled(None if args.split == "all" else args.split)
    if args.question:
        answers = [a for a in answers if a.question_id == args.question]
    agree: Counter[str] = Counter()
    total: Counter[str] = Counter()
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    ratings: Counter[tuple[str, str]] = Counter()
    wrong_good: list[str] = []
    right_again = right_total = 0
    missing: set[str] = set()
    for a in answers:
        if a.question_id not in catalog.questions:
            missing.add(a.question_id)
            continue
        inst = catalog.instance(a.question_id, 0)
        reading = read_explanation(a.text, inst.point_specs, inst.rejects)
        got = [p.status for p in reading.points]
        if len(got) != len(a.points):
            print(f"{a.question_id}: {len(a.points)} labels for {len(got)} key points", file=sys.stderr)
            continue
        for label, status in zip(a.points, got, strict=True):
            total[label] += 1
            agree[label] += label == status
            by_kind[a.kind][0] += label == status
            by_kind[a.kind][1] += 1
        suggested = RATING_NAMES[reading.rating]
        ratings[(a.rating, suggested)] += 1
        if a.kind in WRONG_KINDS and suggested == "Good":
            wrong_good.append(f"{a.question_id} ({a.kind})")
        if a.kind in RIGHT_KINDS:
            right_total += 1
            right_again += suggested == "Again"
        if args.show and (list(a.points) != got or a.rating != suggested):
            print(f"\n--- {a.question_id} [{a.kind}] labelled {a.rating}, read {suggested}: {reading.reason}")
            print("    " + " ".join(a.text.split())[:700])
            for p, label in zip(reading.points, a.points, strict=True):
                mark = "  " if label == p.status else "!!"
                evidence = f' "{p.evidence.text}"' if p.evidence else ""
                print(f"  {mark} {p.index + 1}. label {label:12} read {p.status:12}{evidence}")
            for m in reading.misconceptions:
                print(f'     misconception {m.id}: "{m.evidence.text}"')
    if missing:
        print(f"not in the bank (a deck did not load?): {', '.join(sorted(missing))}", file=sys.stderr)
    n = sum(total.values())
    if not n:
        print("no labelled answers")
        return 1
    print(f"\nsplit: {args.split}, {len(answers)} answers, {len({a.question_id for a in answers})} questions")
    print(f"per-key-point agreement: {sum(agree.values()) / n:.3f} (target >= {TARGET_AGREEMENT})")
    for status in ("covered", "missing", "contradicted"):
        if total[status]:
            print(f"  labelled {status:13} {agree[status] / total[status]:.3f} of {total[status]}")
    print("per kind of answer:")
    for kind in KINDS:
        if by_kind[kind][1]:
            print(f"  {kind:14} {by_kind[kind][0] / by_kind[kind][1]:.3f} of {by_kind[kind][1]} points")
    print("rating, labelled -> suggested:")
    for (labelled_as, suggested_as), count in sorted(ratings.items()):
        print(f"  {labelled_as:6} -> {suggested_as:6} {count}")
    print(f"wrong answers suggested Good: {len(wrong_good)} {wrong_good[:10]}")
    share = right_again / right_total if right_total else 0.0
    print(
        f"right answers (full, terse, paraphrase) suggested Again: {right_again}/{right_total} ({share:.2f})"
    )
    times = _timing(catalog, args.repeats)
    p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
    print(f"read a {LENGTH}-character answer: median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms")
    return 0


def _timing(catalog: object, repeats: int) -> list[float]:
    """Reading times of 600-character answers, each text new so no cache helps. The texts come from the
    tuning splits only, so timing never reads the held-out answers."""
    from quizapp.grading.explain_text import cut_answer

    tuning = [a for split in TUNING for a in labelled(split)]
    known = [a for a in tuning if a.question_id in catalog.questions]  # type: ignore[attr-defined]
    long = [a for a in known if len(a.text) >= 300] or known
    out = []
    for i in range(repeats):
        a = long[i % len(long)]
        inst = catalog.instance(a.question_id, 0)  # type: ignore[attr-defined]
        text = (a.text * 3)[: LENGTH - 8] + f" #{i:06d}"
        cut_answer.cache_clear()
        start = time.perf_counter()
        read_explanation(text, inst.point_specs, inst.rejects)
        out.append((time.perf_counter() - start) * 1000)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
