"""Grading attempts and summing them up: process grades, the model's claim, prompt tokens, pass@k.

Every grade is computed from the events and the independent verdict, never from what the
model said. The model's final claim is kept beside the verdict only to show when the two
disagree ("All tests pass" over a failing run).

What this file deliberately is not: a verdict (verdict.py is) or a judge of code quality.
"""
import math
import re
from collections import Counter

from evaluation.coverage import search_summary

MALFORMED = {"tool_call_as_text", "empty_turn", "calls_refused"}
# A turn whose every edit wrote code back unchanged: a well-formed answer that changed nothing,
# counted apart (loop setting unchanged_edits="apart"; before it, such a turn was calls_refused).
UNCHANGED = "unchanged_edit"
# A heuristic, and labelled as one: words that claim success, unless negated nearby.
SUCCESS = re.compile(r"\b(fixed|repaired|resolved|(all|every) (the )?tests? (now )?pass|tests? (now )?pass(es)?|"
                     r"works? now|passing)\b", re.I)
NEGATED = re.compile(r"\b(not|n't|still fail|cannot|could not|unable|no longer pass)\b", re.I)


def grade(attempt, task):
    """The process grades of one finished attempt (a recording with the verdict fields)."""
    calls = _model_calls(attempt["events"])
    first_edit = next((i for i, (name, _, result) in enumerate(calls)
                       if name == "replace_text" and "replaced" in result), len(calls))
    before = calls[:first_edit]
    changed = set(attempt["changed_files"])
    return {
        "read_failing_test": any(name == "read_file" and "text" in result and task.is_test_file(result["path"])
                                 for name, _, result in before),
        "ran_tests_before_edit": any(name == "run_tests" and "exit_code" in result for name, _, result in before),
        "edited": bool(changed & set(task.editable)),
        "tests_unchanged": attempt["tests_unchanged"],
        "only_editable_changed": changed <= set(task.editable),
        "verdict": attempt["verdict"],
    }


def _model_calls(events):
    """(name, arguments, result) of each call the model made (not the harness's checks)."""
    starts = {(e["turn"], e["index"]): e for e in events if e["type"] == "tool_start" and not e.get("by_harness")}
    return [(e["name"], starts[(e["turn"], e["index"])]["arguments"], e["result"])
            for e in events if e["type"] == "tool_result" and (e["turn"], e["index"]) in starts]


def claim(attempt):
    """The model's final message, whether it claims success, and whether the verdict says otherwise."""
    events = attempt["events"]
    last_turn = max((e["turn"] for e in events if e["type"] == "text_delta"), default=None)
    text = "".join(e["text"] for e in events if e["type"] == "text_delta" and e["turn"] == last_turn)
    claims = bool(SUCCESS.search(text)) and not NEGATED.search(text)
    return {"text": text, "claims_success": claims, "contradicted": claims and attempt["verdict"] != "repaired"}


def prompt_tokens(recording):
    """The prompt tokens the server counted over one run (over every candidate of a search): the
    sum of `prompt_eval_count` in each turn's done chunk, or None when no turn has one (scripted
    runs and servers that do not count)."""
    return counted_tokens(recording, "prompt_eval_count")


def counted_tokens(recording, field):
    """The sum of `field` (prompt_eval_count, eval_count) over the done chunks of a run's turns,
    or of every candidate's turns for a search; None when no turn counted it."""
    runs = recording.get("candidates") if isinstance(recording.get("candidates"), list) else [recording]
    counts = [chunk.get(field) for run in runs if isinstance(run, dict)
              for turn in run.get("turns") or [] if isinstance(turn, dict)
              for chunk in turn.get("chunks") or [] if isinstance(chunk, dict) and chunk.get("done")]
    counts = [n for n in counts if isinstance(n, int) and not isinstance(n, bool)]
    return sum(counts) if counts else None


def cost(recording):
    """What an attempt spent on the model: prompt and generated tokens, and the runs it took
    (one, or a search's candidates that ran)."""
    return {"prompt_tokens": prompt_tokens(recording), "generated_tokens": counted_tokens(recording, "eval_count"),
            "candidates_run": len(recording["candidates"]) if isinstance(recording.get("candidates"), list) else 1}


