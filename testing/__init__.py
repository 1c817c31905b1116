"""Shipped test doubles and the script that makes the scripted recordings. In reading order:

- scripted.py: scripted turns: chunk builders and ScriptedChat, a queue of turns.
- fake_ollama.py: a loopback server that speaks Ollama's NDJSON chat stream.
- fake_openai.py: a loopback server that speaks the Chat Completions SSE stream.
- make_recordings.py: writes the scripted recordings with the real recorder and fake_ollama.

What this folder deliberately is not: a model, or anything product code imports (only the
tests, bench.py and `evaluate.py --scripted` use it).
"""
