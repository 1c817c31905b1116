"""An attempt played again from its recording: a single run is a search of one.

`replay_attempt(recording, task, settings, model_for, served=..., folder=...)` takes a
recording replay.py opened (its task found, its files checked to be the recorded ones), runs the
start tests again on a fresh copy, once, as the live attempt did (served: takes the recorded
ones), and plays each recorded run through the loop with its own saved chunks
(`model_for(part)` is replay.py's ReplayModel over that run's turns): the one run of a
single-run recording, or every candidate of a search, each on its own copy. A cancelled
candidate is called off at the very check the live run was called off at; a candidate's tests
run again on its copy (or are served as recorded under `served`). For a search, the choice is
made again from the replay, and every field a reader takes on trust is checked
(`fields_differences`): the candidates against `search.candidates` and `search.ran` (the
coverage curve counts them), the top-level run against the candidate it shows, and each
candidate's `chosen` flag (the report's tick) against the choice made here. Then the run at the
top is judged again on its copy (or, served, its verdict recomputed from the recorded final
tests), and every way the replay departs from the recording is named, candidate by candidate.

What this file deliberately is not: a model (replay.py's ReplayModel is), the loader of a
recording (replay.py's open_recording), or a runner of new candidates (side_by_side.py is).
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from localizing.ranking import focus_of
from repo_tools import RepoTools
from runs.recording import record_loop
from runs.replay_check import count_differences, event_differences, outcome_differences, shorten, verdict_differences
from runs.served_tools import ServedTools
from attempt.choosing import choose, own_tests, shown_index
from attempt.servers import lost_to_server
from workspace.passing import start_run
from workspace.task_catalog import fresh_copy
from workspace.verdict import judge, verdict


@dataclass(frozen=True)
class Replaying:
    """One recording opened for a replay, and how to play it again."""
    recording: dict
    task: object                # the task it was made on, its files checked to be the recorded ones
    settings: object            # agent_loop.LoopSettings rebuilt from the recording
    start_tests: dict           # what every run starts from: run again (served: as recorded)
    model_for: Callable         # {"turns", "tools"} -> the chat that plays those turns
    served: bool                # recorded tool results, no pytest
    folder: Path                # where the copies go (the caller removes it)


def replay_attempt(recording, task, settings, model_for, *, served=False, folder):
    """Replay what replay.py's open_recording opened (the recording, its task, its LoopSettings);
    return {"events", "final_tests", "verdict", "changed_files", "tests_unchanged", "differences"}:
    the events of the run at the top, its verdict, and every difference."""
    start_tests = recording["start_tests"] if served else start_run(
        RepoTools(fresh_copy(task, Path(folder) / "start"), task=task))  # as the live attempt ran them, once
    replaying = Replaying(recording, task, settings, start_tests, model_for, served, Path(folder))
    search = "candidates" in recording
    runs = recording["candidates"] if search else [
        {"index": 1, "turns": recording["turns"], "events": recording["events"]}]
    differences, replayed = [], []
    for recorded in runs:
        run, found = _replay_run(replaying, recorded)
        replayed.append(run)
        differences += [f"candidate {recorded['index']}: {d}" for d in found] if search else found
    shown = 1
    if search:
        shown, found = _choice_again(replaying, replayed)
        differences += found
    top = next((c for c in replayed if c["index"] == shown), replayed[0] if replayed else None)
    body = _judged(replaying, top)
    differences += verdict_differences(recording, body["final_tests"], body["verdict"])
    return {**body, "events": top["events"] if top else [], "differences": differences}


def _choice_again(replaying, replayed):
    """(the index of the candidate the choice shows, how the choice departs from the recording)."""
    recording, found = replaying.recording, []
    tried = [c for c in replayed if "tests" in c]
    chosen, _ = choose(tried, replaying.task, replaying.start_tests)
    if chosen != recording["search"].get("chosen"):
        found.append(f"choice: candidate {shorten(recording['search'].get('chosen'))} in the recording, "
                     f"{shorten(chosen)} here")
    shown = shown_index(replayed, chosen, replaying.start_tests)
    return shown, found + fields_differences(recording, replaying.settings, chosen, shown)


def fields_differences(recording, settings, chosen, shown):
    """What the recording says about its search that the replay's choice (`chosen`, `shown`)
    does not bear out. Candidates start in index order and a started one is always kept, so the
    recorded ones are 1..m; fewer than asked for only when a pass stopped the search early (never
    under --all-candidates, whose count the coverage curve reads), no candidate was chosen (a
    search lost to its servers), or a server failed."""
    search, records = recording["search"], recording["candidates"]  # the list; search["candidates"] counts those asked for
    found = []
    indices, asked = [c["index"] for c in records], search.get("candidates")
    if asked != settings.candidates:
        found.append(f"search.candidates: {shorten(asked)} in the recording, its settings ask for {settings.candidates}")
    explained = not search.get("all_candidates") or chosen is None or bool(search.get("servers_failed")) or any(
        lost_to_server(c.get("stop") or {}) for c in records)
    if indices != list(range(1, len(indices) + 1)) or len(indices) > settings.candidates or (
            len(indices) < settings.candidates and not explained):
        found.append(f"candidates: {shorten(indices)} in the recording, of {settings.candidates} asked for "
                     "(candidates were removed, added or renumbered)")
    ran = sum("tests" in c for c in records)
    if search.get("ran") != ran:
        found.append(f"search.ran: {shorten(search.get('ran'))} in the recording, {ran} candidates with tests in it")
    if search.get("shown") != shown:
        found.append(f"search.shown: candidate {shorten(search.get('shown'))} in the recording, {shorten(shown)} here")
    top = next((c for c in records if c["index"] == shown), None)
    for key in ("turns", "events", "stop"):  # the stop too: the summary counts stop reasons by it
        if top is not None and recording.get(key) != top.get(key):
            found.append(f"the top-level run's {key} are not candidate {shown}'s, the run the choice shows")
    found += [f"candidate {c['index']}: chosen is {shorten(c.get('chosen'))} in the recording, "
              f"{c['index'] == chosen} here" for c in records if c.get("chosen") != (c["index"] == chosen)]
    return found


def _replay_run(replaying, recorded):
    """(one recorded run as replayed, its differences from the recording): a single run, or a
    search's candidate with its own tests (and verdict, under --all-candidates)."""
    recording, task, served = replaying.recording, replaying.task, replaying.served
    model = replaying.model_for({"turns": recorded["turns"], "tools": recording["tools"]})
    tools = (ServedTools({"events": recorded["events"]}, task) if served
             else RepoTools(fresh_copy(task, Path(replaying.folder) / f"candidate-{recorded['index']}"), task=task))
    run = record_loop(model, tools, replaying.settings, recording["task"], replaying.start_tests,
                      cancel=_cancel_at(recorded.get("cancelled_after_checks")),
                      focus=focus_of(recording.get("localization")))
    candidate = {"index": recorded["index"], "events": run["events"], "tools": tools}
    if served:
        found = event_differences(recorded["events"], run["events"])
        candidate.update({key: recorded[key] for key in ("tests", "changed_files", "diff") if key in recorded})
    else:
        found = outcome_differences(recorded, run["events"])
        if "tests" in recorded:  # a candidate lost to its server has no tests to run again
            candidate.update(own_tests(tools, tools.run_tests()))
            found += count_differences("its tests", recorded["tests"], candidate["tests"])
        if "verdict" in recorded:  # --all-candidates judged every passing candidate: so does the replay
            candidate["verdict"] = judge(tools, replaying.start_tests)["verdict"]
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


def _judged(replaying, top):
    """The verdict's fields: judged again on the copy of the run at the top, or (served)
    recomputed from the recorded final tests."""
    recording = replaying.recording
    if replaying.served or top is None or not hasattr(top.get("tools"), "root"):
        body = {key: recording.get(key) for key in ("final_tests", "changed_files", "tests_unchanged")}
        body["verdict"] = verdict(body["final_tests"], recording["tests_unchanged"], recording["start_tests"])
        return body
    judged = judge(top["tools"], replaying.start_tests)
    return {key: judged[key] for key in ("final_tests", "changed_files", "tests_unchanged", "verdict")}

