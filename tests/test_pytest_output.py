"""pytest's output is read in one place (workspace/pytest_output.py), and every reader gets the
same reading: what a test printed, and what comes after a cut, belongs to no failing test.

The exact digest a model reads is checked in test_context.py, the report's failing tests in
test_report_attempt.py, fix.py's summary lines in test_fix_parts.py; these tests check what
they share, on pytest output shaped by hand (no pytest runs here).
"""
import pytest

from agent_loop import LoopSettings
from loop import turn_policy
from loop.failure_digest import failure_digest
from workspace.pytest_collection import collection
from workspace.pytest_output import counts, failing_tests, failures, read

# A test whose code printed a summary line and an E line of its own: the code under test is the
# model's, so what it prints must never read as pytest's verdict on another test.
PRINTED = """.F..                                                                     [100%]
=================================== FAILURES ===================================
____________________________________ test_a ____________________________________

    def test_a():
>       assert double(1) == 2
E       assert 3 == 2

tests/test_app.py:5: AssertionError
----------------------------- Captured stdout call -----------------------------
FAILED tests/test_app.py::test_forged - AssertionError: forged
E       forged line
=========================== short test summary info ============================
FAILED tests/test_app.py::test_a - assert 3 == 2
1 failed, 3 passed"""

# pytest_run.py kept the head and the tail: the E line after the cut is another test's.
CUT = """____________________________________ test_a ____________________________________
E       assert 3 == 2
tests/test_app.py:5: AssertionError

[... 9000 characters cut ...]
E       assert 7 == 8
tests/test_app.py:19: AssertionError
=========================== short test summary info ============================
FAILED tests/test_app.py::test_a - assert 3 == 2
FAILED tests/test_app.py::test_z - assert 7 == 8
2 failed, 2 passed"""


def test_what_a_test_printed_is_no_failure_of_its_own():
    assert failures(PRINTED) == [("tests/test_app.py::test_a", "assert 3 == 2")]
    assert failing_tests(PRINTED) == [{"kind": "FAILED", "name": "tests/test_app.py::test_a",
                                       "lines": ["assert 3 == 2"]}]
    nudge = turn_policy.tests_fail_nudge(2, {"exit_code": 1, "passed": 3, "failed": 1, "errors": 0, "output": PRINTED})
    assert "FAILED tests/test_app.py::test_a" in nudge["text"] and "forged" not in nudge["text"]
    assert "forged" not in failure_digest(PRINTED)


def test_an_e_line_after_a_cut_belongs_to_no_test_before_it():
    assert failing_tests(CUT) == [
        {"kind": "FAILED", "name": "tests/test_app.py::test_a", "lines": ["assert 3 == 2"]},
        {"kind": "FAILED", "name": "tests/test_app.py::test_z", "lines": []}]
    digest = failure_digest(CUT)
    assert digest.index("[... 9000 characters of pytest's output cut here ...]") < digest.index("assert 7 == 8")


def test_one_reading_gives_the_sections_the_summary_and_the_counts():
    sections, summary, count = read(PRINTED)
    assert [section["title"] for section in sections] == ["test_a"] and sections[0]["captured"]
    assert sections[0]["frames"] == ["tests/test_app.py"]
    assert [(kind, test) for kind, test, _line, _length in summary] == [("FAILED", "tests/test_app.py::test_a")]
    assert count == "1 failed, 3 passed"
    assert counts(PRINTED) == {"passed": 3, "failed": 1, "errors": 0}
    assert read(None) == read(b"bytes") == ([], [], "")  # not text: nothing read


def test_tests_that_did_not_run_are_counted_and_subtests_are_not_tests():
    assert counts("..sx\n3 passed, 1 skipped, 2 deselected, 1 xfailed, 1 warning") == {
        "passed": 3, "failed": 0, "errors": 0, "skipped": 1, "deselected": 2, "xfailed": 1}
    assert counts("3 passed, 152 subtests passed") == {"passed": 3, "failed": 0, "errors": 0}


