"""pytest's output, read in one place: what every part of the harness asks of a run's `output`.

pytest_run.py runs the tasks' fixed `pytest -q` (project_pytest.py a project's own, with `-rfE`)
and keeps the head and tail of what it prints, with "[... N characters cut ...]" between; this
file reads that text:

- `counts(output)`: the closing summary line as numbers ("1 failed, 3 passed, 1 skipped");
  `collection(output)`: what `--collect-only` counted (tests, errors, deselected).
- `read(output)`: one pass over the details: each failing or erroring test's section (the lines
  pytest marks with `>`, its E lines, its traceback frames), the short summary (FAILED, ERROR and
  SUBFAILED lines) and the count line. `failing_tests(output)`: each test's name and E lines;
  `failures(output)`: each summary line's test and message; `test_label`, `name_in` and
  `header_form` say which test a section is about, as its node id.
- `blamed_files(output, files)`: the files a traceback points at; `collected_files(output)`:
  the files `--collect-only -qq` named; `modules_not_found(output)`: the imports that failed;
  `no_pytest(output)`: Python saying the interpreter has no pytest at all.

Each line is matched on its first SCAN_CHARS characters only, so reading is linear in the output.
What this file deliberately is not: a runner (pytest_run.py), a judge (verdict.py decides from
the counts) or a renderer: loop/failure_digest.py cuts the details down for a model, a report
(evaluation/report_attempt.py) shows them. It reads, and drops nothing it recognises.
"""
import re
import textwrap

SCAN_CHARS = 1_000  # only a line's start is matched: bounded work per line, linear overall

HEADER = re.compile(r"_+ ([^_\s].*?) _+$")      # "___ test_x ___", a wide "_ test_x[id] _"; not "_ _ _"
BANNER = re.compile(r"[=!]{3,} .*[=!]{3}$")              # "==== FAILURES ====", "!!! Interrupted !!!"
TEST_BANNER = re.compile(r"=+ (FAILURES|ERRORS) =+$")   # under another ("tests coverage"), no test's header
# Reading 1, before 2026-12-06: "___ x ___" alone (a wide name missed), under any banner (pytest-cov's
# report read as a failing test). A recording keeps its own (LoopSettings.pytest_reading).
READING, HEADER_BEFORE = 2, re.compile(r"_{3,} (.+?) _{3,}$")
# "pricing.py:19: NameError", "checkout.py:25: in order_total", "<frozen importlib._bootstrap>:1204: in f"
FRAME = re.compile(r"(<[^>]*>|\S+):(\d+):(?: (in .+|[\w.]+))?\s*$")
# "FAILED tests/t.py::test_x - Assert...", and a failed subtest: "SUBFAILED(n=2) ..." or "SUBFAILED[msg] ..."
SUMMARY_ITEM = re.compile(r"(FAILED|ERROR|SUBFAILED(?:\(.*?\)|\[.*?\])?) (\S+)(?: - (.*))?")
COUNT_LINE = re.compile(r"(\d+ \w+(, \d+ \w+)*|no tests ran)( in .*)?$")
CUT = re.compile(r"\[\.\.\. (\d+) characters cut \.\.\.\]$")  # pytest_run.py's marker
NOTE = re.compile(r"ERROR: |\w+Error while ")             # "ImportError while importing test module"
CAPTURED = re.compile(r"-{3,} Captured .* -{3,}$")          # "--- Captured stdout call ---"
LOCATION = re.compile(r"^([\w./-]+\.py):\d+:", re.M)        # a line that starts "pkg/mod.py:6:", any traceback form


NOT_RUN = ("skipped", "deselected", "xfailed")  # tests collected that did not pass, and did not fail


