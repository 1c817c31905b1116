"""A task's repository and everything that touches its files. In reading order:

- task_catalog.py: the tasks (`tasks/<name>/task.json`, or any folder's), checked as untrusted
  input, their allowlists and fresh copies that never follow a link.
- pytest_run.py: one fixed pytest command run as untrusted code, bounded in every way.
- sandbox.py: the bubblewrap command line and the resource limits pytest_run.py runs under.
- verdict.py: the independent verdict, on a clean copy that receives only the editable files.

What this folder deliberately is not: the model's tools (repo_tools.py at the root chooses
what the model may do; this folder does it) or anything that talks to a model.
"""
