"""Where every run of one attempt starts: one copy of the task, its tests run once, and what the
tests point at ranked once (when the settings ask), however many candidates then run.

`starting(task, folder, settings, ...)` makes the `Start`: the tools of the first copy (a single
run works on it; a search's candidates each get their own), the starting tests (run here unless
the caller ran them: fix.py runs a project's tests its own way), the localization, the prompt and
the sample's hashes, and how long all that took. `say(event)` hears what was found here.

What this file deliberately is not: a run (run.py, side_by_side.py), or the recording's head
(runs/recording.py:body_head writes it, from this).
"""
import time
from dataclasses import dataclass
from pathlib import Path

from localizing.ranking import when_asked
from repo_tools import RepoTools
from runs.recording import body_head, sample_hashes
from workspace.passing import start_run
from workspace.task_catalog import fresh_copy


@dataclass(frozen=True)
class Start:
    """What every run of one attempt starts from (see the module docstring)."""
    tools: object         # repo_tools.RepoTools of the first copy
    tests: dict           # the starting test run, the one the verdict and the choice compare with
    localization: dict    # what localizing/ranking.py found (None: not asked)
    prompt: str           # the task's first message
    sample: dict          # sha256 of every file of the copy, before any run
    sandbox_mode: str     # how every copy of the attempt runs its tests ("auto", "require", "none")
    seconds: float = 0.0  # what the starting tests and the ranking took here

    @property
    def task(self):
        return self.tools.task

    def head(self, settings):
        """The recording body's head: what it says before the run."""
        return body_head(self.tools, settings, self.prompt, sample=self.sample, start_tests=self.tests,
                         localization=self.localization)


def starting(task, folder, settings, *, sandbox_mode="auto", tests=None, localization=None, say=None):
    """The Start of an attempt in `folder`; `tests` and `localization`, when given, are not found
    again. Under `sandbox_mode="require"` without a sandbox: OSError, before any test runs."""
    say = say or (lambda event: None)
    tools = RepoTools(fresh_copy(task, Path(folder) / "start"), task=task, sandbox_mode=sandbox_mode)
    sample, started = sample_hashes(tools.root), time.perf_counter()
    if tests is None:
        tests = start_run(tools)  # a start run that hangs: how many tests there are, collected
        say({"type": "start_tests", "result": tests})
    if localization is None:
        localization = when_asked(settings, tools, tests)  # once, for the run or every candidate
        if localization is not None:
            say({"type": "localization", "localization": localization})
    return Start(tools, tests, localization, task.prompt(), sample, sandbox_mode,
                 round(time.perf_counter() - started, 4))