def counts(output):
    """Parse pytest's closing summary line ("1 failed, 3 passed") into counts. Subtests (pytest 9,
    unittest's subTest) count apart when they pass ("3 passed, 152 subtests passed"), but each
    failed one counts in "failed", with a SUBFAILED line of its own: `subtests_failed` says how
    many, so the tests themselves can be counted (verdict.py). The tests that neither passed nor
    failed (NOT_RUN: "1 skipped", "1 deselected", "1 xfailed") are counted too, for the rule that
    a skipped test is not a repair (passing.py). Each of these only when there are any: a result
    of a run without them stays what it always was."""
    for line in reversed(output.splitlines()):
        if re.fullmatch(r"\d+ \w+( \w+)?(, \d+ \w+( \w+)?)*", line.strip().strip("=").strip()):
            # "(\d+) (\w+)(?!\w| \w)": "152 subtests passed" is no count of tests, "1 skipped" is
            found = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)(?! \w)", line)}
            errors = found.get("errors", found.get("error", 0))  # "1 error", "2 errors"
            subtests = len(re.findall(r"^SUBFAILED\b", output, re.M))
            return {"passed": found.get("passed", 0), "failed": found.get("failed", 0), "errors": errors,
                    **({"subtests_failed": subtests} if subtests else {}),
                    **{word: found[word] for word in NOT_RUN if found.get(word)}}
    return {"passed": 0, "failed": 0, "errors": 0}



def read(output, reading=READING):
    """(sections, summary, count line) of one run's output (any str; anything else reads as none).
    A section is {"title", "label", "items", "frames", "captured"}: one test's details ("title" as
    pytest wrote it), or, untitled, what came before any test (a conftest error) or after a cut
    ("label" says which). Its items, in pytest's order, are (kind, frame, line, length): kind "E",
    "note", or "frame" (a `>` line, a location, or the source line under one), `frame` the index
    in "frames" (the locations' paths) it belongs to, `line` the first SCAN_CHARS characters and
    `length` the whole line's. The summary is [(kind, test id, line, length)]."""
    lines = output.splitlines() if isinstance(output, str) else []
    sections, summary, count, section, source_of, captured = [], [], "", None, None, False
    header, tests = HEADER if reading >= 2 else HEADER_BEFORE, True  # under FAILURES or ERRORS (1: anywhere)
    for raw in lines:
        line, length = raw[:SCAN_CHARS].rstrip(), len(raw.rstrip())
        if source_of is not None and line[:1].isspace() and line.strip(" ^~"):
            section["items"].append(("frame", source_of, line, length))  # the source under "f.py:1: in g"
        source_of, between_tests, titled = None, section is None or section["title"] is None, header.match(line)
        if titled and tests:
            section, captured = _new(sections, titled.group(1)), False
        elif titled or BANNER.match(line):  # "short test summary info": no test's details
            section, captured, tests = None, False, reading < 2 or bool(TEST_BANNER.match(line))
        elif CUT.match(line):  # what follows may belong to another test: a section of its own
            marker = f"[... {CUT.match(line).group(1)} characters of pytest's output cut here ...]"
            section, captured, tests = _new(sections, None, marker), False, True
        elif captured or (section and CAPTURED.match(line)):  # what a test printed, up to the next test
            section["captured"] = captured = True
        elif between_tests and COUNT_LINE.match(line):
            count = line
        elif between_tests and SUMMARY_ITEM.match(line):
            summary.append((*SUMMARY_ITEM.match(line).group(1, 2), line, length))
        elif tests and (line.startswith((">", "E ", "E\t")) or line == "E" or NOTE.match(line) or FRAME.match(line)):
            section = section or _new(sections, None, "")  # before any test: a conftest error
            source_of = _keep(section, line, length)
    return sections, summary, count


def _new(sections, title, label=None):
    sections.append({"title": title, "label": label, "items": [], "frames": [], "captured": False})
    return sections[-1]


