"""Which tests failed, and why, from the text of one `run_tests` result.

`failing_tests(output)` reads the output of workspace/pytest_run.py's fixed `pytest -q`
command (perhaps cut in the middle) and returns, in pytest's order, each failing or erroring
test's name (its node id from the short summary: `tests/test_x.py::test_y`) and its `E` lines
(the assertion or the exception). A report shows them so a person sees why an attempt failed
without reading pytest's whole output.

What this file deliberately is not: a judge (run_tests' counts and verdict.py are) or a parser
of every pytest format. It is a pure function of a string: no files, no pytest.
"""
import re
import textwrap

MAX_TESTS = 20      # tests listed; a broken import fails them all for one reason
MAX_E_LINES = 8     # E lines kept per test: the assertion and its first explanations
SCAN_CHARS = 1_000  # a line is matched on its start only: the work stays linear in the output

HEADER = re.compile(r"_{3,} (.+?) _{3,}$")                  # "_____ test_y _____": a test's details
BANNER = re.compile(r"={3,} .* ={3,}$")                      # "===== short test summary info ====="
SUMMARY_ITEM = re.compile(r"(FAILED|ERROR) (\S+)")           # "FAILED tests/t.py::test_y - Assert..."
SECTION_PREFIX = re.compile(r"ERROR (collecting|at \w+ of) ")  # "ERROR at setup of test_y"


def failing_tests(output):
    """[{"kind", "name", "lines"}]: each failing or erroring test ("FAILED" or "ERROR", its node id)
    with its E lines; [] when none is found."""
    sections, kinds, summary, current = {}, {}, {}, None
    for raw in output.splitlines() if isinstance(output, str) else []:
        line = raw[:SCAN_CHARS].rstrip()
        if HEADER.match(line):
            title = HEADER.match(line).group(1)
            key = SECTION_PREFIX.sub("", title, count=1)  # "ERROR at setup of test_y" -> "test_y"
            current = sections.setdefault(key, [])
            kinds.setdefault(key, "ERROR" if title.startswith("ERROR ") else "FAILED")
        elif BANNER.match(line):
            current = None  # the summary and the counts belong to no test
        elif current is None and SUMMARY_ITEM.match(line):
            kind, name = SUMMARY_ITEM.match(line).groups()
            summary.setdefault(name, kind)
        elif current is not None and (line.startswith("E ") or line == "E"):
            current.append(raw[1:].rstrip())
    # No summary (the output was cut before it): the sections' titles are the names we have.
    named = summary or kinds
    return [{"kind": kind, "name": name, "lines": _lines_of(name, sections)}
            for name, kind in list(named.items())[:MAX_TESTS]]


def _lines_of(name, sections):
    """The E lines of the section about node id `name` ("tests/t.py::TestA::test_b" is titled
    "TestA.test_b"; a collection error is titled with the file's path)."""
    for key in (name, name.split("::", 1)[-1].replace("::", ".")):
        if key in sections:
            kept = [line for line in sections[key] if line.strip()][:MAX_E_LINES]
            return textwrap.dedent("\n".join(kept)).splitlines()  # pytest's indentation, less its margin
    return []
