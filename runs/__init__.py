"""A run recorded, checked, compared and printed, and the flags every command line shares.
In reading order:

- recording.py: the recording format: run the loop with a recorder, judge it, save, load.
- recording_check.py: the shape a loaded recording must have (recordings are untrusted).
- replay_check.py: comparing a replay with its recording, and naming where they part.
- printer.py: events on a terminal, with everything the model controls made inert.
- flags.py: the flags that choose a model and the run's settings.
- fix_flags.py, fix_task.py, offer.py: fix.py's own flags, the task it builds from a user's
  repository, and its offer of a patch on a terminal.

What this folder deliberately is not: the loop (agent_loop.py) or a model adapter.
"""