def pass_at_k(n, c, k):
    """The unbiased estimator 1 - C(n-c, k) / C(n, k): the chance that at least one of k
    attempts drawn from these n repairs the task (k is capped at n)."""
    if n == 0:
        return None
    k = min(k, n)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def malformed_turns(attempt):
    """Turns that were malformed: a correction for one, or the turn that hit the limit."""
    events = attempt["events"]
    count = sum(e["type"] == "nudge" and e["kind"] in MALFORMED for e in events)
    return count + (events[-1]["reason"] == "format_errors")


def unchanged_edit_turns(attempt):
    """Turns that only wrote code back unchanged: a correction for one, or the turn that hit the limit."""
    events = attempt["events"]
    count = sum(e["type"] == "nudge" and e["kind"] == UNCHANGED for e in events)
    return count + (events[-1]["reason"] == "unchanged_edits")


def summary_of(attempts, k, model, commit, dirty):
    """summary.json: per task and overall pass rates, stop reasons, well-formed turns (and, apart,
    those that wrote code back unchanged), infra failures."""
    graded = [a for a in attempts if "infra_failure" not in a]
    tasks = {}
    for name in dict.fromkeys(a["task_name"] for a in attempts):
        mine = [a for a in graded if a["task_name"] == name]
        repaired = sum(a["verdict"] == "repaired" for a in mine)
        tasks[name] = {"attempts": len(mine), "repaired": repaired,
                       "pass@1": pass_at_k(len(mine), repaired, 1), "pass@k": pass_at_k(len(mine), repaired, k)}
    repaired = sum(a["verdict"] == "repaired" for a in graded)
    turns = sum(sum(e["type"] == "model_start" for e in a["events"]) for a in graded)
    seconds = [a["seconds"] for a in graded if "seconds" in a]
    tokens = [count for a in graded if (count := prompt_tokens(a)) is not None]
    generated = [count for a in graded if (count := counted_tokens(a, "eval_count")) is not None]
    searched = search_summary(graded)
    return {
        "k": k, "tasks": tasks,
        "overall": {"attempts": len(graded), "repaired": repaired, "pass@1": pass_at_k(len(graded), repaired, 1)},
        "stop_reasons": dict(Counter(a["stop"]["reason"] for a in graded).most_common()),
        "well_formed_turns": None if turns == 0 else round(1 - sum(map(malformed_turns, graded)) / turns, 4),
        # Well-formed too, but no step: the share of turns that only wrote code back unchanged.
        "unchanged_edit_turns": None if turns == 0 else round(sum(map(unchanged_edit_turns, graded)) / turns, 4),
        "infra_failures": len(attempts) - len(graded),
        "model": model, "commit": commit, "dirty": dirty,
        # A resumed evaluation may hold attempts made at other commits: say so.
        "attempt_commits": sorted({a["commit"] for a in graded if a.get("commit")}),
        "seconds_per_attempt": round(sum(seconds) / len(seconds), 2) if seconds else None,
        # On a CPU the prompt is most of a turn's time: what the harness sends is what it costs.
        "prompt_tokens_per_attempt": round(sum(tokens) / len(tokens)) if tokens else None,
        "generated_tokens_per_attempt": round(sum(generated) / len(generated)) if generated else None,
        # A search counts as one attempt (pass@1 of the system); what it ran and cost is here.
        **({"search": searched} if searched else {}),
    }


def markdown_table(summary):
    """The short table printed at the end of an evaluation (pass@k only when k > 1)."""
    k = summary["k"]
    extra = f" pass@{k} |" if k > 1 else ""
    lines = [f"| task | attempts | repaired | pass@1 |{extra}", "|---|---|---|---|" + ("---|" if k > 1 else "")]
    for name, row in summary["tasks"].items():
        rate_k = f" {_rate(row['pass@k'])} |" if k > 1 else ""
        lines.append(f"| {name} | {row['attempts']} | {row['repaired']} | {_rate(row['pass@1'])} |{rate_k}")
    overall = summary["overall"]
    lines.append(f"| **all** | {overall['attempts']} | {overall['repaired']} | {_rate(overall['pass@1'])} |"
                 + (" |" if k > 1 else ""))
    return "\n".join(lines)


def _rate(value):
    return "n/a" if value is None else f"{value:.2f}"
