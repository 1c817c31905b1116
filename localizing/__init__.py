"""Localization from the tests, not the model: which functions and methods are most likely at
fault, ranked before the model is asked, so a small model is shown those whole and asked for
them alone. In reading order:

- ranking.py: `localize(tools, start_tests)`: the ranked definitions and what the coverage run
  did, as plain JSON (the value every run's start computes and a recording keeps).
- coverage_run.py: the tests run once under the coverage package (the field's standard),
  sandboxed, with a context per test: each line's count of failing and passing tests (the
  spectrum Ochiai scores).
- definitions.py: a module's functions and methods as `ast` reads them (qualified names, first
  and last lines): what a line belongs to.
- failing_uses.py: the code a failing test calls, read from its source: the files (what fix.py
  shows a model first) and the names (what the ranking credits).

What this folder deliberately is not: what the model is shown of the ranking (loop/context.py
renders `focus`), a tracer of its own (the coverage package traces), or a judge: a ranking is
a hint.
"""
