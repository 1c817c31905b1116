"""Choosing among a search's candidates: the tests decide, never what a model said.

A candidate (one trajectory of the loop on its own copy) is eligible when its own test run
passed, by the rule the verdict applies too (workspace/passing.py, against the start run: exit
code 0 in time, the start run's tests all counted and passed, none failed, errored or newly
skipped), and it changed only editable files and no test code: one that touched a test (the
task's `is_test_file`, whatever `--editable` says) or any other file is never chosen, whatever its
tests say. Among the eligible, the fewest changed lines wins (the smallest repair is the one a
reviewer can check, and the least likely to do more than the bug asks), then the lowest index.
None eligible: the attempt is not repaired, and `closest` names the candidate with the fewest
failing tests, for the report to show.

What this file deliberately is not: the verdict. The chosen candidate is judged again,
independently, on a fresh copy (workspace/verdict.py); this only picks which one.
"""
from workspace.passing import passes
from workspace.verdict import changed_lines


def eligible(candidate, task, start_tests):
    """A candidate that may be chosen: its tests passed, and it changed editable files only, none of
    them test code (an editable test file passes its own tests by being changed)."""
    changed = candidate.get("changed_files") or []
    return (passes(candidate.get("tests"), start_tests) and bool(changed) and set(changed) <= set(task.editable)
            and not any(task.is_test_file(path) for path in changed))


def choose(candidates, task, start_tests):
    """(index of the chosen candidate, why), or (None, why) when no candidate may be chosen."""
    fits = [c for c in candidates if eligible(c, task, start_tests)]
    if not fits:
        ran = sum(1 for c in candidates if "tests" in c)
        return None, (f"none of the {ran} candidates that ran passed its tests with only editable files "
                      "changed, none of them test code")
    best = min(fits, key=lambda c: (changed_lines(c.get("diff")), c["index"]))
    others = len(fits) - 1
    tie = f"; {others} other{'s' * (others > 1)} passed too, with as many or more changed lines" if others else ""
    return best["index"], (f"candidate {best['index']} passed its tests, changing only editable files "
                           f"({changed_lines(best.get('diff'))} lines){tie}")


def closest(candidates, start_tests):
    """The index of the candidate whose tests came nearest to passing (fewest failed and
    errored, then the lowest index), or None when none has a test result."""
    tested = [c for c in candidates if isinstance(c.get("tests"), dict)]
    if not tested:
        return None

    def failing(candidate):
        tests = candidate["tests"]
        counts = [tests.get(key) for key in ("failed", "errors")]
        return sum(n for n in counts if isinstance(n, int) and not isinstance(n, bool)) or (
            0 if passes(tests, start_tests) else 1)
    return min(tested, key=lambda c: (failing(c), c["index"]))["index"]
