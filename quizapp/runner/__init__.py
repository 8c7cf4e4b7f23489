"""Provides the runner: a learner's untrusted code, run in a child process that confines itself.

- `run.run_solution`: one submission on the inputs a seed draws, answered as raw arrays and a checked report;
- `standby`: the pool that starts that child ahead of time (NumPy imported), one process per submission;
  `standby_process`: one such child, and how its job and report travel;
- `confine`: the app's side (what the child hides, which path this machine takes, the sentence that says so,
  the clean-up of what a run left);
- the child's side, standard library and ctypes only, its text run in the child (`child_library`):
  `confine_child` (namespaces, a new root), `lockdown_child` (limits, capabilities, Landlock, the seccomp
  allowlist of `seccomp`), `folder_child` (the run's folder, removed without following a link), and
  `standby_child`: the program the child runs.

Nothing here knows exercises or verdicts: quizapp.grading.code compares the outputs with the reference.
"""
