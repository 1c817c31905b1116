"""`improve.py --replay DIR`: re-run a finished improvement from its recordings and check it.

Every attempt the plan counts, in every iteration and in both held-out evaluations, is replayed
with the real tools and pytest (replay.py), its grades are derived again from the replayed run,
and every number improvement.json states is derived again and compared: each iteration's
training rates, each decision of the improver (the rules from the traces, the `model` improver's
prompt from its recorded raw answer: the model is not asked again), where the climb stopped and
why, the final settings, and the held-out rates. An attempt the plan counts that is missing, or
that does not fit its slot, is named. Any difference is named with its iteration, and the exit
code is non-zero. `served=True` serves each tool's recorded result instead (replay.py's served
replay): no pytest runs, so it checks the loop's behaviour and every number, not that the code
still behaves as recorded.

A record an older improve.py wrote holds no plan: its tasks and attempts are then read from the
folders, and its target and iterations are not checked (the replay says so).

What this file deliberately is not: a new evaluation. Nothing is written into DIR.
"""
import json
from pathlib import Path

from agent_loop import LoopSettings
from evaluation.folder import SLOT, misfit
from evaluation.grades import grade, pass_at_k
from outer_loop import climb, prompt_rewrite
from outer_loop.record import same_settings, shape_problem
from replay import replay
from command_line.printer import clean, fail
from workspace.task_catalog import load_task


def replay_improvement(folder, served=False):
    """Print what was checked; return the exit code (0: everything as recorded)."""
    try:
        record = json.loads((folder / "improvement.json").read_text(encoding="utf-8"))
        problem = shape_problem(record) or (None if record.get("final") is not None else "it has not finished")
    except (OSError, ValueError, RecursionError) as error:
        problem = type(error).__name__
    if problem:
        return fail(f"{folder}: not a finished improvement ({problem}); pass the folder improve.py wrote")
    plan = planned(record, folder)
    if "plan" not in record:
        print("no plan recorded (an older improve.py): the tasks and attempts are read from the folders; "
              "the target and the iterations are not checked")
    differing = [f"start: {p}" for p in _start_differences(record)]
    for entry in record["iterations"]:
        settings = LoopSettings.from_recorded(entry["settings"])
        attempts, problems = replay_folder(folder / entry["folder"], plan, plan["tasks"], settings, served)
        problems += rate_differences(entry["train"], attempts) + decision_differences(record, plan, entry, attempts)
        print(f"iteration {entry['n']}: {len(attempts)} attempts replayed; "
              + ("grades and decisions as recorded" if not problems else "DIFFERS"))
        differing += [f"iteration {entry['n']}: {problem}" for problem in problems]
    differing += holdout_differences(folder, record, plan, served)
    for line in differing:
        print(f"  - {clean(line)}")
    print(f"{'every iteration replayed as recorded' if not differing else f'{len(differing)} difference(s)'}")
    return 1 if differing else 0


def planned(record, folder):
    """The plan the record states; for an older record, the tasks and attempts its folders hold."""
    if "plan" in record:
        return {**record["plan"], "tasks_dir": record.get("tasks_dir")}
    slots = [SLOT.fullmatch(p.name) for entry in record["iterations"]
             for p in (folder / entry["folder"] / "attempts").glob("*.json")]
    slots = [slot for slot in slots if slot]
    return {"tasks": sorted({slot["task"] for slot in slots}), "attempts": max((int(s["k"]) for s in slots), default=1),
            "holdout": (record.get("holdout") or {}).get("tasks", []), "target": None, "iterations": None,
            "tasks_dir": record.get("tasks_dir")}


def replay_folder(folder, plan, task_names, settings, served=False):
    """(re-derived attempts, differences) for the slots the plan counts in one evaluation folder."""
    attempts, problems = [], []
    for name in task_names:
        for k in range(1, plan["attempts"] + 1):
            attempt, problem = _replay_slot(folder / "attempts" / f"{name}-{k}.json", name, k, settings, plan,
                                            served=served)
            problems += [problem] if problem else []
            attempts += [attempt] if attempt else []
    return attempts, problems


def _replay_slot(path, name, k, settings, plan, *, served):
    """(the re-derived attempt or None, a difference or None) for one slot the plan counts."""
    if not path.exists():
        return None, f"{path.name} is missing: the plan counts it"
    try:
        result = replay(path, served=served, tasks_dir=plan["tasks_dir"])
    except (OSError, ValueError) as error:
        return None, f"{path.name}: {error}"
    recorded = result["recording"]
    unfit = misfit(recorded, name, k, settings) or ("was lost to the server, yet counted"
                                                    if "infra_failure" in recorded else None)
    if unfit:
        return None, f"{path.name} {unfit}"
    attempt = {**recorded, "events": result["events"], "final_tests": result["final_tests"],
               "verdict": result["verdict"], "changed_files": result["changed_files"],
               "tests_unchanged": result["tests_unchanged"]}
    attempt["grades"] = grade(attempt, load_task(name, plan["tasks_dir"]))
    differences = [*result["differences"]] + ([f"grades {attempt['grades']} here, {recorded['grades']} recorded"]
                                              if attempt["grades"] != recorded["grades"] else [])
    return attempt, (f"{path.name}: {'; '.join(differences)}" if differences else None)


