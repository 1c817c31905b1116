"""What the model adapters share, the model a command line chose, and the scripted models that
stand in for a real one. In reading order:

- choice.py: `ModelChoice`, the model a command line chose as one typed value (adapter, name,
  servers, options), checked when it is made and passed everywhere a model is needed.
- adapter_http.py: what both adapters share: `ModelUnavailable` (the one error a command line
  reports) and a deadline on every HTTP request, whatever the server sends.
- closing.py: every open model connection, and closing them all at once (a stop in any thread).
- openai_stream.py: a Chat Completions stream read into Ollama-shaped chunks, and the loop's
  history written back as Chat Completions messages (openai_model.py's wire work).
- scripted_turns.py: scripted model turns: the chunk builders and `ScriptedTurns`, a queue.
- scripted_attempts.py: the shipped scripted attempts for every task (`evaluate.py --scripted`).
- scripted_model.py: a scripted small model whose answers depend on the settings it is run
  with (`improve.py --scripted`), so the outer loop can climb offline.

What this folder deliberately is not: an adapter (local_model.py and openai_model.py, at the
root, are), or a reader of what a model wrote as text (loop/ reads calls and edits written as
text: that is the loop's policy, the same whatever the adapter).
"""
