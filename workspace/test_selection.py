"""Which tests a harness check runs first: the ones that failed at the start, by their node ids.

On a real library the whole selection is hundreds of tests; the ones that failed at the start
are a few. `failing_ids(start_tests)` reads their pytest node ids from the start run's short
summary ("FAILED tests/t.py::test_x[a b] - ..."), or None when they cannot all be read for sure
(nothing failed, a collection error, a timed-out or cut run, counts that do not add up): then
the whole selection runs, as before. `narrowed(command, ids)` is a PytestCommand that runs
exactly those tests: each positional path of its arguments (the tasks' `tests`, the paths of a
user's `--tests`) is replaced by the ids. Replaced, never joined: pytest 9 folds a node id into a
path that holds it (`tests tests/t.py::test_x` runs all of tests/). Every option stays, so a
user's `--deselect`, `-k` and `-m` still apply. Each id is one argv item, never a shell word.

What this file deliberately is not: a runner (pytest_run.py), a reader of anything but the
short summary (pytest_output.py reads the rest), or the judge of what a narrowed run means
(loop/judge.py: red is the correction, green sends it on to the whole selection).
"""
import re
from dataclasses import replace

from workspace.pytest_output import SUMMARY_ITEM, read

MOST_IDS = 500  # more failing tests than that: the start run is no small selection, run them all
# pytest's options that take their value as the next argument (`-k dates`, `--deselect X`); the
# `--name=value` and attached (`-kdates`, `-pno:x`) forms are one item. An option in neither
# table may or may not take a value, so a command that holds one is not narrowed.
TAKES_VALUE = {"-k", "-m", "-p", "-o", "-c", "-W", "-r", "--deselect", "--ignore", "--ignore-glob", "--rootdir",
               "--confcutdir", "--basetemp", "--maxfail", "--tb", "--color", "--code-highlight", "--capture",
               "--durations", "--durations-min", "--import-mode", "--override-ini", "--config-file",
               "--pythonwarnings", "--log-level", "--log-cli-level", "--log-file", "--log-file-level",
               "--log-format", "--log-date-format", "--junitxml", "--junit-xml", "--junit-prefix",
               "--doctest-glob", "--doctest-report", "--verbosity", "--debug", "--assert", "--show-capture"}
FLAGS = {"-q", "--quiet", "-v", "--verbose", "-x", "--exitfirst", "-s", "-l", "--showlocals", "--strict-markers",
         "--strict-config", "--strict", "--runxfail", "--keep-duplicates", "--no-header", "--no-summary",
         "--disable-warnings", "--disable-pytest-warnings", "--full-trace", "--setup-show", "--noconftest",
         "--continue-on-collection-errors", "--doctest-modules", "--doctest-continue-on-failure",
         "--no-showlocals", "--fold-skipped", "--no-fold-skipped"}
SHORT_FLAGS = re.compile(r"-[qvxsl]+")   # "-vv", "-qx": several short flags in one item
ATTACHED = re.compile(r"-[kmpocWr].+")    # "-kdates", "-pno:cacheprovider", "-rfE"
# A parametrized id may hold spaces: "tests/t.py::test_p[a b] - AssertionError: ...".
BRACKETED = re.compile(r"(\S*?\[.*?\])(?: - .*)?$")


def failing_ids(start_tests):
    """The node ids of every test the start run failed or errored on, or None (see above)."""
    if not isinstance(start_tests, dict) or start_tests.get("timed_out") or start_tests.get("exit_code") in (0, None):
        return None
    summary = read(start_tests.get("output"))[1]
    ids, counted = [], 0
    for kind, _test, line, length in summary:
        node = _node_id(line)
        if node is None or "::" not in node or (length > len(line) and " - " not in line):
            return None  # a collection error names a file alone; a line too long to read names nothing sure
        ids.append(node)
        counted += not kind.startswith("SUBFAILED")  # a failed subtest counts in "failed" and has its own line
    expected = (_count(start_tests, "failed") - _count(start_tests, "subtests_failed")
                + _count(start_tests, "errors"))
    ids = tuple(dict.fromkeys(ids))
    if not ids or counted != expected or len(ids) > MOST_IDS:
        return None  # a line cut from the summary, or a failure it does not name: not all of them
    return ids


def _node_id(line):
    """The node id on a summary line, brackets and spaces included, or None."""
    match = SUMMARY_ITEM.match(line)
    if not match:
        return None
    rest = line[len(match.group(1)) + 1:]
    first = rest.split(" ", 1)[0]
    if "[" in first and not first.endswith("]"):  # a parameter with a space: up to its "]"
        whole = BRACKETED.match(rest)
        return whole.group(1) if whole else None
    return first


def _count(result, key):
    value = result.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def narrowed(command, ids):
    """`command` (a PytestCommand) running only `ids`, or None when its arguments hold an option
    this file cannot read (it might take the next item as its value)."""
    kept = _options(command.args)
    if kept is None or not ids:
        return None
    return replace(command, args=(*kept, *ids))


def _options(args):
    """`args` less their positional items (paths, node ids), or None."""
    kept, value_next = [], False
    for arg in args:
        if value_next:
            kept.append(arg)
            value_next = False
        elif not arg.startswith("-") or arg == "-":
            continue  # a path: the ids take its place
        elif arg in TAKES_VALUE:
            kept.append(arg)
            value_next = True
        elif arg in FLAGS or SHORT_FLAGS.fullmatch(arg) or ATTACHED.fullmatch(arg) or (
                arg.startswith("--") and arg.split("=", 1)[0] in TAKES_VALUE and "=" in arg):
            kept.append(arg)
        else:
            return None
    return None if value_next else kept
