"""The functions and methods most likely at fault, ranked from what the tests already say.

`localize(tools, start_tests)` ranks the definitions of the task's code (readable Python files
that are not test code) from three kinds of evidence, each a number from 0 to 1:

- the failing tests' traceback frames in that code, deepest first (1, then 0.7, 0.49, ...):
  where an exception came from (workspace/pytest_output.read gives the frames);
- spectrum-based fault localization: one coverage run with a context per test
  (coverage_run.py), each line scored by Ochiai, failed(line) / sqrt(total failed ·
  (failed(line) + passed(line))), each definition by its best line;
- the names the failing tests call (failing_uses.py), in the files they use.

A definition's score is 0.6 · Ochiai + 0.3 · frame + 0.1 · called; the top TOP with any
evidence are returned as plain JSON, each with a `why`, beside what the coverage run did:
{"ranked": [{"path", "name", "start", "end", "score", "why"}], "coverage": "ran in 0.6 s" |
"skipped: <why>"}. `when_asked(settings, tools, start_tests)` is that under
`localize="tests"`, None otherwise: what every run's start calls; `focus_of(localization)` reads
the ranked list back out of that value (or a recording's copy of it).

What this file deliberately is not: what the model is shown of the ranking (loop/context.py),
or a judge: a ranking is a hint, and the independent verdict still decides.
"""
import math

from localizing.coverage_run import MOST_FAILING, line_counts
from localizing.definitions import definitions, enclosing
from localizing.failing_uses import called_names, used_by
from workspace.pytest_output import FRAME, failures, read
from workspace.python_imports import Imports

TOP = 8
WEIGHTS = {"ochiai": 0.6, "frame": 0.3, "called": 0.1}
FRAME_DECAY = 0.7          # each frame further from the raise counts this much less
LEAST_COVERAGE_S = 10.0    # the coverage run's time: twice the tests', at least this


def when_asked(settings, tools, start_tests):
    """The localization the settings ask for (`localize="tests"`), or None."""
    return localize(tools, start_tests) if getattr(settings, "localize", "off") == "tests" else None


def focus_of(localization):
    """The ranked definitions a run is started with (`agent_events(focus=...)`), or None: read
    from what `localize` returned, or from what a recording kept of it (`recording["localization"]`)."""
    return localization.get("ranked") if isinstance(localization, dict) else None


def localize(tools, start_tests, *, top=TOP, timeout=None):
    """{"ranked": [...], "coverage": ...} for the task at `tools.root` (see the module docstring)."""
    output = start_tests.get("output") if isinstance(start_tests, dict) else None
    output = output if isinstance(output, str) else ""
    code = {p for p in tools.task.readable if p.endswith(".py") and not tools.task.is_test_file(p)}
    found = Found(tools.root, code)
    failing = [test for test, _ in failures(output, limit=MOST_FAILING)]
    for rank_of in product_frames(output, code):
        for (path, line), rank in rank_of.items():
            found.credit(path, line, "frame", FRAME_DECAY ** rank)
    imports = Imports(tools.root, tools.task.readable)
    for test in failing[:20]:  # the names of a few tests say enough; each costs a parse
        names = called_names(imports, test)
        for path in (p for p in used_by(imports, test) if p in code):
            for definition in found.of(path):
                if definition.name.split(".")[-1] in names:
                    found.add(path, definition, "called", 1.0)
    timeout = timeout or max(LEAST_COVERAGE_S, 2 * tools.test_timeout)
    spectrum = line_counts(tools, failing, timeout)
    for (path, line), (failed, passed) in spectrum.get("counts", {}).items():
        if path in code and failed:
            found.credit(path, line, "ochiai", failed / math.sqrt(max(len(failing), failed) * (failed + passed)))
    said = f"ran in {spectrum['seconds']:g} s" if "counts" in spectrum else f"skipped: {spectrum['skipped']}"
    return {"ranked": found.ranked(top), "coverage": said}


def product_frames(output, code):
    """For each failing test's section, {(path, line): rank}: its frames in `code`, deepest first."""
    sections = []
    for section in read(output)[0]:
        located = [FRAME.match(line) for kind, _, line, _ in section["items"] if kind == "frame"]
        frames = [(m.group(1), int(m.group(2))) for m in located if m and m.group(1) in code]
        rank_of = {}
        for frame in reversed(frames):
            rank_of.setdefault(frame, len(rank_of))
        sections.append(rank_of)
    return sections


class Found:
    """Each definition's best evidence of each kind, read from its file once."""

    def __init__(self, tree, code):
        self.tree, self.code, self.parsed, self.evidence = tree, code, {}, {}

    def of(self, path):
        if path not in self.parsed:
            self.parsed[path] = definitions(self.tree, path) if path in self.code else []
        return self.parsed[path]

    def credit(self, path, line, kind, value):
        """Credit the definition holding `line` of `path` (module-level code is no definition)."""
        definition = enclosing(self.of(path), line)
        if definition is not None:
            self.add(path, definition, kind, value)

    def add(self, path, definition, kind, value):
        kinds = self.evidence.setdefault((path, definition), {})
        kinds[kind] = max(kinds.get(kind, 0.0), value)

    def ranked(self, top):
        scored = [(sum(WEIGHTS[k] * v for k, v in kinds.items()), -kinds.get("frame", 0), path, definition, kinds)
                  for (path, definition), kinds in self.evidence.items()]
        scored.sort(key=lambda s: (-s[0], s[1], s[2], s[3].start))
        return [{"path": path, "name": d.name, "start": d.start, "end": d.end, "score": round(score, 3),
                 "why": _why(kinds)} for score, _, path, d, kinds in scored[:top] if score > 0]


def _why(kinds):
    parts = []
    if "frame" in kinds:
        parts.append("traceback frame" + (" (deepest)" if kinds["frame"] == 1 else ""))
    if "ochiai" in kinds:
        parts.append(f"ochiai {kinds['ochiai']:.2f}")
    if "called" in kinds:
        parts.append("called by a failing test")
    return "; ".join(parts)
