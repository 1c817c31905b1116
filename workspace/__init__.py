"""A task's repository, for every run: tasks, copies, the sandboxed pytest and its output, the
verdict, safe file writes. In reading order:

- task_catalog.py: the tasks (tasks/path_rules/task.json and its siblings, or any folder's),
  their allowlists, and fresh copies that never follow a link.
- task_checks.py: a task folder checked as untrusted input, once, when it is loaded.
- pytest_run.py: one fixed pytest command run as untrusted code, bounded in every way.
- sandbox.py: the bubblewrap command line and the resource limits pytest_run.py runs under.
- pytest_output.py: what the tests did, read from pytest's output in one place: counts, failures
  with their E lines and frames, the files a traceback blames; pytest_collection.py: what it says
  before any test runs (what `--collect-only` found, a module it cannot import, no pytest).
- test_selection.py: the tests a check of the harness runs first: the start run's failing node
  ids, and a pytest command narrowed to exactly them.
- passing.py: when a run's tests pass, against the start run: the one rule of the search's
  choice and the verdict; and the start run, counted by --collect-only when it hung.
- verdict.py: the independent verdict, on a clean copy that receives only the editable files.
- files.py: atomic writes, fingerprints, removing trees.
- file_limits.py: what of a file the model may read and edit: the size limit, read_file's
  slice of a big file, and why a file is not text the tools can edit.
- user_tests.py: which files are test code, the one answer for every task: named like a test,
  and in a user's project what its tests import too, read by python_imports.py (the imports,
  never run) and project_names.py (the packages its packaging names).

What this folder deliberately is not: the model's tools (repo_tools.py at the root chooses what
the model may do; this folder does it), fix.py's side of a user's repository (fixing/), or
anything that talks to a model.
"""
