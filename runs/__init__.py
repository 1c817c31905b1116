"""The recording format (a run written, checked, compared, served back and printed), and the
flags every command line shares. In reading order:

- recording.py: the recording format: run the loop with a recorder, judge it; recording_file.py:
  a recording as a file (plain JSON of anything, saved atomically, kept, loaded and checked).
- recording_check.py: the shape a loaded recording must have (recordings are untrusted).
- replay_check.py: comparing a replay with its recording, and naming where they part.
- served_tools.py: tools that answer each call with its recorded result (a served replay).
- printer.py: events on a terminal, with everything the model controls made inert.
- ctrl_c.py: a stop (Ctrl-C, SIGTERM, SIGHUP) that is never lost and takes effect at once: every
  model stream and test run closed, what ran kept (`Interrupted`).
- progress.py: a search's status line on the terminal (turn, tokens, rate, time, an estimate).
- replay_table.py: a replay printed: each recording's transcript, then the closing table.
- flags.py: the flags every command line shares, parsed once into typed values: the model
  (a models.choice.ModelChoice) and the settings (a LoopSettings).
- adapters.py: a model choice made real: the adapter it names, and its servers asked first.

What this folder deliberately is not: the loop (agent_loop.py), a model adapter
(local_model.py, openai_model.py), or a command line's own pieces (fixing/, evaluation/).
"""
