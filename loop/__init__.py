"""The loop's parts, which agent_loop.py calls at each step of a turn. In reading order:

- turn_policy.py: when a turn is malformed, when the model is stuck, and what it is told (nudges).
- dispatch.py: running a turn's calls: refusals, errors, at most 32 per turn, one result each.
- tool_checks.py: checking a call's arguments against its flat schema.
- text_calls.py: tool calls a small model wrote into its text (with text_calls_code.py for
  JSON and Python calls, text_calls_markup.py for the models' own tags).
- line_endings.py: a file's line endings, kept through an edit a model wrote with "\n".
- context.py: what `context="preload"` writes into messages: the files and the failures (the
  failures as failure_digest.py cuts pytest's output down to, read by workspace/pytest_output.py).

What this folder deliberately is not: a model adapter (no SDK is imported here), the tools
themselves (repo_tools.py), or a recorder (runs/).
"""
