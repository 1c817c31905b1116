"""The pass-versus-candidates curve (evaluation/coverage.py) and its drawing in evaluate's report.

Attempts here are the shape evaluate.py writes under --all-candidates (the fields the curve
reads: the task, the search, each candidate's own tests and its independent verdict). What is
checked: the unbiased estimator against counting by hand, attempts of one task pooled into
one pool of draws (two attempts of four are eight candidates), tasks weighted equally, attempts
that are not coverage attempts left out, and the report drawing every point it was given.
"""
import math

from evaluation.report_search import render_coverage
from evaluation.coverage import coverage, pass_at, search_summary


def attempt(task, verdicts, all_candidates=True):
    """One coverage attempt: a candidate per verdict ("repaired", "not repaired"), each with tests."""
    candidates = [{"index": i, "tests": {"exit_code": 0 if v == "repaired" else 1}, "verdict": v}
                  for i, v in enumerate(verdicts, 1)]
    return {"task_name": task, "candidates": candidates, "candidates_run": len(candidates),
            "search": {"candidates": len(candidates), "all_candidates": all_candidates}}


def test_the_estimator_is_the_chance_that_n_of_the_candidates_hold_a_repair():
    # 1 repair among 4: a search of 2 finds it in 3 of the 6 pairs; of 4, always; of 1, 1 time in 4.
    assert pass_at(1, 4, 1) == 0.25 and pass_at(2, 4, 1) == 0.5 and pass_at(4, 4, 1) == 1.0
    assert pass_at(3, 4, 0) == 0.0 and pass_at(8, 4, 1) == 1.0  # more than ran counts all that ran


def test_attempts_of_one_task_are_pooled_so_two_attempts_of_four_reach_eight():
    one, two = attempt("a", ["not repaired"] * 4), attempt("a", ["repaired"] * 2 + ["not repaired"] * 2)
    curve = coverage([one, two])
    assert list(curve) == [1, 2, 4, 8]
    assert curve[1] == 0.25 and curve[8] == 1.0
    # Two of eight pooled: 1 - C(6,2)/C(8,2) = 0.4643, where a mean per attempt would say 0.4167.
    assert curve[2] == round(1 - math.comb(6, 2) / math.comb(8, 2), 4) == 0.4643


def test_tasks_count_equally_and_attempts_that_did_not_run_every_candidate_are_left_out():
    attempts = [attempt("a", ["repaired", "not repaired"]), attempt("b", ["not repaired", "not repaired"]),
                attempt("c", ["repaired", "repaired"], all_candidates=False), {**attempt("d", ["repaired"] * 2),
                                                                             "infra_failure": "server lost"}]
    assert coverage(attempts) == {1: 0.25, 2: 0.5}
    assert coverage([attempt("c", ["repaired"], all_candidates=False)]) == {}


def test_the_summary_carries_the_curve_and_the_report_draws_every_point():
    summary = {"search": search_summary([attempt("a", ["not repaired", "repaired"]),
                                         attempt("a", ["not repaired", "not repaired"])])}
    assert summary["search"]["pass_at_n"] == {"1": 0.25, "2": 0.5, "4": 1.0}
    html = render_coverage(summary)
    assert "up to 4" in html and html.count("<circle") == 3
    assert "<td>2</td><td>0.50</td>" in html and "<td>4</td><td>1.00</td>" in html
    assert render_coverage({"search": {"pass_at_n": {"1": 1.5, "x": 0.2}}}) == ""  # nothing trustworthy to draw
