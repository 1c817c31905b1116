"""Many runs measured: grades, summaries, the HTML report and the shipped scripted attempts.
In reading order:

- grades.py: process grades, the model's final claim, pass@k, the summary.
- report.py: one self-contained HTML page for an evaluation: its facts and a grid of tasks × attempts.
- report_attempt.py: one attempt's section of a report (verdict, claim, grades, failing tests, diff),
  with report_transcript.py (its turns and tool calls) and report_files.py (each changed file
  before and after), shared with improve.py's report.
- html_parts.py: escaping, cutting, code blocks, diffs and the page itself, for every report.
- scripted_attempts.py: scripted attempts for every task, so the whole path runs offline.
- runner.py (an evaluation start to end) with folder.py, attempt.py and workers.py.
- the outer loop: improvement.py, improvement_record.py (improvement.json, its plan and its
  resume), improver.py, traces.py, prompt_improver.py, improve_report.py, improvement_replay.py;
  and scripted_turns.py and scripted_model.py, the scripted model it climbs with offline.

What this folder deliberately is not: a verdict (workspace/verdict.py is) or part of the loop.
"""
