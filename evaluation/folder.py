"""An evaluation's output folder: claimed for one configuration, locked while a run writes to
it, resumed slot by slot, and summed up over every finished attempt it holds.

A folder holds `evaluation.json` (the configuration it was made with: the loop's settings and
the model's), `attempts/<task>-<k>.json` (one per slot), `summary.json` and `report.html`.
Attempt files are untrusted on resume: one copied from another slot, task or configuration, or
damaged, would make a pass rate lie. An attempt counts only where it fits its slot; any other
file in a slot is run again, and the run says so.

What this file deliberately is not: the runner (evaluation/runner.py) or a grader (grades.py).
"""
import fcntl
import json
import os
import re
from pathlib import Path

from agent_loop import LoopSettings
from runs.recording_file import load
from workspace.files import write_atomic

MARKER = "evaluation.json"
SLOT = re.compile(r"(?P<task>[A-Za-z0-9_.-]+)-(?P<k>[1-9][0-9]{0,5})\.json")


class FolderProblem(Exception):
    """The folder cannot take this evaluation; the message says what to do."""


class EvaluationFolder:
    def __init__(self, out):
        self.out = Path(out)
        self.attempts = self.out / "attempts"
        self._lock = None

    def lock(self):
        """Hold the folder for this run: two runs on one folder would both run every attempt."""
        try:
            self.attempts.mkdir(parents=True, exist_ok=True)
            handle = open(self.out / ".lock", "a")  # noqa: SIM115 - held until the run ends
        except OSError as error:
            raise FolderProblem(f"cannot use {self.out}: {error.strerror or error}; pass another --out") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise FolderProblem(f"another evaluation is writing to {self.out}; wait for it to finish, "
                                "or pass another --out") from None
        self._lock = handle

    def unlock(self):
        if self._lock:
            self._lock.close()  # closing the file releases the lock
            self._lock = None

    def claim(self, settings, model):
        """Record this folder's configuration, or check that it holds this same one. Settings
        are compared as typed values (LoopSettings), not as their text."""
        marker = self.out / MARKER
        if marker.exists():
            try:
                held = json.loads(marker.read_text(encoding="utf-8"))
                same = (LoopSettings.from_recorded(held["settings"]) == settings and held["model"] == model)
            except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
                raise FolderProblem(f"{marker} is not an evaluation's ({type(error).__name__}); "
                                    "pass another --out") from None
            if not same:
                raise FolderProblem(f"{self.out} holds an evaluation with other settings; pass a new --out")
            return
        write_atomic(marker, json.dumps({"settings": settings.recorded(), "model": model}, indent=1) + "\n")

    def path(self, task_name, k):
        return self.attempts / f"{task_name}-{k}.json"

    def read_slot(self, task_name, k, settings):
        """(attempt, None) for a finished attempt that fits its slot; (None, why) for a file that
        must run again (None when there is no file at all)."""
        path = self.path(task_name, k)
        if not path.exists():
            return None, None
        try:
            attempt = load(path)
        except (OSError, ValueError) as error:
            return None, f"{path.name} cannot be read ({str(error)[-120:]})"
        problem = misfit(attempt, task_name, k, settings)
        if problem:
            return None, f"{path.name} {problem}"
        if "infra_failure" in attempt:
            return None, None  # lost to the server last time: retried, quietly
        return attempt, None

    def finished(self, settings):
        """Every finished attempt in the folder that fits its slot, whichever tasks and attempt
        numbers this run chose: a resume with fewer --tasks or --attempts adds, never shrinks."""
        found = []
        for entry in sorted(os.listdir(self.attempts)) if self.attempts.is_dir() else ():
            slot = SLOT.fullmatch(entry)
            attempt = self.read_slot(slot["task"], int(slot["k"]), settings)[0] if slot else None
            if attempt:
                found.append(attempt)
        return found


def misfit(attempt, task_name, k, settings):
    """Why an attempt file does not belong in slot (task, k) of an evaluation with `settings`,
    or None. A file copied from another slot, task or configuration must not count here."""
    if attempt.get("attempt_id") != f"{task_name}-{k}" or attempt.get("task_name") != task_name:
        return f"belongs to another slot ({str(attempt.get('attempt_id'))[:60]})"
    try:
        if LoopSettings.from_recorded(attempt["settings"]) != settings:
            return "was made with other settings"
    except (ValueError, TypeError) as error:
        return f"has settings that cannot be read ({str(error)[:120]})"
    if "infra_failure" in attempt:
        return None if isinstance(attempt["infra_failure"], str) else "has a damaged infra_failure"
    damaged = [field for field, fits in FIELDS.items() if not fits(attempt)]
    return f"is damaged (its {', '.join(damaged)}: missing, or not what an attempt holds)" if damaged else None


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# What the summary, the progress line, the report and the improver read from a finished
# attempt, beyond the recording's own shape (runs/recording_check.py): each must be there.
FIELDS = {
    "grades": lambda a: isinstance(a.get("grades"), dict) and a["grades"].get("verdict") == a.get("verdict"),
    "claim": lambda a: (isinstance(a.get("claim"), dict) and isinstance(a["claim"].get("contradicted"), bool)
                        and isinstance(a["claim"].get("text"), str)),
    "stop": lambda a: a.get("stop") == a["events"][-1],  # the run's stop is its last event
    "changed_files": lambda a: isinstance(a.get("changed_files"), list)
                               and all(isinstance(path, str) for path in a["changed_files"]),
    "seconds": lambda a: _number(a.get("seconds", 0)),
    "commit": lambda a: isinstance(a.get("commit"), (str, type(None))),
}
