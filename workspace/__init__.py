"""A task's repository and everything that touches its files. In reading order:

- task_catalog.py: the tasks (`tasks/<name>/task.json`, or any folder's), checked as untrusted
  input, their allowlists and fresh copies that never follow a link.
- pytest_run.py: one fixed pytest command run as untrusted code, bounded in every way.
- pytest_output.py: pytest's output read in one place: counts, failures with their E lines and
  frames, the files a traceback blames.
- sandbox.py: the bubblewrap command line and the resource limits pytest_run.py runs under.
- verdict.py: the independent verdict, on a clean copy that receives only the editable files.
- files.py: atomic writes, fingerprints, removing trees.
- user_tests.py: which files are test code, the one answer for every task: named like a test,
  and in a user's project what its tests import too (python_imports.py reads imports,
  project_names.py the packaging).
- fix.py's side, a user's own repository: user_repo.py (its files, read and copied, never
  written), project_pytest.py (its tests run its own way), failing_uses.py (the code a failing
  test calls, shown to a model first), user_task.py (the task built from it), patch.py (the
  patch, the guardrails, and applying it once approved).

What this folder deliberately is not: the model's tools (repo_tools.py at the root chooses
what the model may do; this folder does it) or anything that talks to a model.
"""
