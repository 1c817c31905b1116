"""Choosing among a search's candidates: the tests decide, never what a model said.

A candidate (one trajectory of the loop on its own copy) is eligible when its own test run
passed (exit code 0 in time, at least one test passed, none failed or errored) and it changed
only editable files: one that touched a test or any other file is never chosen, whatever its
tests say. Among the eligible, the fewest changed lines wins (the smallest repair is the one a
reviewer can check, and the least likely to do more than the bug asks), then the lowest index.
None eligible: the attempt is not repaired, and `closest` names the candidate with the fewest
failing tests, for the report to show.

What this file deliberately is not: the verdict. The chosen candidate is judged again,
independently, on a fresh copy (workspace/verdict.py); this only picks which one.
"""


def passed(tests):
    """Did a candidate's own test run pass? Missing or odd fields count as a failure."""
    if not isinstance(tests, dict):
        return False
    counts = [tests.get(key, 0) for key in ("passed", "failed", "errors")]
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in counts):
        return False
    return tests.get("exit_code") == 0 and not tests.get("timed_out") and counts[0] > 0 and counts[1:] == [0, 0]


def eligible(candidate, editable):
    """A candidate that may be chosen: its tests passed, and it changed editable files only."""
    changed = candidate.get("changed_files") or []
    return passed(candidate.get("tests")) and bool(changed) and set(changed) <= set(editable)


def changed_lines(diff):
    """Lines a unified diff adds or removes (its ---/+++ headers are not changes)."""
    return sum(1 for line in str(diff or "").splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def choose(candidates, editable):
    """(index of the chosen candidate, why), or (None, why) when no candidate may be chosen."""
    fits = [c for c in candidates if eligible(c, editable)]
    if not fits:
        ran = sum(1 for c in candidates if "tests" in c)
        return None, f"none of the {ran} candidates that ran passed its tests with only editable files changed"
    best = min(fits, key=lambda c: (changed_lines(c.get("diff")), c["index"]))
    others = len(fits) - 1
    tie = f"; {others} other{'s' * (others > 1)} passed too, with as many or more changed lines" if others else ""
    return best["index"], (f"candidate {best['index']} passed its tests, changing only editable files "
                           f"({changed_lines(best.get('diff'))} lines){tie}")


def closest(candidates):
    """The index of the candidate whose tests came nearest to passing (fewest failed and
    errored, then the lowest index), or None when none has a test result."""
    tested = [c for c in candidates if isinstance(c.get("tests"), dict)]
    if not tested:
        return None

    def failing(candidate):
        tests = candidate["tests"]
        counts = [tests.get(key) for key in ("failed", "errors")]
        return sum(n for n in counts if isinstance(n, int) and not isinstance(n, bool)) or (
            0 if passed(tests) else 1)
    return min(tested, key=lambda c: (failing(c), c["index"]))["index"]
