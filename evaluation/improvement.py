"""The outer loop: evaluate a configuration, read its failing traces, change it, evaluate again.

`run_improvement(plan, info, commit, dirty, prompt_chat, say)` does, for n = 1, 2, ...:
evaluate the current LoopSettings on the training tasks (evaluation/runner.py, in
`OUT/iteration-<n>/`), stop when the pass rate reached the target or the iterations are spent,
otherwise ask the improver for the next settings; an iteration that proposes no change ends the
loop (stagnation). The held-out tasks never reach the improver: the starting and the final
configurations are both evaluated on them, in `OUT/holdout-start/` and `OUT/holdout-final/`, so
a configuration that only fits the training tasks shows. `OUT/improvement.json` is rewritten
after every iteration, and the report after every attempt.

What this file deliberately is not: an improver (improver.py and prompt_improver.py propose the
changes) or a replay (improvement_replay.py re-derives a finished one).
"""
import json
from dataclasses import dataclass, replace
from pathlib import Path

from agent_loop import LoopSettings
from evaluation import improver, prompt_improver
from evaluation.folder import FolderProblem
from evaluation.improve_report import write_improvement_report
from evaluation.runner import Evaluation, evaluate
from workspace.files import write_atomic


@dataclass(frozen=True)
class Plan:
    """What improve.py was asked for."""
    out: Path
    train: tuple            # Task objects the improver learns from
    holdout: tuple          # Task objects it never sees
    attempts: int
    iterations: int
    target: float
    start: object           # LoopSettings
    improver: str           # "rules" or "model"
    model: dict             # the model's identity, as evaluate.py keeps it
    model_args: object = None
    scripted: bool = False
    jobs: int = 1
    tasks_dir: str = None   # where the tasks come from (None: the shipped tasks/), kept for --replay


class LostAttempts(Exception):
    """An iteration lost attempts to the server; the same command resumes and retries them."""


def run_improvement(plan, info, commit, dirty, prompt_chat=None, say=print):
    """Run the outer loop; return the improvement record (improvement.json)."""
    record = _resumed(plan) or {"start": plan.start.recorded(), "improver": plan.improver, "iterations": [],
                                "stopped": None, "final": None, "holdout": None,
                                "tasks_dir": None if plan.tasks_dir is None else str(plan.tasks_dir)}
    done, settings, changes, answer = record["iterations"], plan.start, [], None
    for n in range(1, plan.iterations + 1):
        if n <= len(done):  # resumed: the recorded decision stands (a model would answer anew)
            settings = LoopSettings.from_recorded(done[n - 1]["settings"])
            changes, answer = done[n - 1]["changes"], done[n - 1].get("prompt_answer")
        say(f"=== iteration {n}: {describe(changes) or 'the starting configuration'}")
        result = _evaluate(plan, f"iteration-{n}", plan.train, settings, info, commit, dirty, record, say)
        entry = {"n": n, "settings": settings.recorded(), "changes": changes, "train": _rates(result),
                 "folder": f"iteration-{n}", **({"prompt_answer": answer} if answer else {})}
        record["iterations"][n - 1:] = [entry]
        _save(plan, record)
        stop = _stop_reason(plan, n, entry["train"]["pass@1"])
        if stop is None:
            settings, changes, answer = next_settings(plan, settings, result["attempts"], prompt_chat)
            stop = None if changes else "no_change"
        if stop:
            record["stopped"] = stop
            break
    record["final"] = record["iterations"][-1]["settings"]
    record["holdout"] = _holdout(plan, record, info, commit, dirty, say)
    _save(plan, record)
    return record


def next_settings(plan, settings, attempts, prompt_chat):
    """The improver's (next settings, changes, the model's raw answer or None). The `model`
    improver lets the rules change the loop's policies and asks the model for the prompt's
    words instead of the rules' prompt."""
    tasks = {task.name: task for task in plan.train}
    if plan.improver == "rules":
        return (*improver.propose(settings, attempts, tasks), None)
    rules = tuple(rule for rule in improver.RULES if rule is not improver.testing_prompt)
    settings, changes = improver.propose(settings, attempts, tasks, rules)
    failed = sorted((a for a in attempts if a.get("grades") and a["verdict"] != "repaired"), key=improver.slot)
    raw = prompt_improver.ask_for_prompt(prompt_chat, settings, failed)
    problem = prompt_improver.validate(raw)
    answer = {"raw": raw, "accepted": problem is None, "why": problem}
    if problem is None and prompt_improver.compose(raw) != settings.system:
        new = prompt_improver.compose(raw)
        changes.append({"field": "system", "from": settings.system, "to": new,
                        "rationale": f"the model rewrote the prompt from a digest of {len(failed)} failed attempts",
                        "evidence": [a["attempt_id"] for a in failed]})
        settings = replace(settings, system=new)
    return settings, changes, answer


def _evaluate(plan, folder, tasks, settings, info, commit, dirty, record, say):
    evaluation = Evaluation(plan.out / folder, tasks, plan.attempts, settings, plan.model, plan.model_args,
                            "settings" if plan.scripted else None, plan.jobs)
    result = evaluate(evaluation, info, commit, dirty, say,
                      on_attempt=lambda attempts: write_improvement_report(plan.out, record, running=True))
    if result["lost"]:
        raise LostAttempts(f"{len(result['lost'])} attempt(s) of {folder} were lost to the server or the harness")
    return result


def _holdout(plan, record, info, commit, dirty, say):
    """The starting and the final configuration on the tasks the improver never saw."""
    if not plan.holdout:
        return None
    final = LoopSettings.from_recorded(record["final"])
    found = {"tasks": [task.name for task in plan.holdout]}
    for name, settings in (("start", plan.start), ("final", final)):
        say(f"=== held-out tasks, {name} configuration")
        found[name] = _rates(_evaluate(plan, f"holdout-{name}", plan.holdout, settings, info, commit, dirty,
                                       record, say))
    return found


def _rates(result):
    overall = result["summary"]["overall"]
    return {"attempts": overall["attempts"], "repaired": overall["repaired"], "pass@1": overall["pass@1"]}


def _stop_reason(plan, n, rate):
    if rate is not None and rate >= plan.target:
        return "target"
    return "iterations" if n == plan.iterations else None


def describe(changes):
    """Changes in a few words: `text_calls nudge → run, verify_finish 0 → 2`."""
    def short(value):
        text = " ".join(value) if isinstance(value, list) else str(value)
        return text if len(text) <= 30 else text[:27] + "..."
    return ", ".join(f"{c['field']} {short(c['from'])} → {short(c['to'])}" for c in changes)


def _resumed(plan):
    """An interrupted (or finished) improvement in OUT made from the same start, to go on from."""
    path = plan.out / "improvement.json"
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        same = (LoopSettings.from_recorded(record["start"]) == plan.start and record["improver"] == plan.improver
                and isinstance(record["iterations"], list))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise FolderProblem(f"{path} cannot be read; pass a new --out") from None
    if not same:
        raise FolderProblem(f"{plan.out} holds an improvement from another start or improver; pass a new --out")
    return {**record, "stopped": None, "final": None, "holdout": None}


def _save(plan, record):
    plan.out.mkdir(parents=True, exist_ok=True)
    public = {key: value for key, value in record.items() if not key.startswith("_")}
    write_atomic(plan.out / "improvement.json", json.dumps(public, indent=1, ensure_ascii=False) + "\n")
    write_improvement_report(plan.out, public, running=record["stopped"] is None)
