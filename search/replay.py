"""Replaying a search: every candidate played again, and the choice made again from the replay.

`replay_search(recording, task, settings, model_for, served=..., folder=...)` plays each
recorded candidate through the loop with its own saved chunks (`model_for(part)` is replay.py's
ReplayModel over that candidate's turns), calls off a cancelled one at the very check the live
run was called off at, runs its tests on its copy (or serves the recorded ones under `served`),
re-derives which candidate the tests choose, and judges that one again. Every way the replay
departs from the recording is named, candidate by candidate.

What this file deliberately is not: a runner of new candidates (candidates.py is), or the
replay of a single run (replay.py's `replay` does that, and calls this for a search).
"""
from repo_tools import RepoTools
from runs.recording import focus_of, record_loop
from runs.replay_check import event_differences, outcome_differences, shorten
from runs.served_tools import ServedTools
from search.candidates import TEST_FIELDS
from search.choice import choose, closest
from workspace.task_catalog import fresh_copy
from workspace.verdict import changes, judge, verdict


def replay_search(recording, task, settings, model_for, *, served, folder):
    """Return {"events", "final_tests", "verdict", "changed_files", "tests_unchanged",
    "differences", "candidates"} (the shown candidate's events; the replayed candidates)."""
    differences, replayed = [], []
    for recorded in recording["candidates"]:
        candidate, found = _replay_candidate(recording, recorded, task, settings, model_for, served, folder)
        replayed.append(candidate)
        differences += [f"candidate {recorded['index']}: {d}" for d in found]
    tried = [c for c in replayed if "tests" in c]
    chosen, _ = choose(tried, task.editable)
    if chosen != recording["search"].get("chosen"):
        differences.append(f"choice: candidate {shorten(recording['search'].get('chosen'))} in the recording, "
                           f"{shorten(chosen)} here")
    shown = chosen if chosen is not None else closest(tried)
    top = next((c for c in replayed if c["index"] == shown), replayed[0] if replayed else None)
    body = _judged(recording, top, task, served)
    return {**body, "events": top["events"] if top else [], "differences": differences, "candidates": replayed}


def _replay_candidate(recording, recorded, task, settings, model_for, served, folder):
    """(the candidate as replayed, its differences from the recording)."""
    model = model_for({"turns": recorded["turns"], "tools": recording["tools"]})
    tools = (ServedTools({"events": recorded["events"]}, task) if served
             else RepoTools(fresh_copy(task, folder / f"candidate-{recorded['index']}"), task=task))
    run = record_loop(model, tools, settings, recording["task"], recording["start_tests"],
                      cancel=_cancel_at(recorded.get("cancelled_after_checks")),
                      focus=focus_of(recording.get("localization")))
    candidate = {"index": recorded["index"], "events": run["events"], "tools": tools}
    if served:
        found = event_differences(recorded["events"], run["events"])
        candidate.update({key: recorded[key] for key in ("tests", "changed_files", "diff") if key in recorded})
    else:
        found = outcome_differences(recorded, run["events"], None)
        if "tests" in recorded:  # a candidate lost to its server has no tests to run again
            tests = tools.run_tests()
            candidate.update({**_changes(task, tools), "tests": {k: tests[k] for k in TEST_FIELDS if k in tests}})
            found += _test_differences(recorded["tests"], candidate["tests"])
        if "verdict" in recorded:  # --all-candidates judged every passing candidate: so does the replay
            candidate["verdict"] = judge(tools, recording["start_tests"])["verdict"]
            if candidate["verdict"] != recorded["verdict"]:
                found.append(f"its verdict: {shorten(recorded['verdict'])} in the recording, "
                             f"{shorten(candidate['verdict'])} here")
    if model.unplayed > 0:
        found.append(f"{model.unplayed} recorded turn(s) were never requested")
    return candidate, found


def _cancel_at(checks):
    """A `cancel` that says no `checks` times, then yes (None: the run was never called off)."""
    if checks is None:
        return None
    asked = [0]

    def cancel():
        asked[0] += 1
        return asked[0] > checks
    return cancel


def _changes(task, tools):
    found = changes(task, tools.root)
    return {"changed_files": found["changed_files"], "diff": found["diff"]}


def _test_differences(want, got):
    return [f"its tests: {key} {shorten(want.get(key))} in the recording, {shorten(got.get(key))} here"
            for key in ("exit_code", "passed", "failed", "errors") if want.get(key) != got.get(key)]


def _judged(recording, top, task, served):
    """The verdict's fields: judged again on the shown candidate's copy, or (served) recomputed
    from the recorded final tests."""
    if served or top is None or not hasattr(top.get("tools"), "root"):
        body = {key: recording.get(key) for key in ("final_tests", "changed_files", "tests_unchanged")}
        body["verdict"] = verdict(body["final_tests"], recording["tests_unchanged"], recording["start_tests"])
        return body
    judged = judge(top["tools"], recording["start_tests"])
    return {key: judged[key] for key in ("final_tests", "changed_files", "tests_unchanged", "verdict")}

