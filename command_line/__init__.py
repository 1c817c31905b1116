"""What every command line shares: its flags, its terminal, and how it stops. In reading order:

- shared_flags.py: the flags every command line shares, parsed once into typed values: the
  model (a models.choice.ModelChoice) and the settings (a LoopSettings); cluster_flags.py: the
  `--ray` flags of evaluate.py and improve.py.
- printer.py: events on a terminal, with everything the model controls made inert, and the
  one-line errors a command line ends with.
- attempt_view.py: an attempt's own events on a terminal (its start tests, its localization, a
  search's status and each candidate's line).
- progress.py: a search's status line on the terminal (turn, tokens, rate, time, an estimate).
- ctrl_c.py: a stop (Ctrl-C, SIGTERM, SIGHUP) that is never lost and takes effect at once: every
  model stream and test run closed, what ran kept (`Interrupted`).

What this folder deliberately is not: the recording format (runs/), an attempt (attempt/), or a
command line's own pieces (fixing/, evaluation/, outer_loop/).
"""
