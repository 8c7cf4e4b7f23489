"""Provides the runner: a learner's untrusted code, run in a child process that confines itself.

- `run.run_solution`: one submission on the inputs a seed draws, answered as raw arrays and a checked report;
- `standby`: the pool that starts that child ahead of time (NumPy imported), one process per submission;
- `confine`: the app's side (what the child hides, which path this machine takes, the sentence that says so,
  the clean-up of what a run left);
- `confine_child`: the child's side, standard library and ctypes only (namespaces, Landlock, the seccomp
  allowlist), and `standby_child`: the program the child runs.

Nothing here knows exercises or verdicts: quizapp.grading.code compares the outputs with the reference.
"""
