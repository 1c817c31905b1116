"""Replaying a search: every candidate played again, and the choice made again from the replay.

`replay_search(recording, task, settings, model_for, served=..., folder=...)` plays each
recorded candidate through the loop with its own saved chunks (`model_for(part)` is replay.py's
ReplayModel over that candidate's turns), calls off a cancelled one at the very check the live
run was called off at, runs its tests on its copy (or serves the recorded ones under `served`),
re-derives which candidate the tests choose, and judges that one again. Every way the replay
departs from the recording is named, candidate by candidate, and so is every field a reader
takes on trust (`fields_differences`): the candidates against `search.candidates` and
`search.ran` (the coverage curve counts them), the top-level run against the candidate it shows,
and each candidate's `chosen` flag (the report's tick) against the choice made here.

What this file deliberately is not: a runner of new candidates (side_by_side.py is), or the
replay of a single run (replay.py's `replay` does that, and calls this for a search).
"""
from repo_tools import RepoTools
from runs.recording import focus_of, record_loop
from runs.replay_check import event_differences, outcome_differences, shorten
from runs.served_tools import ServedTools
from attempt.choosing import choose, own_tests, shown_index
from attempt.servers import lost_to_server
from workspace.task_catalog import fresh_copy
from workspace.verdict import judge, verdict


def replay_search(recording, task, settings, model_for, *, served, folder):
    """Return {"events", "final_tests", "verdict", "changed_files", "tests_unchanged",
    "differences", "candidates"} (the shown candidate's events; the replayed candidates)."""
    differences, replayed = [], []
    for recorded in recording["candidates"]:
        candidate, found = _replay_candidate(recording, recorded, task, settings, model_for, served, folder)
        replayed.append(candidate)
        differences += [f"candidate {recorded['index']}: {d}" for d in found]
    tried = [c for c in replayed if "tests" in c]
    chosen, _ = choose(tried, task, recording["start_tests"])
    if chosen != recording["search"].get("chosen"):
        differences.append(f"choice: candidate {shorten(recording['search'].get('chosen'))} in the recording, "
                           f"{shorten(chosen)} here")
    shown = shown_index(replayed, chosen, recording["start_tests"])
    differences += fields_differences(recording, settings, chosen, shown)
    top = next((c for c in replayed if c["index"] == shown), replayed[0] if replayed else None)
    body = _judged(recording, top, task, served)
    return {**body, "events": top["events"] if top else [], "differences": differences, "candidates": replayed}


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
            candidate.update(own_tests(tools, tools.run_tests()))
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

