"""evaluate.py's machinery: tasks × attempts run, graded, summed up and reported. In reading order:

- runner.py: an evaluation start to end (claim the folder, plan the slots, run them, keep the
  summary and the report true); labels.py: what every attempt and summary is labelled with (the
  model, the checkout's commit).
- folder.py: an evaluation's output folder: claimed, locked, resumed slot by slot.
- job.py: one attempt in a worker process: the attempt (attempt/run.py, a run or a search),
  its grades, the attempt file.
- workers.py: worker processes, and stopping every one of them at once.
- cluster.py: the same on a Ray cluster (`--ray`): each attempt a Ray task on any node, the
  sandbox asked on each node first; cluster_slots.py: the servers' slots, counted there by one
  actor; cluster_cancel.py: a cancelled attempt task closes its model connections and kills its
  tests, as Ctrl-C does in a local worker. Nothing imports these without --ray.
- grades.py: process grades, the model's final claim, pass@k, the summary; coverage.py: how a
  search's pass rate grows with its number of candidates, from runs that let every one run.
- report.py: one self-contained HTML page for an evaluation: its facts and a grid of tasks ×
  attempts; report_attempt.py: one attempt's section (verdict, claim, grades, failing tests,
  diff), with report_transcript.py (its turns and tool calls), report_files.py (each changed
  file before and after) and report_search.py (a search's candidates and coverage curve).
- html_parts.py: escaping, cutting, code blocks, diffs and the page itself, for every report.

What this folder deliberately is not: a verdict (workspace/verdict.py is), part of the loop, or
the outer loop that runs evaluations one after another (outer_loop/).
"""
