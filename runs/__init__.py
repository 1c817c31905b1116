"""The recording format: a run captured, written, checked, replayed against and printed. In
reading order:

- recording.py: capture a run (the loop with a recorder, then the verdict); recording_file.py:
  a recording as a file (plain JSON of anything, saved atomically, kept, loaded and checked).
- recording_check.py: the shape a loaded recording must have (recordings are untrusted).
- replay_check.py: comparing a replay with its recording, and naming where they part.
- served_tools.py: tools that answer each call with its recorded result (a served replay).
- replay_table.py: a replay printed: each recording's transcript, then the closing table.

What this folder deliberately is not: the loop (agent_loop.py), a model adapter
(local_model.py, openai_model.py), an attempt (attempt/ runs one and labels its recording), or
what every command line shares (command_line/).
"""
