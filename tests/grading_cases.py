"""Provides the builders the grading tests share: Instances straight from the engine, random valid
calculator arguments, an answer typed in base units, and "same value under this question's tolerance".
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import engine
from quizapp.content.instance import Instance
from quizapp.content.tolerance import Tolerance, default_tolerance
from quizapp.content.units import to_display, unit
from quizapp.grading.diagnose import tolerance_of


def make_instance(
    calculator: str,
    display: str | None = None,
    tolerance: Tolerance | None = None,
    *,
    target_seconds: float = 90.0,
    **args: Any,
) -> Instance:
    """An Instance straight from the engine, built the way quizapp.content.instantiate builds one."""
    d = engine.calculate(calculator, **args)
    common: dict[str, Any] = {
        "question_id": f"test-{calculator}",
        "deck_id": "test",
        "deck_title": "test",
        "seed": 0,
        "prompt": "",
        "base_unit": d.unit,
        "derivation": d,
        "target_seconds": target_seconds,
    }
    if isinstance(d.value, tuple):
        return Instance(kind="shape", expected=d.value, unit="shape", **common)
    shown = d.unit if display is None else display
    tol = tolerance or default_tolerance(to_display(d.value, shown))
    kind = "tensor" if calculator == "attention_entry" else "numeric"
    return Instance(kind=kind, expected=d.value, unit=shown, tolerance=tol, **common)


def _divisor(n: int, rng: random.Random) -> int:
    return rng.choice([k for k in range(1, n + 1) if n % k == 0])


def _matrix(rows: int, cols: int, rng: random.Random) -> list[list[int]]:
    return [[rng.randint(-3, 3) for _ in range(cols)] for _ in range(rows)]


def random_args(name: str, rng: random.Random) -> dict[str, Any]:
    """Valid random arguments for one of the contract's calculators; None means "leave at the default"."""
    maker = area_arg_makers().get(name)
    args = maker(rng) if maker is not None else _contract_args(name, rng)
    return {k: v for k, v in args.items() if v is not None}


ArgMaker = Callable[[random.Random], dict[str, Any]]


@cache
def area_arg_makers() -> dict[str, ArgMaker]:
    """Argument generators kept beside each newer calculator area: every module in tests/cases/ has an
    `ARGS` dict from calculator name to a function of a Random that returns valid arguments."""
    import cases as package

    makers: dict[str, ArgMaker] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"cases.{info.name}")
        makers.update(module.ARGS)
    return makers


def _contract_args(name: str, rng: random.Random) -> dict[str, Any]:
    h = rng.choice([2, 3, 4, 6, 8, 12, 16, 32, 64])
    d_head = rng.choice([16, 32, 64, 80, 96, 128])
    d_model = h * d_head
    if name == "head_dim":
        return {"d_model": d_model, "n_heads": h}
    if name == "attention_parameters":
        return {
            "d_model": d_model,
            "n_heads": h,
            "n_kv_heads": _divisor(h, rng),
            "bias": rng.random() < 0.5,
            "output_projection": rng.random() < 0.7,
            "n_layers": rng.choice([1, 1, 2, 12, 24, 32, 80]),
            "d_head": rng.choice([None, None, rng.choice([64, 128, 256])]),
            "o_bias": rng.choice([None, None, False, True]),
        }
    if name == "single_vs_multi_head_parameters":
        return {
            "d_model": d_model,
            "n_heads": h,
            "bias": rng.random() < 0.5,
            "which": rng.choice(["multi", "single", "per_head"]),
        }
    kv = {
        "n_layers": rng.choice([2, 12, 24, 32, 40, 60, 80, 96]),
        "n_kv_heads": _divisor(h, rng),
        "d_head": d_head,
        "bytes_per_element": rng.choice([1, 2, 2, 4]),
    }
    if any(a.name == "n_heads" for a in engine.CALCULATORS[name].args):
        kv["n_heads"] = rng.choice([None, h])  # optional: lets "used n_heads" be recognised
    if name == "kv_cache_bytes":
        return {
            **kv,
            "seq_len": rng.choice([512, 1000, 2048, 4096, 8192]),
            "batch": rng.randint(1, 32),
            "window": rng.choice([None, 256, 1024, 4096]),
        }
    if name == "kv_cache_bytes_per_token":
        return kv
    if name == "kv_cache_savings":
        return {"n_heads": h, "n_kv_heads": _divisor(h, rng)}
    seq = rng.choice([16, 100, 128, 512, 1024, 2048, 4096])
    kv_len = rng.choice([None, rng.choice([64, 300, 1024, 8192])])
    if name == "attention_flops":
        part = rng.choice(["total", "projections", "scores", "weighted_sum", "output"])
        return {
            "seq_len": seq,
            "d_model": d_model,
            "n_heads": h,
            "batch": rng.randint(1, 8),
            "kv_len": kv_len,
            "part": part,
            "cached": kv_len is not None and kv_len >= seq and rng.random() < 0.8,
        }
    if name == "score_matrix_bytes":
        return {
            "batch": rng.randint(1, 16),
            "n_heads": h,
            "seq_len": seq,
            "bytes_per_element": rng.choice([1, 2, 4]),
            "kv_len": kv_len,
        }
    if name == "attention_shape":
        stages = [
            "input",
            "q",
            "q_heads",
            "k_heads",
            "scores",
            "context",
            "merged",
            "output",
            "w_q",
            "w_k",
            "w_qkv",
            "w_o",
        ]
        return {
            "batch": rng.randint(1, 8),
            "seq_len": seq,
            "d_model": d_model,
            "n_heads": h,
            "stage": rng.choice(stages),
            "n_kv_heads": _divisor(h, rng),
            "kv_len": kv_len,
        }
    if name == "attention_entry":
        t, d, d_v = rng.randint(2, 4), rng.randint(2, 4), rng.randint(2, 4)
        causal = rng.random() < 0.3
        s = t if causal else rng.randint(2, 4)
        which = rng.choice(["score", "weight", "output"])
        return {
            "q": _matrix(t, d, rng),
            "k": _matrix(s, d, rng),
            "v": _matrix(s, d_v, rng),
            "row": rng.randrange(t),
            "col": rng.randrange(d_v if which == "output" else s),
            "which": which,
            "causal": causal,
        }
    raise KeyError(name)


def answer_text(value: Any, base_unit: str) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    number = repr(value)
    if base_unit == "x":
        return number + "x"
    return f"{number} {base_unit}".strip()


def same_under(inst: Instance) -> Callable[[Any, Any], bool]:
    """Whether two values are the same answer under `inst`'s own tolerance (shapes: equal tuples)."""
    tol, factor = tolerance_of(inst), float(unit(inst.unit).factor)

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, tuple) or isinstance(b, tuple):
            return bool(a == b)
        return tol.accepts(float(a), float(b), display_factor=factor)

    return same