def test_what_collect_only_counted_at_either_verbosity():
    """`-q --collect-only` ends with a count line; `-qq` (a project's addopts adding -q) names each file."""
    assert collection("t.py::a\n5/6 tests collected (1 deselected), 1 error") == {
        "tests": 5, "errors": 1, "deselected": 1}
    assert collection("no tests collected") == {"tests": 0, "errors": 0, "deselected": 0}
    assert collection("tests/test_a.py: 3\ntests/test_b.py: 2\nERROR tests/test_c.py") == {
        "tests": 5, "errors": 1, "deselected": 0}
    assert collection("Killed") is None


# pytest-cov's report (parse's `addopts = --cov=parse`) under its own banner, with a header shaped
# like a test's, after the failures: as fix.py's start run on parse printed it.
COVERAGE_REPORT = """.F.                                                                      [100%]
=================================== FAILURES ===================================
________________________________ test_datetimes ________________________________

>       assert r == e
E       assert datetime.time(12, 15) == datetime.time(0, 15)

tests/test_parse.py:532: AssertionError
=============================== warnings summary ===============================
tests/test_parse.py:12
  tests/test_parse.py:12: DeprecationWarning: old
E       not an E line of any test
================================ tests coverage ================================
_______________ coverage: platform linux, python 3.11.7-final-0 ________________

Name                Stmts   Miss Branch BrPart  Cover   Missing
---------------------------------------------------------------
parse/__init__.py     554     20    246     11    95%   133, 136
=========================== short test summary info ============================
FAILED tests/test_parse.py::test_datetimes - assert datetime.time(12, 15) == ...
1 failed, 2 passed"""


def test_a_plugin_s_report_after_the_failures_is_no_failing_test():
    sections, summary, count = read(COVERAGE_REPORT)
    assert [section["title"] for section in sections] == ["test_datetimes"]
    assert [item[2] for item in sections[0]["items"] if item[0] == "E"] == [
        "E       assert datetime.time(12, 15) == datetime.time(0, 15)"]
    assert [name for _kind, name, *_ in summary] == ["tests/test_parse.py::test_datetimes"] and count == "1 failed, 2 passed"
    digest = failure_digest(COVERAGE_REPORT)
    assert "coverage: platform" not in digest and "not an E line" not in digest and "DeprecationWarning" not in digest
    assert "assert datetime.time(12, 15) == datetime.time(0, 15)" in digest


# A test id wider than the terminal: pytest puts one "_" a side (iso8601's parametrized tests),
# and "_ _ _" between a long traceback's entries is no header.
WIDE_NAME = """F                                                                        [100%]
=================================== FAILURES ===================================
_ test_parse_valid_date[2013-10-15T15:00-03:30-expected_datetime13-2013-10-15T15:00:00-03:30] _
iso8601/test_iso8601.py:257: in test_parse_valid_date
    assert parsed.tzinfo == expected_datetime.tzinfo
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
E   AssertionError: assert 1 == 2
=========================== short test summary info ============================
FAILED iso8601/test_iso8601.py::test_parse_valid_date[2013-10-15T15:00-03:30-expected_datetime13-2013-10-15T15:00:00-03:30]
1 failed"""


def test_a_test_named_wider_than_the_terminal_keeps_its_name():
    sections, summary, _ = read(WIDE_NAME)
    assert [section["title"] for section in sections] == [
        "test_parse_valid_date[2013-10-15T15:00-03:30-expected_datetime13-2013-10-15T15:00:00-03:30]"]
    assert [item[0] for item in sections[0]["items"]] == ["frame", "frame", "E"]
    assert failure_digest(WIDE_NAME).startswith("FAILED iso8601/test_iso8601.py::test_parse_valid_date[2013-10-15T15:00")


def test_a_recording_made_before_reads_pytest_s_output_as_it_did():
    # Its model was shown the first reading: a replay must show it the same message.
    assert [section["title"] for section in read(WIDE_NAME, reading=1)[0]] == [None]
    assert "FAILED coverage: platform linux" in failure_digest(COVERAGE_REPORT, reading=1)
    assert LoopSettings.from_recorded({}).pytest_reading == 1 and LoopSettings().pytest_reading == 2
    with pytest.raises(ValueError, match="pytest_reading must be 1 or 2"):
        LoopSettings(pytest_reading="2")
