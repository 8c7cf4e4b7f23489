"""Provides the coding exercises: for each, the function a learner writes, a reference solution, the
classic wrong versions (each a function the engine can run, with the sentence that explains it), and the
inputs a seed draws, edge cases first.

```python
ex = EXERCISES["code-mha-forward"]
for inputs in ex.cases(seed=3):          # dicts of keyword arguments, edge cases first
    want = ex.reference(**inputs)
ex.mistakes[0].compute(**inputs)         # what the softmax over the wrong axis gives
```
Grading a learner's code (running it in a child process, comparing, naming the mistake) lives in
quizapp.grading.code; this package only knows the mathematics.
"""

from __future__ import annotations

from engine.exercises.base import Exercise, Mistake
from engine.exercises.catalog import EXERCISES

__all__ = ["EXERCISES", "Exercise", "Mistake"]
