"""Provides Exercise and Mistake: what a coding exercise is, independent of any one exercise."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Inputs = dict[str, Any]


@dataclass(frozen=True)
class Mistake:
    """A classic wrong version: `compute` takes the exercise's inputs and returns what that mistake gives;
    an output that matches it (and not the reference) is named with `text`."""

    id: str
    text: str
    compute: Callable[..., Any]


@dataclass(frozen=True)
class Exercise:
    """One function to write. `cases(seed)` draws at least five input sets, the edge cases first, so a
    solution that only handles the common case fails on a case the learner can read."""

    id: str
    title: str
    function: str
    """The name the learner's code must define."""
    signature: str
    prompt: str
    reference: Callable[..., Any]
    mistakes: tuple[Mistake, ...]
    cases: Callable[[int], list[Inputs]]
    rtol: float = 1e-6
    atol: float = 1e-8

    @property
    def starter(self) -> str:
        """What the editor opens with: the signature, the docstring-free body to fill in."""
        return f"import numpy as np\n\n\ndef {self.signature}:\n    raise NotImplementedError\n"

    @property
    def solution(self) -> str:
        """The reference solution as source the learner can read, named as the exercise asks."""
        return source_as(self.reference, self.function)


def source_as(func: Callable[..., Any], name: str) -> str:
    """A function's source renamed to `name`, with its import, so it runs on its own."""
    source = textwrap.dedent(inspect.getsource(func))
    head, _, rest = source.partition("(")
    return "import numpy as np\n\n\n" + head.rsplit(" ", 1)[0] + f" {name}(" + rest


def rng_for(exercise_id: str, seed: int) -> np.random.Generator:
    """Independent draws per exercise and seed, the same on every machine."""
    key = int.from_bytes(exercise_id.encode("utf-8")[:8].ljust(8, b"\0"), "little")
    return np.random.default_rng([seed, key])
