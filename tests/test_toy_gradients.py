"""The hand-written backward pass of engine.toy against torch autograd on the same weights and batch.

torch's loss and gradients are committed in tests/golden/toy_gradients.npz (written by
tests/golden/make_toy_gradients.py); only the tests marked `torch` run torch itself.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from engine.toy.backward import loss_and_grads
from engine.toy.model import ToyConfig, ToyModel

GOLDEN_DIR = Path(__file__).parent / "golden"
FIXTURE = GOLDEN_DIR / "toy_gradients.npz"

with np.load(FIXTURE, allow_pickle=False) as _z:
    ARRAYS: dict[str, np.ndarray] = {k: _z[k] for k in _z.files}
META: dict[str, dict[str, Any]] = json.loads(str(ARRAYS["meta"]))


def _case(name: str) -> tuple[ToyConfig, dict[str, np.ndarray], np.ndarray]:
    config = ToyConfig(**META[name])
    params = {k: ARRAYS[f"{name}/param/{k}"] for k in config.shapes()}
    return config, params, ARRAYS[f"{name}/tokens"]


def _assert_grads_equal(grads: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    assert set(grads) == set(expected)
    for name, g in grads.items():
        assert g.dtype == np.float64
        np.testing.assert_allclose(
            g, expected[name], rtol=1e-9, atol=1e-10 * float(np.abs(g).max()), err_msg=name
        )


@pytest.mark.parametrize("name", sorted(META))
def test_every_gradient_equals_torch_autograd(name: str) -> None:
    config, params, tokens = _case(name)
    loss, grads = loss_and_grads(config, params, tokens)
    assert loss == pytest.approx(float(ARRAYS[f"{name}/loss"]), rel=1e-12)
    _assert_grads_equal(grads, {k: ARRAYS[f"{name}/grad/{k}"] for k in config.shapes()})


@pytest.mark.parametrize("name", sorted(META))
def test_forward_loss_equals_torch(name: str) -> None:
    """The model's own forward pass (one sequence at a time) gives torch's batch loss."""
    config, params, tokens = _case(name)
    model = ToyModel(config, params)
    per_row = [model.loss(row).mean() for row in tokens]
    assert float(np.mean(per_row)) == pytest.approx(float(ARRAYS[f"{name}/loss"]), rel=1e-12)


def _golden_script() -> ModuleType:
    """tests/golden/make_toy_gradients.py, loaded by path (tests/golden is not a package)."""
    spec = importlib.util.spec_from_file_location("make_toy_gradients", GOLDEN_DIR / "make_toy_gradients.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(META))
def test_the_fixture_is_what_torch_computes_now(name: str) -> None:
    """The committed npz still matches torch autograd (a stale fixture would test nothing)."""
    pytest.importorskip("torch")
    script = _golden_script()
    config, params, tokens = _case(name)
    loss, grads = script.torch_loss_and_grads(config, params, tokens)
    assert loss == pytest.approx(float(ARRAYS[f"{name}/loss"]), rel=1e-12)
    _assert_grads_equal(grads, {k: ARRAYS[f"{name}/grad/{k}"] for k in config.shapes()})


@pytest.mark.torch
def test_the_shipped_size_gradients_equal_torch_autograd() -> None:
    """The shipped model's sizes (too large to commit as a fixture), checked live against torch."""
    pytest.importorskip("torch")
    script = _golden_script()
    config = ToyConfig()
    params, tokens = script.case_inputs(config, seed=3)
    expected_loss, expected = script.torch_loss_and_grads(config, params, tokens)
    loss, grads = loss_and_grads(config, params, tokens)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    _assert_grads_equal(grads, expected)
