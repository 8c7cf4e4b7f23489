"""The tty benchmark's cut of a key's time into phases (benchmarks/tty_timeline.py), on made-up timelines
whose phases are known: a wrong cut would put the app's milliseconds in the wrong place in the note."""

from __future__ import annotations

import pytest

from benchmarks.tty_timeline import Step, cut, longest

MS = 0.001


def step(kind: str, start_ms: float, end_ms: float) -> Step:
    return Step(kind, 100 + start_ms * MS, 100 + end_ms * MS)


def at(ms: float) -> float:
    return 100 + ms * MS


def test_a_key_is_cut_at_the_request_for_a_frame_and_inside_the_frame() -> None:
    steps = [
        step("ask", 5, 5),
        step("layout", 10, 20),  # arranges for 2 ms, then renders
        step("render", 12, 19),
        step("write", 18, 19),
    ]
    phases = cut(steps, at(0), at(21))
    assert phases == pytest.approx(
        {"work": 5, "other frames": 0, "tick": 5, "layout": 3, "render": 6, "write": 1, "terminal": 2},
        abs=1e-6,
    )


def test_the_frame_is_the_last_write_before_the_text_was_seen_with_a_render_in_the_same_tick() -> None:
    steps = [
        step("ask", 1, 1),
        step("render", 2, 4),  # an earlier frame: the locked answer
        step("write", 3, 4),
        step("ask", 6, 6),
        step("layout", 8, 15),
        step("render", 9, 14),
        step("write", 13, 14),
        step("render", 15.5, 16.5),  # within the same tick, no request between
        step("write", 16, 16.5),
        step("ask", 30, 30),  # after the text was seen: not this key's
        step("render", 31, 33),
        step("write", 32, 33),
    ]
    phases = cut(steps, at(0), at(17))
    assert phases is not None
    assert phases["other frames"] == pytest.approx(2)
    assert phases["work"] == pytest.approx(4)
    assert phases["tick"] == pytest.approx(2)
    assert phases["layout"] == pytest.approx(2)
    assert phases["render"] == pytest.approx(4 + 0.5)
    assert phases["write"] == pytest.approx(1.5)
    assert phases["terminal"] == pytest.approx(0.5)


def test_without_a_request_the_wait_counts_as_work_and_without_a_write_there_is_no_cut() -> None:
    steps = [step("render", 7, 10), step("write", 9, 10)]
    phases = cut(steps, at(0), at(11))
    assert phases is not None
    assert (phases["work"], phases["tick"]) == pytest.approx((7, 0))
    assert cut(steps, at(11), at(20)) is None


def test_the_longest_frame_after_a_key_and_its_parts() -> None:
    steps = [
        step("ask", 0, 0),
        step("render", 1, 3),
        step("write", 2, 3),
        step("ask", 10, 10),
        step("layout", 16, 40),
        step("render", 20, 39),
        step("write", 38, 39),
    ]
    collections = [(at(30), 6.0, 2), (at(45), 3.0, 0)]  # the second ends after the frame
    assert longest(steps, at(0), at(50), collections) == pytest.approx((24, 5, 18, 6))
    assert longest(steps, at(41), at(50)) is None
