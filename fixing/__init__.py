"""fix.py's wing: a failing test in a user's own repository, repaired only with approval. In
reading order:

- flags.py: fix.py's command line: the shared flags (command_line/shared_flags.py) and its own.
- first_steps.py: the steps before the model, in one call (`prepare`): the input checked, the
  starting tree copied, the tests run the project's way, the task built from them.
- repo.py: the user's repository, read and never written: its files, its git state, the
  pristine starting tree every run starts from.
- project_pytest.py: the project's tests run its own way (its interpreter, its pytest
  configuration), sandboxed, on a copy.
- collected.py: which files pytest collects as tests, less the modules it takes only for their
  doctests (`--doctest-modules`): those are code to repair.
- sorted_files.py: the copy's files sorted once into one frozen value (test, tooling, code or
  other; each one's size as text; what the failing tests blame and call) that the choice reads.
- task.py: the task built from it (ticket, readable and editable files within a budget), and
  how a recording keeps it (`task_spec`) and rebuilds it for a replay (`recorded_task`).
- left_out.py: what the copy and the choice left out, and why: on the terminal, in the
  recording, and in the one line of "nothing to edit".
- patch.py: the patch, its guardrails, and applying it once approved.
- offer.py: the offer on a terminal: the verdict, the patch (coloured, inert), the question, and
  the patch applied only when every gate opens.

What this folder deliberately is not: the run (agent_loop.py, runs/recording.py), the verdict
(workspace/verdict.py), or a git client: nothing here commits, branches or stashes.
"""
