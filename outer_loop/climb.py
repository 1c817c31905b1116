"""The outer loop: evaluate a configuration, read its failing traces, change it, evaluate again.

`run_improvement(plan, labels, prompt_chat, say)` does, for n = 1, 2, ...:
evaluate the current LoopSettings on the training tasks (evaluation/runner.py, in
`OUT/iteration-<n>/`), stop when the pass rate reached the target or the iterations are spent,
otherwise ask the improver for the next settings; an iteration that proposes no change ends the
loop (stagnation). The held-out tasks never reach the improver: the starting and the final
configurations are both evaluated on them, in `OUT/holdout-start/` and `OUT/holdout-final/`, so
a configuration that only fits the training tasks shows. An iteration counts only the slots it
chose (its tasks x --attempts), whatever else its folder holds. `OUT/improvement.json` is
rewritten after every decision and every iteration, and the report after every attempt; an OUT
that holds this improvement is resumed with its recorded decisions, and a finished one is left
as it is (outer_loop/record.py).

What this file deliberately is not: an improver (rules.py and prompt_rewrite.py propose the
changes) or a replay (rederive.py re-derives a finished one).
"""
from dataclasses import dataclass, replace
from pathlib import Path

from agent_loop import LoopSettings
from evaluation.runner import Evaluation, evaluate
from outer_loop import prompt_rewrite, rules
from outer_loop.record import entry, new_record, resumed, save
from outer_loop.improvement_report import write_improvement_report
from command_line.printer import clean


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
    model: object = None    # models.choice.ModelChoice (a real model, or the built-in scripted small model)
    jobs: int = 1
    tasks_dir: str = None   # where the tasks come from (None: the shipped tasks/), kept for --replay
    cluster: object = None  # command_line.cluster_flags.OnRay: the attempts run on a Ray cluster (None: worker processes)


class LostAttempts(Exception):
    """An iteration lost attempts to the server; the same command resumes and retries them."""


def run_improvement(plan, labels, prompt_chat=None, say=print):
    """Run the outer loop, or go on with the one in OUT; return the improvement record."""
    record = resumed(plan)
    if record is not None and record["final"] is not None:
        say(f"{plan.out} holds a finished improvement (stopped: {record['stopped']}): nothing to run")
        return record
    record = record or new_record(plan)
    entries, decision = record["iterations"], (plan.start, [], None)
    for n in range(1, plan.iterations + 1):
        if n > len(entries):  # kept before it is evaluated: a resume never asks the improver again
            entries.append(entry(n, *decision))
            save(plan.out, record)
        settings = LoopSettings.from_recorded(entries[n - 1]["settings"])
        say(f"=== iteration {n}: {clean(describe(entries[n - 1]['changes'])) or 'the starting configuration'}")
        result = _evaluate(plan, f"iteration-{n}", plan.train, settings, labels, record=record, say=say)
        entries[n - 1]["train"] = _rates(result)
        save(plan.out, record)
        if n < len(entries):
            continue  # the next iteration is recorded: the decision to go on stands
        stop = record["stopped"] or _stop_reason(plan, n, entries[n - 1]["train"]["pass@1"])
        if stop is None:
            decision = next_settings(plan, settings, result["attempts"], prompt_chat)
            stop = None if decision[1] else "no_change"
        if stop:
            record["stopped"] = stop
            save(plan.out, record)
            break
    record["final"] = entries[-1]["settings"]
    record["holdout"] = _holdout(plan, record, labels, say)
    save(plan.out, record)
    return record


def next_settings(plan, settings, attempts, prompt_chat):
    """The improver's (next settings, changes, the model's raw answer or None). The `model`
    improver lets the rules change the loop's policies and asks the model for the prompt's
    words instead of the rules' prompt."""
    tasks = {task.name: task for task in plan.train}
    if plan.improver == "rules":
        return (*rules.propose(settings, attempts, tasks), None)
    policies = tuple(rule for rule in rules.RULES if rule is not rules.testing_prompt)
    settings, changes = rules.propose(settings, attempts, tasks, policies)
    failed = sorted((a for a in attempts if a.get("grades") and a["verdict"] != "repaired"), key=rules.slot)
    raw = prompt_rewrite.ask_for_prompt(prompt_chat, settings, failed)
    problem = prompt_rewrite.validate(raw)
    answer = {"raw": raw, "accepted": problem is None, "why": problem}
    if problem is None and prompt_rewrite.compose(raw) != settings.system:
        new = prompt_rewrite.compose(raw)
        changes.append({"field": "system", "from": settings.system, "to": new,
                        "rationale": f"the model rewrote the prompt from a digest of {len(failed)} failed attempts",
                        "evidence": [a["attempt_id"] for a in failed]})
        settings = replace(settings, system=new)
    return settings, changes, answer


def _evaluate(plan, folder, tasks, settings, labels, *, record, say):
    """One evaluation of the climb (evaluation/runner.py), its report redrawn after each attempt."""
    evaluation = Evaluation(plan.out / folder, tasks, plan.attempts, settings, plan.model, plan.jobs,
                            whole_folder=False, cluster=plan.cluster)
    result = evaluate(evaluation, labels, say,
                      on_attempt=lambda attempts: write_improvement_report(plan.out, record, running=True))
    if result["lost"]:
        raise LostAttempts(f"{len(result['lost'])} attempt(s) of {folder} were lost to the server or the harness")
    return result


def _holdout(plan, record, labels, say):
    """The starting and the final configuration on the tasks the improver never saw."""
    if not plan.holdout:
        return None
    final = LoopSettings.from_recorded(record["final"])
    found = {"tasks": [task.name for task in plan.holdout]}
    for name, settings in (("start", plan.start), ("final", final)):
        say(f"=== held-out tasks, {name} configuration")
        found[name] = _rates(_evaluate(plan, f"holdout-{name}", plan.holdout, settings, labels,
                                       record=record, say=say))
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
