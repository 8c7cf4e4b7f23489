"""Provides saving and loading of toy models as .npz files, and the shipped pretrained model."""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path

import numpy as np

from engine.toy.model import ToyConfig, ToyModel

PRETRAINED = Path(__file__).with_name("pretrained.npz")
FORMAT = 1
_CONFIG_FIELDS = ("vocab_size", "d_model", "n_layers", "n_heads", "max_len")


def save(model: ToyModel, path: str | Path) -> None:
    """Writes config, weights and how the model was trained (seed, steps; -1 when unknown)."""
    meta = {f"config.{name}": np.int64(getattr(model.config, name)) for name in _CONFIG_FIELDS}
    meta |= {"meta.format": np.int64(FORMAT), "meta.seed": np.int64(-1 if model.seed is None else model.seed),
             "meta.steps": np.int64(-1 if model.steps is None else model.steps)}  # fmt: skip
    arrays = {f"param.{name}": np.asarray(value) for name, value in model.params.items()}
    with open(path, "wb") as f:
        np.savez(f, **meta, **arrays)  # type: ignore[arg-type]


def load(path: str | Path) -> ToyModel:
    """Reads a file written by save; anything missing, corrupt or mismatched is a ValueError that says
    what was wrong, never a half-built model."""
    try:
        with open(path, "rb") as f:  # our own handle, so it is closed on errors too
            data = np.load(f, allow_pickle=False)
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise ValueError("it holds a single array, not an .npz archive")
            with data:
                contents = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise ValueError(f"toy model file {str(path)!r} does not exist") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"toy model file {str(path)!r} is not a readable .npz file: {exc}") from None
    missing = [k for k in ("meta.format", *(f"config.{n}" for n in _CONFIG_FIELDS)) if k not in contents]
    if missing:
        raise ValueError(f"toy model file {str(path)!r} lacks {missing}")
    if int(contents["meta.format"]) != FORMAT:
        raise ValueError(
            f"toy model file {str(path)!r} has format {int(contents['meta.format'])}; expected {FORMAT}"
        )
    try:
        config = ToyConfig(**{name: int(contents[f"config.{name}"]) for name in _CONFIG_FIELDS})
        params = {k.removeprefix("param."): v for k, v in contents.items() if k.startswith("param.")}
        seed, steps = (int(contents.get(f"meta.{k}", -1)) for k in ("seed", "steps"))
        return ToyModel(config, params, seed=None if seed < 0 else seed, steps=None if steps < 0 else steps)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"toy model file {str(path)!r} does not hold a valid model: {exc}") from None


@functools.cache
def pretrained() -> ToyModel:
    """The shipped model (engine/toy/pretrained.npz, built by `python -m engine.toy.build`), loaded once."""
    return load(PRETRAINED)
