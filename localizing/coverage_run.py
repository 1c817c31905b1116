"""The tests run once under coverage.py, sandboxed, each line counted by the tests that ran it.

`line_counts(tools, failing, timeout)` runs the task's own pytest command (the project's, for
fix.py) on a throwaway copy with every guard of a test run (workspace/pytest_run.run_in_copy:
the sandbox, the limits, the timeout), under coverage.py with one dynamic context per test: the
test's pytest node id, switched by a tiny plugin as pytest-cov's `--cov-context=test` does,
except while pytest words a failure (plain asserts, no context while a report is made: the
`__repr__` a failing assert's message calls is run by failing tests only, and is no fault). The
run prints one line: for each line of the copy that a failing test ran, how many failing and
how many passing tests ran it (the spectrum Ochiai scores), the most suspicious first, at most
LINES. It returns those counts, how many failing tests the run saw and its seconds, or why it
was skipped: a run that timed out, failed, or printed nothing we can read.

Which tests failed comes from the start run (the caller's `failing`), not from this run.
The interpreter is the task's; one without coverage.py gets the harness's own package, loaded
from its read-only place (the sandbox mounts this interpreter's folders), else the run is
skipped and says so.

What this file deliberately is not: a tracer of our own (coverage.py traces), or trusted:
what the run prints comes from the project's code and is read as untrusted input.
"""
import importlib.util
import json
import os
import time

from workspace.pytest_run import PytestCommand, run_in_copy

MARK = "coding-loop-coverage: "
LINES = 400          # lines reported: the top of the spectrum, within run_bounded's kept output
MOST_FAILING = 500   # failing node ids handed to the run (an argument has a size limit)
# Runs in the task's interpreter, inside the copy: plain code that any Python 3.8 reads.
SCRIPT = r'''
import json, os, sys
config = json.loads(sys.argv[1])
try:
    import coverage
except ImportError:
    if not config["own"]:
        print(config["mark"] + json.dumps({"skipped": "coverage.py is not installed for " + sys.executable}))
        sys.exit(0)
    import importlib.util
    spec = importlib.util.spec_from_file_location("coverage", os.path.join(config["own"], "__init__.py"),
                                                  submodule_search_locations=[config["own"]])
    coverage = importlib.util.module_from_spec(spec)
    sys.modules["coverage"] = coverage
    spec.loader.exec_module(coverage)
import importlib.util, pytest
here = os.getcwd()
args = sys.argv[2:]
# A project whose configuration says --cov (pytest-cov, autoloaded) would start its own coverage
# and take the tracer from this one: this run then sees no line. --no-cov turns pytest-cov off.
if importlib.util.find_spec("pytest_cov") and not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
    args.append("--no-cov")
# A failing assert's message calls its operands' __repr__ (assertion rewriting), and the failure's
# report calls more: code only failing tests run, for the message alone, not the fault. Plain
# asserts, and no context while a report is made, keep that out of the spectrum.
args.append("--assert=plain")
cov = coverage.Coverage(data_file=None, config_file=False, source=[here], branch=False,
                        omit=["*/site-packages/*", "*/.venv/*", "*/venv/*"])

class Contexts:
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid, location):
        cov.switch_context(nodeid)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        cov.switch_context("")
        yield
        cov.switch_context(item.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid, location):
        cov.switch_context("")

kept = os.dup(1)
quiet = os.open(os.devnull, os.O_WRONLY)
os.dup2(quiet, 1)
cov.start()
try:
    pytest.main(args, plugins=[Contexts()])
finally:
    cov.stop()
    os.dup2(kept, 1)
failing = set(config["failing"])
data = cov.get_data()
ran, found = set(), []
for path in sorted(data.measured_files()):
    relative = os.path.relpath(path, here)
    if relative.startswith(".."):
        continue
    for line, contexts in sorted((data.contexts_by_lineno(path) or {}).items()):
        failed = sum(1 for c in contexts if c in failing)
        passed = sum(1 for c in contexts if c and c not in failing)
        ran.update(c for c in contexts if c in failing)
        if failed:
            found.append((-failed / (failed + passed) ** 0.5, relative, line, failed, passed))
top = sorted(found)[:config["lines"]]
files = sorted(set(entry[1] for entry in top))
lines = [[files.index(relative), line, failed, passed] for _, relative, line, failed, passed in top]
print(config["mark"] + json.dumps({"files": files, "lines": lines, "failed_seen": len(ran)}))
'''


def line_counts(tools, failing, timeout):
    """{"counts": {(path, line): (failed, passed)}, "failed_seen": n, "seconds": s}, or {"skipped": why}."""
    failing = list(failing)[:MOST_FAILING]
    if not failing:
        return {"skipped": "no failing test named in the starting run"}
    config = {"failing": failing, "lines": LINES, "mark": MARK, "own": own_coverage()}
    started = time.perf_counter()
    _, output, _, timed_out, _ = run_in_copy(tools.root, timeout, tools.sandbox, tools.task.pytest or PytestCommand(),
                                             entry=("-c", SCRIPT, json.dumps(config)))
    if timed_out:
        return {"skipped": f"the coverage run took longer than {timeout:g} s"}
    return {**read_report(output), "seconds": round(time.perf_counter() - started, 2)}


def read_report(output):
    """The run's last MARK line, checked (it is untrusted): {"counts", "failed_seen"} or {"skipped": why}."""
    lines = [line for line in output.splitlines() if line.startswith(MARK)]
    if not lines:
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "no output")
        return {"skipped": f"the coverage run printed no report ({last.strip()[:160]})"}
    try:
        report = json.loads(lines[-1][len(MARK):])
    except (ValueError, RecursionError):
        return {"skipped": "the coverage run's report is not JSON"}
    if isinstance(report, dict) and isinstance(report.get("skipped"), str):
        return {"skipped": report["skipped"][:200]}
    counts = _counts(report)
    if counts is None:
        return {"skipped": "the coverage run's report has another shape"}
    return {"counts": counts, "failed_seen": report["failed_seen"]}


def _counts(report):
    """{(path, line): (failed, passed)} from a report of the expected shape, else None."""
    if not (isinstance(report, dict) and isinstance(report.get("files"), list) and isinstance(report.get("lines"), list)
            and isinstance(report.get("failed_seen"), int) and all(isinstance(f, str) for f in report["files"])):
        return None
    counts = {}
    for entry in report["lines"][:LINES]:
        if not (isinstance(entry, list) and len(entry) == 4 and all(type(n) is int and n >= 0 for n in entry)
                and entry[0] < len(report["files"])):
            return None
        counts[(report["files"][entry[0]], entry[1])] = (entry[2], entry[3])
    return counts


def own_coverage():
    """The folder of this interpreter's coverage package (handed to an interpreter without one), or None."""
    spec = importlib.util.find_spec("coverage")
    return os.path.dirname(spec.origin) if spec and spec.origin else None
