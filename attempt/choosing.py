"""Choosing among a search's candidates: the tests decide, never what a model said.

A candidate (one trajectory of the loop on its own copy) is eligible when its own test run
passed, by the rule the verdict applies too (workspace/passing.py, against the start run: exit
code 0 in time, the start run's tests all counted and passed, none failed, errored or newly
skipped), and it changed only editable files and no test code: one that touched a test (the
task's `is_test_file`, whatever `--editable` says) or any other file is never chosen, whatever its
tests say. Among the eligible, the fewest changed lines wins (the smallest repair is the one a
reviewer can check, and the least likely to do more than the bug asks), then the lowest index.
None eligible: the attempt is not repaired, and `closest` names the candidate with the fewest
failing tests, for the report to show. `shown_index` says which run heads the recording (the
chosen one, else the closest, else the first), and `own_tests` what a candidate's record keeps of
its own test run and changes: what the choice reads, live and in a replay alike.

What this file deliberately is not: the verdict. The chosen candidate is judged again,
independently, on a fresh copy (workspace/verdict.py); this only picks which one.
"""
from workspace.passing import passes
from workspace.pytest_output import NOT_RUN
from workspace.verdict import changed_lines, changes

# What a candidate keeps of its tests: what the choice reads (passing.py), and where they ran.
TEST_FIELDS = ("exit_code", "passed", "failed", "errors", "subtests_failed", *NOT_RUN, "timed_out", "sandbox")


def own_tests(tools, tests):
    """What a candidate's record keeps of its run on `tools`: its changes and its own `tests`."""
    found = changes(tools.task, tools.root)
    return {"changed_files": found["changed_files"], "diff": found["diff"],
            "tests": {key: tests[key] for key in TEST_FIELDS if key in tests}}


def eligible(candidate, task, start_tests):
    """A candidate that may be chosen: its tests passed, and it changed editable files only, none of
    them test code (an editable test file passes its own tests by being changed)."""
    changed = candidate.get("changed_files") or []
    return (passes(candidate.get("tests"), start_tests) and bool(changed) and set(changed) <= set(task.editable)
            and not any(task.is_test_file(path) for path in changed))


def choose(records, task, start_tests):
    """(index of the chosen candidate, why), or (None, why) when none of the candidates' `records`
    may be chosen."""
    fits = [c for c in records if eligible(c, task, start_tests)]
    if not fits:
        ran = sum(1 for c in records if "tests" in c)
        return None, (f"none of the {ran} candidates that ran passed its tests with only editable files "
                      "changed, none of them test code")
    best = min(fits, key=lambda c: (changed_lines(c.get("diff")), c["index"]))
    others = len(fits) - 1
    tie = f"; {others} other{'s' * (others > 1)} passed too, with as many or more changed lines" if others else ""
    return best["index"], (f"candidate {best['index']} passed its tests, changing only editable files "
                           f"({changed_lines(best.get('diff'))} lines){tie}")


def closest(records, start_tests):
    """The index of the candidate whose tests came nearest to passing (fewest failed and
    errored, then the lowest index), or None when none has a test result."""
    tested = [c for c in records if isinstance(c.get("tests"), dict)]
    if not tested:
        return None

    def failing(candidate):
        tests = candidate["tests"]
        counts = [tests.get(key) for key in ("failed", "errors")]
        return sum(n for n in counts if isinstance(n, int) and not isinstance(n, bool)) or (
            0 if passes(tests, start_tests) else 1)
    return min(tested, key=lambda c: (failing(c), c["index"]))["index"]


def shown_index(records, chosen, start_tests):
    """The candidate a search's recording shows at the top: the chosen one, else the one that came
    closest, else (every one lost to a server) the first."""
    tried = [r for r in records if "tests" in r]  # not lost to a server
    shown = chosen if chosen is not None else closest(tried, start_tests)
    return shown if shown is not None else records[0]["index"]
