"""improvement.json: what improve.py keeps of an improvement, and reads back to go on with one.

`new_record(plan)` starts one; `resumed(plan)` reads the one in OUT and checks that it is this
improvement (or returns None when OUT holds none); `save(out, record)` writes it and the report.

The plan (the training and the held-out tasks and where they come from, attempts, iterations,
target), the starting settings and the improver are part of an improvement: a run on the same OUT with any other is
refused in one line, so a held-out task never becomes a training task's evidence and no number
in the record mixes two plans. Every iteration's decision (its settings, its changes, the model's
answer) is recorded before the iteration is evaluated, and a resume takes it as recorded: it
never asks the improver again. `stopped` is recorded once decided; `final` (with the held-out
rates) last, so a record with `final` is finished, and running the same command again on it
changes nothing.

The file is untrusted on resume (someone may have edited it): its shape is checked before any of
it is used.

What this file deliberately is not: the climb (climb.py) or a replay (rederive.py).
"""
import json
from pathlib import Path

from agent_loop import LoopSettings
from evaluation.folder import FolderProblem
from outer_loop.improvement_report import write_improvement_report
from runs.recording_file import json_text
from workspace.files import write_atomic
from workspace.task_catalog import TASKS

STOPS = ("target", "iterations", "no_change")
FLAGS = {"tasks": "--tasks", "holdout": "--holdout", "attempts": "--attempts", "iterations": "--iterations",
         "target": "--target", "start": "--start", "improver": "--improver"}


def plan_of(plan):
    """The part of the plan that shapes the improvement's numbers, as recorded."""
    return {"tasks": [task.name for task in plan.train], "holdout": [task.name for task in plan.holdout],
            "attempts": plan.attempts, "iterations": plan.iterations, "target": plan.target}


def new_record(plan):
    return {"start": plan.start.recorded(), "improver": plan.improver, "plan": plan_of(plan), "iterations": [],
            "stopped": None, "final": None, "holdout": None,
            "tasks_dir": None if plan.tasks_dir is None else str(plan.tasks_dir)}


def entry(n, settings, changes, answer):
    """Iteration n's decision, kept before it is evaluated (`train` is filled in after)."""
    return {"n": n, "settings": settings.recorded(), "changes": changes, "train": None, "folder": f"iteration-{n}",
            **({"prompt_answer": answer} if answer else {})}


def resumed(plan):
    """The improvement in OUT, if there is one: checked to be this plan's, with its recorded
    decisions. A FolderProblem (one line) when it cannot be read or is another improvement."""
    path = plan.out / "improvement.json"
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        problem = shape_problem(record) or (None if isinstance(record.get("plan"), dict) else
                                            "it records no plan (an older improve.py wrote it)")
    except (OSError, ValueError, RecursionError) as error:
        problem = f"it is not JSON ({type(error).__name__})"
    if problem:
        raise FolderProblem(f"{path} cannot be resumed: {problem}; pass a new --out")
    differences = _differences(record, plan)
    if differences:
        raise FolderProblem(f"{plan.out} holds an improvement made with {'; '.join(differences)}; "
                            "an improvement keeps its plan: run it with those, or pass a new --out")
    if len(record["iterations"]) > plan.iterations:
        raise FolderProblem(f"{path} holds more iterations than --iterations {plan.iterations}; pass a new --out")
    return record


def shape_problem(record):
    """What keeps `record` from being an improvement's record, or None."""
    if not isinstance(record, dict) or not isinstance(record.get("iterations"), list):
        return "it holds no list of iterations"
    if not isinstance(record.get("plan", {}), dict):
        return "its plan is not an object"
    if record.get("stopped") not in (None, *STOPS) or (record.get("final") is not None and not record["stopped"]):
        return "its stop is not one improve.py records"
    entries = record["iterations"]
    for number, item in enumerate(entries, 1):
        problem = _entry_problem(item, number, last=number == len(entries))
        if problem:
            return f"iteration {number}: {problem}"
    if record.get("final") is not None and not entries:
        return "it is finished without an iteration"
    holdout = record.get("holdout")
    if holdout is not None and not (isinstance(holdout, dict) and isinstance(holdout.get("tasks"), list)
                                    and _rates_fine(holdout.get("start")) and _rates_fine(holdout.get("final"))):
        return "its held-out rates cannot be read"
    return None


def _rates_fine(rates):
    return isinstance(rates, dict) and all(isinstance(rates.get(key), (int, float, type(None)))
                                           for key in ("attempts", "repaired", "pass@1"))


def _entry_problem(item, n, last):
    if not isinstance(item, dict) or item.get("n") != n or item.get("folder") != f"iteration-{n}":
        return f"not iteration {n} (n and folder)"
    try:
        LoopSettings.from_recorded(item["settings"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return "its settings cannot be read"
    if not isinstance(item.get("changes"), list) or not all(isinstance(c, dict) for c in item["changes"]):
        return "its changes are not a list of changes"
    train = item.get("train")
    return None if _rates_fine(train) or (train is None and last) else "its training rates are missing"


def _differences(record, plan):
    recorded = {**record["plan"], "start": record.get("start"), "improver": record.get("improver")}
    here = {**plan_of(plan), "start": plan.start.recorded(), "improver": plan.improver}
    found = []
    for key, flag in FLAGS.items():
        same = (same_settings(recorded[key], here[key]) if key == "start" else recorded.get(key) == here[key])
        if not same:
            there = "another start" if key == "start" else _shown(recorded.get(key))
            found.append(f"{flag} {there}" + ("" if key == "start" else f" (here: {_shown(here[key])})"))
    if _resolved(record.get("tasks_dir")) != _resolved(plan.tasks_dir):  # the same names may be other tasks
        found.append(f"--tasks-dir {_shown(record.get('tasks_dir') or '(the shipped tasks)')} "
                     f"(here: {_shown(plan.tasks_dir or '(the shipped tasks)')})")
    return found


def _resolved(folder):
    try:
        return TASKS if folder is None else Path(folder).resolve()
    except (TypeError, ValueError, OSError):
        return folder


def same_settings(recorded, other):
    """Whether two settings as recorded run the same loop (read as LoopSettings, defaults and all);
    False when either is no settings at all."""
    try:
        return LoopSettings.from_recorded(recorded) == LoopSettings.from_recorded(other)
    except (TypeError, ValueError, AttributeError):
        return False


def _shown(value):
    text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
    return (text if len(text) <= 80 else text[:77] + "...") or "(none)"


def save(out, record):
    """improvement.json and the report; the report reloads itself until `final` is recorded."""
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "improvement.json", json_text(record) + "\n")
    write_improvement_report(out, record, running=record.get("final") is None)
