"""improve.py's wing, the outer loop: evaluate a configuration, rewrite it from the failing
traces, repeat. In reading order:

- climb.py: the climb: `Plan`, `run_improvement` (an evaluation per iteration, the improver's
  decision between them, the held-out tasks at the end) and `next_settings`.
- record.py: OUT/improvement.json, what improve.py keeps: started, checked on resume (it is
  untrusted), saved.
- rules.py: the rules: each reads the failed attempts' traces and changes one setting, citing
  the attempts that are its evidence.
- traces.py: what an attempt's events show (did it run the tests? write calls as text?).
- prompt_rewrite.py: the `model` improver: the system prompt rewritten by the model from a
  digest of the failures, checked and completed with the rules it may not drop.
- improvement_report.py: the improvement's HTML page (the climb, every change, every attempt).
- rederive.py: `improve.py --replay DIR`: a finished improvement re-derived from its recordings.

What this folder deliberately is not: an evaluation (evaluation/ runs each one) or a judge:
every pass rate comes from independent pytest verdicts.
"""
