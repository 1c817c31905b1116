"""The offline suite beyond the card's two test files (test_loop.py, test_recorded.py at the
root), in the order of the rooms it tests:

- what several test files share: helpers.py (the sample's repair, the loop runner, event
  filters), processes.py (process-table probes, and items that run in a worker process),
  network.py (a port nothing listens on, a server that never answers), terminal.py (a command
  line on a real terminal, and Ctrl-C), user_repos.py (small user repositories for fix.py),
  browser.py (chromium), forked_pytest.py (the tasks' own pytest runs, forked from one warm
  interpreter), ray_parts.py (the two-node Ray cluster and what its tests share); wire_captures/
  holds real server streams.
- the loop (loop/): test_policies.py, test_untrusted.py, test_text_calls.py,
  test_text_edits.py, test_line_endings.py, test_unchanged_edits.py, test_check_edits.py,
  test_check_first.py, test_context.py, test_levers.py, test_method_edits.py, test_answer_form.py,
  test_focus_scope.py, test_repetition.py.
- the tools and a task's repository (repo_tools.py, workspace/): test_tools.py,
  test_sandbox.py, test_pytest_output.py, test_verdict.py, test_task_catalog.py, test_tasks.py.
- the models (local_model.py, openai_model.py, models/): test_local_model.py,
  test_openai_model.py, test_model_choice.py.
- recordings and command lines (runs/, command_line/, record_run.py, replay.py): test_record_run.py,
  test_replay.py, test_compressed.py, test_printer.py, test_ctrl_c.py, test_progress.py (a search's status line and
  a stop that takes effect at once, on a real terminal), test_mistakes.py (a user's mistakes named).
- localizing/: test_localizing.py.
- attempt/: test_search.py, test_coverage.py (evaluation/coverage.py, a search's curve).
- evaluation/: test_evaluate.py, test_evaluate_trust.py, test_ray.py and test_ray_stops.py (on a real Ray cluster),
  test_report.py,
  test_report_attempt.py.
- outer_loop/: test_improver.py, test_improve.py, test_improve_trust.py.
- fixing/: test_fix_parts.py, test_fix_choices.py, test_fix_inputs.py, test_fix.py,
  test_fix_real_repos.py, test_fix_projects.py, test_fix_big_modules.py.
- the house itself: test_layers.py (layers, doors, entry points, every file prose names), test_entry_points.py,
  test_tutorial.py (TUTORIAL.md and README.md stay true); and the suite's own memory of pytest
  runs (testing/pytest_memo.py): test_pytest_memo.py, and its bytecode folder
  (testing/bytecode.py): test_bytecode.py.

No test file imports another test file.

What this folder deliberately is not: a place for product code, or tests that need a model.
"""
