"""The loop's parts, which agent_loop.py calls at each step of a turn. In reading order:

- run_state.py: what a run keeps from turn to turn (messages, counts, the tools offered) and
  its budget; settings.py: the checks LoopSettings runs once when it is made.
- dispatch.py: running a turn's calls: refusals, errors, at most 32 per turn, one result each;
  tool_checks.py: checking a call's arguments against its flat schema.
- written.py: what a turn without native calls wrote as text, edits first, then calls:
  - text_edits.py: code blocks and diffs as edits, with text_edits_code.py (Python blocks,
    definitions and whole files), text_edits_defs.py (methods, in their class or alone),
    text_edits_diff.py (unified diffs) and text_edits_names.py (which file a block is named for);
  - text_calls.py: tool calls written as text, with text_calls_code.py (JSON and Python
    calls) and text_calls_markup.py (the models' own tags);
  - line_endings.py: a file's line endings, kept through an edit a model wrote with "\n".
- judge.py: judging the turn (finished, malformed, stuck, a finish to check), with
  turn_policy.py: what the model is told (nudges) and when a run is stuck.
- context.py: what `context="preload"` writes into messages: the files and the failures, as
  failure_digest.py cuts pytest's output down (read by workspace/pytest_output.py); a long
  file is shown by definitions (context_defs.py), both sides reading module_map.py (a module's
  definitions by name and line, and `answer_form`, which says how a file is answered);
  context_files.py puts each file in its block within the budget, and context_focus.py chooses,
  under `preload_scope="focus"`, the code the ranking points into, alone.

Reading what a model wrote as text stays here, not beside the adapters (models/): it is the
loop's policy, set by LoopSettings (`text_calls`, `text_edits`), the same for every adapter and
for a replay, and it reads the task's own files (an edit is checked against them).

What this folder deliberately is not: a model adapter (no SDK is imported here), the tools
themselves (repo_tools.py), or a recorder (runs/).
"""
