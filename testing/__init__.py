"""Shipped test doubles and the script that makes the scripted recordings. In reading order:

- scripted.py: scripted turns: the chunk builders (models/scripted_turns.py) and ScriptedChat,
  a queue of turns.
- loopback.py: a loopback HTTP server that plays a script of scripted events (stalls, drops,
  HTTP errors), shared by the two fake servers.
- fake_ollama.py: a loopback server that speaks Ollama's NDJSON chat stream.
- fake_openai.py: a loopback server that speaks the Chat Completions SSE stream.
- make_recordings.py: writes the scripted recordings with the real recorder and fake_ollama.
- pytest_memo.py: the test suite's memory of sandboxed pytest runs: a run of the same bytes is
  run once per session (conftest.py installs it; `--every-run-real` turns it off).
- bytecode.py: where the run's Python processes keep their bytecode when the shell says not to
  write it (conftest.py calls it).

What this folder deliberately is not: a model, or anything product code imports (only the
tests, conftest.py, make_recordings.py and the scripts under measurements/ use it).
"""
