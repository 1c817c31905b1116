"""Named configurations of the loop, as data: one JSON file each, read and checked once into a
LoopSettings (agent_loop.py), with the model options it was measured with ("options": levers,
small-model and small-model-explain at temperature 0.7). Every command line takes `--settings
NAME|FILE`; its flags still override one field, or one option, at a time. In reading order:

- plain.json: the loop's own defaults, the card's loop (what record_run.py and evaluate.py use).
- levers.json: every lever of the README's first measurement on (preload, edits and calls
  written as text run, the finish checked).
- small-model.json: the levers, a system prompt written for preloaded context and whole-file
  answers (the wrong line first), the tests after each edit, and a search over several
  candidates.
- small-model-explain.json: small-model, with the answer asked for the way aider asks for it:
  what the code does wrong, then the entire corrected file (`answer_hint`, the system prompt).
  What measured best on a real 1.5B model (fix.py's default).
- weak.json: a deliberately weak start for improve.py's outer loop (`--start weak`).
- named.py: reading them: `load_settings(NAME or FILE)`, `load_preset` (with the options), `names()`.

What this folder deliberately is not: a config framework. A file holds LoopSettings' fields,
an "about" sentence and the model "options"; nothing else is read from it.
"""