def rates_of(attempts):
    repaired = sum(a["verdict"] == "repaired" for a in attempts)
    return {"attempts": len(attempts), "repaired": repaired, "pass@1": pass_at_k(len(attempts), repaired, 1)}


def rate_differences(recorded, attempts, what="training"):
    derived = rates_of(attempts)
    if all(derived[key] == recorded.get(key) for key in derived):
        return []
    return [f"{what} rates {_rates(derived)} here, {_rates(recorded)} recorded"]


def _rates(rates):
    rate = rates.get("pass@1")
    return f"{rates.get('repaired')}/{rates.get('attempts')} repaired (pass@1 {rate if rate is None else round(rate, 4)})"


def _start_differences(record):
    first = record["iterations"][0] if record["iterations"] else {}
    problems = [] if same_settings(first.get("settings"), record["start"]) else [
        "iteration 1 ran other settings than the start"]
    problems += [] if same_settings(record["final"], record["iterations"][-1]["settings"]) else [
        "the final settings are not the last iteration's"]
    return problems + ([] if first.get("changes") == [] else ["iteration 1 records changes"])


def decision_differences(record, plan, entry, attempts):
    """After this iteration: did the climb stop, why, and which settings came next? Each derived
    again from the re-derived rates and attempts, and compared with the record."""
    following = next((e for e in record["iterations"] if e["n"] == entry["n"] + 1), None)
    stop = _stop(plan, entry["n"], rates_of(attempts)["pass@1"])
    if stop:
        if following:
            return [f"the climb went on, though it stops here (`{stop}`)"]
        return [] if stop == record["stopped"] else [f"it stops `{stop}` here, `{record['stopped']}` recorded"]
    if following is None and plan["target"] is None and record["stopped"] != "no_change":
        return []  # an older record: its target and iterations are unknown, so such a stop is not checked
    settings, changes, answer = _next_settings(record, plan, entry, attempts, following)
    if following is None and not changes:
        return [] if record["stopped"] == "no_change" else [f"it stops `no_change` here, `{record['stopped']}` recorded"]
    if following is None:
        return [f"the improver now proposes {climb.describe(changes)} after the last iteration; "
                f"`{record['stopped']}` recorded"]
    return _next_differences(following, settings, changes, answer)


def _stop(plan, n, rate):
    """Why the climb stops after iteration n before asking the improver (target, iterations), or None."""
    if plan["target"] is not None and rate is not None and rate >= plan["target"]:
        return "target"
    return "iterations" if plan["iterations"] is not None and n >= plan["iterations"] else None


def _next_settings(record, plan, entry, attempts, following):
    tasks = tuple(load_task(name, plan["tasks_dir"]) for name in plan["tasks"])
    settings = LoopSettings.from_recorded(entry["settings"])
    answer = (following or {}).get("prompt_answer") or {}
    chat = (lambda messages, schemas: iter([{"message": {"content": answer.get("raw", "")}, "done": True}]))
    derived, changes, _ = climb.next_settings(
        climb.Plan(Path("."), tasks, (), 1, 1, 1.0, settings, record["improver"]), settings, attempts, chat)
    return derived, changes, answer


def _next_differences(following, derived, changes, answer):
    problems = []
    if derived != LoopSettings.from_recorded(following["settings"]):
        problems.append(f"the improver now proposes {climb.describe(changes) or 'no change'}; "
                        f"recorded: {climb.describe(following['changes'])}")
    if [c["evidence"] for c in changes] != [c.get("evidence") for c in following["changes"]]:
        problems.append("the evidence cited for the changes differs from the recorded evidence")
    if answer and prompt_rewrite.validate(answer.get("raw")) != answer.get("why"):
        problems.append("the recorded prompt answer is judged differently now")
    return problems


def holdout_differences(folder, record, plan, served):
    """Both held-out evaluations: the tasks, each slot, the rates, against the record."""
    holdout = record["holdout"]
    if not plan["holdout"]:
        return [] if holdout is None else ["held-out rates are recorded for a plan without held-out tasks"]
    if holdout is None or holdout["tasks"] != plan["holdout"]:
        return [f"held-out tasks {plan['holdout']} planned, {holdout and holdout['tasks']} recorded"]
    found = []
    for name, settings in (("start", record["start"]), ("final", record["final"])):
        attempts, problems = replay_folder(folder / f"holdout-{name}", plan, plan["holdout"],
                                           LoopSettings.from_recorded(settings), served)
        problems += rate_differences(holdout[name], attempts, "held-out")
        print(f"held-out {name}: {len(attempts)} attempts replayed; " + ("as recorded" if not problems else "DIFFERS"))
        found += [f"held-out {name}: {problem}" for problem in problems]
    return found