def _keep(section, line, length):
    """File one line of a section; return the frame whose source line may follow ("f.py:1: in g"
    is followed by its source line), or None."""
    frames, items = section["frames"], section["items"]
    frame = FRAME.match(line)
    if line.startswith(">"):  # the failing line of the frame whose location comes next
        items.append(("frame", len(frames), line, length))
    elif line.startswith("E"):
        items.append(("E", None, line, length))
    elif frame:
        frames.append(frame.group(1))
        items.append(("frame", len(frames) - 1, line, length))
        return len(frames) - 1 if (frame.group(3) or "").startswith("in ") else None
    else:
        items.append(("note", None, line, length))
    return None


def failing_tests(output, limit=20, e_lines=8):
    """[{"kind", "name", "lines"}]: each failing or erroring test ("FAILED" or "ERROR", its node id
    from the short summary; its section's title when the output was cut before the summary) with
    its first `e_lines` E lines, less pytest's margin; [] when none is found."""
    sections, summary, _ = read(output)
    titled = [section for section in sections if section["title"]]
    named = {}
    for kind, name, *_line in summary:
        if kind in ("FAILED", "ERROR"):
            named.setdefault(name, kind)
    for section in titled if not named else ():
        named.setdefault(name_in(section["title"]), "ERROR" if section["title"].startswith("ERROR ") else "FAILED")
    return [{"kind": kind, "name": name, "lines": _e_lines(name, titled, e_lines)}
            for name, kind in list(named.items())[:limit]]


def _e_lines(name, sections, most):
    """The E lines of the sections about node id `name` ("tests/t.py::TestA::test_b" is titled
    "TestA.test_b"; a collection error is titled with the file's path)."""
    keys = {name, header_form(name)}
    lines = [line[1:] for section in sections if name_in(section["title"]) in keys
             for kind, _, line, _ in section["items"]
             if kind == "E" and line[1:2] in ("", " ", "\t") and line[1:].strip()]
    return textwrap.dedent("\n".join(lines[:most])).splitlines()


def failures(output, limit=10):
    """[(test id, message)] from pytest's short summary ("FAILED tests/test_a.py::test_x - ..."),
    each test once, a failed subtest's too."""
    found = {}
    for _kind, test, line, _length in read(output)[1]:
        found.setdefault(test, (SUMMARY_ITEM.match(line).group(3) or "").strip())
    return list(found.items())[:limit]


def test_label(section, names):
    """"FAILED tests/t.py::test_x", "ERROR at setup of tests/t.py::test_x", "ERROR collecting t.py",
    or an untitled section's label; `names` maps header_form(test id) to the summary's test ids."""
    title = section["title"]
    if title is None:
        return section["label"]
    if title.startswith("ERROR "):
        name = name_in(title)
        return title[: len(title) - len(name)] + names.get(name, name)
    # No summary line names it (cut off): a failure's traceback starts in the test's own file.
    path = section["frames"][0] if section["frames"] else ""
    guess = f"{path}::{_respell(title, '.', '::')}" if path.startswith("tests/") else title
    return f"FAILED {names.get(title, guess)}"


def name_in(title):
    """The test a title names: "ERROR at setup of test_x" -> "test_x", "ERROR collecting t.py" -> "t.py"."""
    match = re.match(r"ERROR (?:collecting |at \w+ of )(.*)", title or "")
    return match.group(1) if match else title


def header_form(nodeid):
    """pytest's section title for a node id: "tests/t.py::TestA::test_b[1]" -> "TestA.test_b[1]"."""
    return _respell(nodeid.split("::", 1)[-1], "::", ".")


def _respell(name, old, new):
    """`name` with `old` replaced by `new`, except inside the test's parameters ("[1.5]")."""
    head, bracket, params = name.partition("[")
    return head.replace(old, new) + bracket + params


def blamed_files(output, files):
    """The files of `files` that pytest's tracebacks point at ("statlite/summary.py:6: ZeroDivisionError"),
    in the order they first appear: the code a failure comes from."""
    named = LOCATION.findall(output or "")
    return [path for path in dict.fromkeys(named) if path in files]


