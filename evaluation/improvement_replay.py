"""`improve.py --replay DIR`: re-run a finished improvement from its recordings and check it.

Every attempt of every iteration (and of the held-out evaluations) is replayed with the real
tools and pytest (replay.py), its grades are derived again from the replayed run, and every
decision of the improver is derived again from those grades: the rules from the traces, the
`model` improver's prompt from its recorded raw answer (the model is not asked again). Any
difference is named with its iteration, and the exit code is non-zero. `served=True` serves
each tool's recorded result instead (replay.py's served replay): no pytest runs, so it checks
the loop's behaviour and every decision, not that the code still behaves as recorded.

What this file deliberately is not: a new evaluation. Nothing is written into DIR.
"""
import json
from pathlib import Path

from agent_loop import LoopSettings
from evaluation import improvement, prompt_improver
from evaluation.folder import SLOT
from evaluation.grades import grade
from replay import replay
from runs.printer import clean, fail
from workspace.task_catalog import load_task


def replay_improvement(folder, served=False):
    """Print what was checked; return the exit code (0: everything as recorded)."""
    try:
        record = json.loads((folder / "improvement.json").read_text(encoding="utf-8"))
        iterations = record["iterations"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return fail(f"{folder}: not a finished improvement ({type(error).__name__}); pass the folder improve.py wrote")
    differing, tasks_dir = [], record.get("tasks_dir")
    for entry in iterations:
        attempts, problems = replay_folder(folder / entry["folder"], tasks_dir, served)
        problems += decision_differences(record, entry, attempts, tasks_dir)
        print(f"iteration {entry['n']}: {len(attempts)} attempts replayed; "
              + ("grades and decisions as recorded" if not problems else "DIFFERS"))
        differing += [f"iteration {entry['n']}: {problem}" for problem in problems]
    for name in ("start", "final") if record.get("holdout") else ():
        _, problems = replay_folder(folder / f"holdout-{name}", tasks_dir, served)
        differing += [f"held-out {name}: {problem}" for problem in problems]
    for line in differing:
        print(f"  - {clean(line)}")
    print(f"{'every iteration replayed as recorded' if not differing else f'{len(differing)} difference(s)'}")
    return 1 if differing else 0


def replay_folder(folder, tasks_dir=None, served=False):
    """(re-derived attempts, differences) for one evaluation folder."""
    attempts, problems = [], []
    for path in sorted((folder / "attempts").glob("*.json")):
        if not SLOT.fullmatch(path.name):
            continue
        try:
            result = replay(path, served=served, tasks_dir=tasks_dir)
        except (OSError, ValueError) as error:
            problems.append(f"{path.name}: {error}")
            continue
        recorded = result["recording"]
        problems += [f"{path.name}: {d}" for d in result["differences"]]
        attempt = {**recorded, "events": result["events"], "final_tests": result["final_tests"],
                   "verdict": result["verdict"], "changed_files": result["changed_files"],
                   "tests_unchanged": result["tests_unchanged"]}
        if "grades" in recorded:
            attempt["grades"] = grade(attempt, load_task(recorded["task_name"], tasks_dir))
            if attempt["grades"] != recorded["grades"]:
                problems.append(f"{path.name}: grades {attempt['grades']} here, {recorded['grades']} recorded")
        attempts.append(attempt)
    return attempts, problems


def decision_differences(record, entry, attempts, tasks_dir=None):
    """Re-derive the improver's decision after this iteration and compare it with the next one."""
    following = [e for e in record["iterations"] if e["n"] == entry["n"] + 1]
    if not following:
        return []
    settings = LoopSettings.from_recorded(entry["settings"])
    plan = improvement.Plan(Path("."), tuple(load_task(a["task_name"], tasks_dir) for a in attempts), (), 1, 1, 1.0,
                            settings, record["improver"], {})
    answer = following[0].get("prompt_answer") or {}
    chat = (lambda messages, schemas: iter([{"message": {"content": answer.get("raw", "")}, "done": True}]))
    derived, changes, _ = improvement.next_settings(plan, settings, attempts, chat)
    recorded = LoopSettings.from_recorded(following[0]["settings"])
    problems = []
    if derived != recorded:
        problems.append(f"the improver now proposes {improvement.describe(changes) or 'no change'}; "
                        f"recorded: {improvement.describe(following[0]['changes'])}")
    if [c["evidence"] for c in changes] != [c["evidence"] for c in following[0]["changes"]]:
        problems.append("the evidence cited for the changes differs from the recorded evidence")
    if answer and prompt_improver.validate(answer.get("raw")) != answer.get("why"):
        problems.append("the recorded prompt answer is judged differently now")
    return problems
