"""Many runs measured: grades, summaries, the HTML report and the shipped scripted attempts.
In reading order:

- grades.py: process grades, the model's final claim, pass@k, the summary.
- report.py: one self-contained HTML page for an evaluation.
- scripted_attempts.py: scripted attempts for every task, so the whole path runs offline.

What this folder deliberately is not: a verdict (workspace/verdict.py is) or part of the loop.
"""
