"""How a search's pass rate grows with its number of candidates, and what it cost.

An evaluation run with `--all-candidates` lets every candidate of an attempt run, and judges
every one that passed its tests independently (attempt/side_by_side.py). From that, the pass rate
of a search with only n of those N candidates follows without running it again: the unbiased
estimator 1 - C(N-c, n)/C(N, n) over the attempt's c repairing candidates, the same estimator as
pass@k (Chen et al. 2021), so the curve does not depend on which candidates happened to come
first. Attempts of the same task are pooled: with `--attempts k`, each attempt's candidates get
their own seeds (run (k-1)·N + i), so k attempts of N candidates are k·N draws of the same search,
and the curve reaches n = k·N (the way to measure eight candidates a task as two attempts of four,
each of which is also a search of its own). `coverage(attempts)` averages over the tasks, for
n = 1, 2, 4, ... up to the most candidates any task has.

What this file deliberately is not: a search (it reads finished attempts) or a chart (the
report draws it).
"""
import math


def sizes(most):
    """1, 2, 4, ... and `most` itself: the numbers of candidates the curve has a point for."""
    found, n = [], 1
    while n < most:
        found.append(n)
        n *= 2
    return found + [most]


def repairing(attempt):
    """(candidates that ran, candidates the independent verdict repaired) of one coverage
    attempt, or None when the attempt did not run every candidate."""
    search = attempt.get("search") if isinstance(attempt.get("search"), dict) else {}
    records = attempt.get("candidates") if isinstance(attempt.get("candidates"), list) else []
    if search.get("all_candidates") is not True or not records:
        return None
    ran = [c for c in records if isinstance(c, dict) and isinstance(c.get("tests"), dict)]
    return len(ran), sum(c.get("verdict") == "repaired" for c in ran)


def pass_at(n, total, repaired):
    """The chance that a search of n of these `total` candidates finds a repair."""
    n = min(n, total)
    return 1.0 - math.comb(total - repaired, n) / math.comb(total, n)


def coverage(attempts):
    """{n: mean pass rate over the tasks} for n = 1, 2, 4, ..., or {} when no attempt ran every
    candidate. A task's coverage attempts are pooled; a task with fewer candidates than n counts
    all it has."""
    pooled = {}
    for attempt in attempts:
        found = repairing(attempt) if "infra_failure" not in attempt else None
        if found and found[0] > 0:
            task = str(attempt.get("task_name"))
            total, repaired = pooled.get(task, (0, 0))
            pooled[task] = (total + found[0], repaired + found[1])
    counted = list(pooled.values())
    if not counted:
        return {}
    most = max(total for total, _ in counted)
    return {n: round(sum(pass_at(n, total, repaired) for total, repaired in counted) / len(counted), 4)
            for n in sizes(most)}


def search_summary(attempts):
    """What a summary says about search: candidates asked for and run per attempt, and the
    curve (under --all-candidates); None when no attempt was a search."""
    searches = [a for a in attempts if "infra_failure" not in a and isinstance(a.get("search"), dict)]
    if not searches:
        return None
    run = [a.get("candidates_run") for a in searches if isinstance(a.get("candidates_run"), int)]
    return {"candidates": max(a["search"].get("candidates", 1) for a in searches),
            "candidates_run_per_attempt": round(sum(run) / len(run), 2) if run else None,
            "pass_at_n": {str(n): rate for n, rate in coverage(searches).items()}}
