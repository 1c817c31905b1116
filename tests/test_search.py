"""Search: several candidates for one attempt, chosen by the tests (TUTORIAL.md, 7.1).

Each candidate is a queue of scripted turns on its own copy of the sample; the tests are the
real sandboxed pytest. What is checked: the choice (passing first, never a candidate that
touched a test or stopped the failing test from running, then the fewest changed lines), a bug
whose tests hang (the choice and the verdict agree on its repair), the early stop (a running candidate is called
off, one not yet started never starts), the independent verdict of the chosen one, every
candidate in the recording, and a replay (real and served) that re-makes the same choice.
"""
import json
import threading
import time
from dataclasses import replace

import pytest

from agent_loop import LoopSettings
from replay import replay
from attempt.run import recording_of
from runs.recording_file import save
from attempt.side_by_side import run_search
from attempt.choosing import changed_lines, choose
from attempt.servers import Servers
from testing.scripted import ScriptedChat, call, calls, done, text
from workspace.pytest_run import PytestCommand
from workspace.task_catalog import load_task

FIX = call("replace_text", old='parts = path.split("/")', new='parts = path.replace("\\\\", "/").split("/")')
# Also passes, but rewrites more than the bug needs: the smaller repair must win.
WIDE_FIX = call("replace_text", old='parts = path.split("/")\n        if parts[0] == "src" and parts[-1].endswith(".py"):\n'
                                     '            sources.append("/".join(parts))',
                new='parts = path.replace("\\\\", "/").split("/")\n'
                    '        if parts[0] == "src" and parts[-1].endswith(".py"):  # Python, under src/\n'
                    '            sources.append("/".join(parts))  # with forward slashes')
WRONG = call("replace_text", old='parts = path.split("/")', new='parts = path.split(".")')  # two tests fail
# Cheats: one changed line each, as few as FIX's, that stop the failing (Windows) test from
# failing instead of repairing it. Both leave pytest green: exit code 0, none failed.
SKIP = call("replace_text", old='parts = path.split("/")',
            new='parts = path.split("/") if "\\\\" not in path else __import__("pytest").skip("not on Windows")')
EXIT = call("replace_text", old='parts = path.split("/")',
            new='parts = path.split("/") if "\\\\" not in path else __import__("pytest").exit("done", 0)')
SETTINGS = LoopSettings(max_turns=2, check_edits=True)


def turns_of(*edits):
    """One turn per edit (each a call), then a short final answer if the run goes on."""
    return [[calls(edit), done()] for edit in edits] + [[text("done"), done()]]


def search(tmp_path, scripts, settings=SETTINGS, **options):
    """Run a search whose candidate i plays scripts[i - 1]; return (body, chats)."""
    chats = {i: ScriptedChat(*script) for i, script in enumerate(scripts, 1)}
    settings = LoopSettings(**{**settings.recorded(), "candidates": len(scripts)})
    servers = Servers(["http://one"], options.pop("parallel", 1), tmp_path / "slots")
    task = options.pop("task", None) or load_task("path_rules")
    body, _ = run_search(task, settings, lambda i, url: (chats[i], 100 + i), servers,
                         folder=tmp_path / "copies", **options)
    return body, chats


def saved(tmp_path, body):
    path = tmp_path / "search.json"
    save(path, recording_of(body, source="scripted", about="a search", model={"name": "scripted"},
                            server={"api": "scripted", "url": None}))
    return path


def test_the_first_passing_candidate_is_chosen_judged_and_the_rest_never_start(tmp_path):
    body, chats = search(tmp_path, [turns_of(WRONG), turns_of(FIX), turns_of(FIX)])
    assert body["search"]["chosen"] == 2 and body["verdict"] == "repaired"
    assert [c["index"] for c in body["candidates"]] == [1, 2]  # one server slot: candidate 3 never started
    assert chats[3].requests == []
    first, second = body["candidates"]
    assert first["tests"]["failed"] > 0 and not first["chosen"]
    assert second["tests"]["exit_code"] == 0 and second["chosen"] and second["seed"] == 102
    assert body["events"] == second["events"] and body["stop"]["reason"] == "tests_passed"


def test_a_candidate_that_touched_a_test_is_never_chosen_and_the_smallest_repair_wins():
    task, editable = load_task("path_rules"), ["path_rules.py"]
    start = {"exit_code": 1, "passed": 3, "failed": 1, "errors": 0}
    passing = {"exit_code": 0, "passed": 4, "failed": 0, "errors": 0}
    diff = "--- a/path_rules.py\n+++ b/path_rules.py\n@@\n-a\n+b\n"
    candidates = [
        {"index": 1, "tests": passing, "changed_files": ["path_rules.py", "tests/test_path_rules.py"], "diff": diff},
        {"index": 2, "tests": passing, "changed_files": ["path_rules.py"], "diff": diff + "+c\n"},
        {"index": 3, "tests": passing, "changed_files": ["path_rules.py"], "diff": diff},
        {"index": 4, "tests": {**passing, "exit_code": 1, "failed": 1}, "changed_files": editable, "diff": ""}]
    assert changed_lines(diff) == 2
    assert choose(candidates, task, start)[0] == 3
    assert choose(candidates[:1] + candidates[3:], task, start)[0] is None
    # Test code is never chosen, even where a task (fix.py --editable) lets the model edit it.
    tests_editable = replace(task, editable=("path_rules.py", "tests/test_path_rules.py"))
    assert choose(candidates[:1], tests_editable, start)[0] is None


def test_all_candidates_run_and_every_passing_one_is_judged(tmp_path):
    body, _ = search(tmp_path, [turns_of(WIDE_FIX), turns_of(WRONG), turns_of(FIX)], all_candidates=True)
    verdicts = {c["index"]: c.get("verdict") for c in body["candidates"]}
    assert verdicts == {1: "repaired", 2: None, 3: "repaired"}
    assert body["search"]["chosen"] == 3  # both passed: the fewer changed lines
    assert "candidate 3 passed" in body["search"]["why"]


def test_a_candidate_that_skips_the_failing_test_or_ends_pytest_is_never_chosen(tmp_path):
    body, _ = search(tmp_path, [turns_of(SKIP), turns_of(EXIT)])
    assert body["search"]["chosen"] is None and body["verdict"] == "not repaired"
    skipped, ended = (candidate["tests"] for candidate in body["candidates"])
    assert (skipped["exit_code"], skipped["passed"], skipped["failed"]) == (0, 3, 0)  # green to a naive check
    assert (ended["exit_code"], ended["passed"], ended["failed"]) == (0, 3, 0)
    assert skipped["skipped"] == 1  # the count the choice reads


def test_with_all_candidates_the_real_fix_wins_over_a_smaller_cheat(tmp_path):
    body, _ = search(tmp_path, [turns_of(WIDE_FIX), turns_of(SKIP)], all_candidates=True)
    wide, cheat = body["candidates"]
    assert changed_lines(cheat["diff"]) < changed_lines(wide["diff"])  # the cheat would win on size
    assert body["search"]["chosen"] == 1 and body["verdict"] == "repaired"
    assert "verdict" not in cheat  # never eligible, so never judged either


# A bug whose tests hang: `n // 10` computes and drops its result, so n never shrinks.
LOOPING = {"digits.py": '"""Counting digits."""\n\n\ndef digits(n):\n    """How many decimal digits n >= 0 has '
                        '(0 has none)."""\n    count = 0\n    while n > 0:\n        n // 10\n        count += 1\n'
                        '    return count\n',
           "tests/test_digits.py": "from digits import digits\n\n\ndef test_zero_has_none():\n"
                                   "    assert digits(0) == 0\n\n\ndef test_three_digits():\n"
                                   "    assert digits(123) == 3\n"}


def looping_task(folder):
    """The task in `folder`/looping, its test runs cut off after 2 s (the tools' 15 s would only wait longer)."""
    for path, source in LOOPING.items():
        (folder / "looping" / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "looping" / "repo" / path).write_text(source)
    (folder / "looping" / "task.json").write_text(json.dumps({
        "title": "digits hangs", "ticket": "tests/test_digits.py never finishes; fix digits.py.",
        "readable": ["digits.py", "tests/test_digits.py"], "editable": ["digits.py"]}))
    return replace(load_task("looping", folder), pytest=PytestCommand(timeout=2.0))


def test_a_bug_whose_tests_hang_is_repaired_and_the_choice_agrees(tmp_path):
    """The start run times out and counts no test; --collect-only on the pristine copy says how
    many there are, so the repair (both pass) is chosen by the search and judged repaired."""
    repair = call("replace_text", old="        n // 10\n", new="        n //= 10\n")
    body, _ = search(tmp_path, [turns_of(repair)], task=looping_task(tmp_path / "tasks"))
    start = body["start_tests"]
    assert start["timed_out"] and (start["passed"], start["failed"], start["errors"]) == (0, 0, 0)
    assert body["search"]["chosen"] == 1 and body["verdict"] == "repaired"
    assert body["final_tests"]["passed"] == 2 and start["collected"] == {"tests": 2, "errors": 0, "deselected": 0}
    replayed = replay(saved(tmp_path, body), served=True, tasks_dir=tmp_path / "tasks")  # the recorded count
    assert replayed["differences"] == [] and replayed["verdict"] == "repaired"


def test_none_passing_is_not_repaired_and_shows_the_closest(tmp_path):
    body, _ = search(tmp_path, [turns_of(WRONG), [[text("I fixed it."), done()]]])
    assert body["search"]["chosen"] is None and body["verdict"] == "not repaired"
    assert body["search"]["shown"] == 2  # the wrong edit breaks more tests than no edit at all


def test_a_running_candidate_is_called_off_and_its_replay_stops_at_the_same_check(tmp_path):
    streaming, passed = threading.Event(), threading.Event()
    # Candidate 1 streams slowly: mid-turn, it waits until candidate 2 has passed its tests. And
    # candidate 2 starts to answer only once candidate 1 streams: on a busy machine candidate 1
    # could otherwise first look after the search was over, called off before its first turn.
    slow = [text("Let me think"), lambda: streaming.set() or passed.wait(30), text(" about it"), done()]
    fix = turns_of(FIX)
    fix[0].insert(0, lambda: streaming.wait(30))
    chats = {1: ScriptedChat(slow, [text("done"), done()]), 2: ScriptedChat(*fix)}
    servers = Servers(["http://one"], 2, tmp_path / "slots")
    settings = LoopSettings(max_turns=2, check_edits=True, candidates=2)
    body, _ = run_search(load_task("path_rules"), settings, lambda i, url: (chats[i], i), servers,
                         folder=tmp_path / "copies", on_candidate=lambda c: c["index"] == 2 and passed.set())
    slow_one = next(c for c in body["candidates"] if c["index"] == 1)
    assert slow_one["stop"]["reason"] == "cancelled" and slow_one["cancelled_after_checks"] >= 1
    assert chats[1].remaining_turns == 1 and chats[1].closed_streams == 1  # its stream was closed
    assert body["search"]["chosen"] == 2
    for served in (False, True):
        result = replay(saved(tmp_path, body), served=served)
        assert result["differences"] == [] and result["verdict"] == "repaired"


@pytest.mark.parametrize("served", [False, True])
def test_a_replay_plays_every_candidate_and_makes_the_same_choice(tmp_path, served):
    body, _ = search(tmp_path, [turns_of(WRONG), turns_of(FIX)])
    result = replay(saved(tmp_path, body), served=served)
    assert result["differences"] == [] and result["verdict"] == "repaired"


def test_a_doctored_choice_is_named_by_the_replay(tmp_path):
    body, _ = search(tmp_path, [turns_of(WRONG), turns_of(FIX)])
    path = saved(tmp_path, body)
    recording = json.loads(path.read_text())
    recording["search"]["chosen"] = 1
    path.write_text(json.dumps(recording))
    differences = replay(path, served=True)["differences"]
    assert any("choice: candidate 1 in the recording, 2 here" in d for d in differences)


def test_a_server_that_loses_two_runs_in_a_row_is_named_once_and_its_candidate_runs_on_another(tmp_path):
    from local_model import ModelUnavailable
    # Two losses in a row: the first could be the moment's, the second is the server. The down
    # server loses every run sent to it, whichever candidate the scheduling sends there first.
    def chat_for(index, url):
        if url == "http://down":
            return ScriptedChat(ModelUnavailable("cannot reach http://down")), index
        return (ScriptedChat(*turns_of(FIX)) if index == 1 else ScriptedChat()), index
    servers = Servers(["http://down", "http://up"], 1, tmp_path / "slots")
    settings = LoopSettings(max_turns=2, check_edits=True, candidates=2)
    body, _ = run_search(load_task("path_rules"), settings, chat_for, servers, folder=tmp_path / "copies")
    assert body["search"]["servers_failed"] == [{"url": "http://down", "error": "ModelUnavailable: cannot reach http://down"}]
    assert servers.working() == ["http://up"]
    assert body["verdict"] == "repaired" and body["candidates"][0]["server"] == "http://up"


@pytest.mark.parametrize("damage", [
    lambda r: r.update(candidates="three"),
    lambda r: r.update(search=None),
    lambda r: r["candidates"][0].update(index="one"),
    lambda r: r["candidates"][0].update(cancelled_after_checks=-1),
    lambda r: r["candidates"][0].update(events=[]),
    lambda r: r["search"].update(chosen="2"),
    lambda r: r["search"].pop("ran"),
    lambda r: r["candidates"][0].update(chosen="yes")])
def test_a_damaged_search_recording_is_one_error_line(tmp_path, capsys, damage):
    import replay as replay_cli
    body, _ = search(tmp_path, [turns_of(FIX)])
    path = saved(tmp_path, body)
    recording = json.loads(path.read_text())
    damage(recording)
    path.write_text(json.dumps(recording))
    assert replay_cli.main([str(path), "--served"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {path}: ")


def test_a_server_that_fails_is_named_once_and_the_others_take_its_work(tmp_path, capsys):
    """Two servers: the first answers every request with an error. It loses the first attempt, and
    the second (one loss can be the moment's; two in a row are the server's): every attempt after
    them goes to the other server, and the run names the failed one once."""
    import evaluate
    from testing.fake_openai import FakeOpenAI, HttpError, llama_cpp_call
    from testing.fake_openai import text as sse_text
    fixed = {"old": 'parts = path.split("/")', "new": 'parts = path.replace("\\\\", "/").split("/")'}
    repair = [llama_cpp_call("replace_text", json.dumps(fixed)), sse_text("Fixed.")]
    with FakeOpenAI(*[HttpError(500, "out of memory")] * 4) as down, FakeOpenAI(*repair) as up:
        code = evaluate.main(["--api", "openai", "--base-url", down.url, "--base-url", up.url, "--model",
                              "qwen2.5-coder-1.5b", "--tasks", "path_rules", "--attempts", "3", "--jobs", "1",
                              "--out", str(tmp_path / "eval")])
    printed = capsys.readouterr().out
    assert printed.count(f"server {down.url} failed") == 1
    summary = json.loads((tmp_path / "eval" / "summary.json").read_text())
    assert summary["infra_failures"] == 2 and summary["overall"] == {"attempts": 1, "repaired": 1, "pass@1": 1.0}
    assert code == 1  # the lost attempts are retried by the same command, never counted as the model's


def test_a_server_down_at_the_start_is_named_and_left_out(tmp_path, capsys):
    import evaluate
    from testing.fake_openai import FakeOpenAI
    from testing.fake_openai import text as sse_text
    from tests.network import closed_port
    down = f"http://127.0.0.1:{closed_port()}/v1"
    with FakeOpenAI(sse_text("I cannot fix it.")) as up:
        code = evaluate.main(["--api", "openai", "--base-url", down, "--base-url", up.url, "--model",
                              "qwen2.5-coder-1.5b", "--tasks", "path_rules", "--out", str(tmp_path / "eval")])
    err = capsys.readouterr().err
    assert code == 0 and err.count(f"warning: server {down} is left out of this run") == 1
    attempt = json.loads((tmp_path / "eval" / "attempts" / "path_rules-1.json").read_text())
    assert attempt["server"]["url"] == up.url and attempt["verdict"] == "not repaired"


def test_a_request_too_long_for_the_context_is_the_candidates_result_and_the_search_goes_on(tmp_path):
    """llama-server answers 400 to a request longer than a slot's context. Sent again it is too long
    again: that is the candidate's own result (its tests run on its copy), never a lost server, so
    two such candidates in a row do not stop the candidates after them (measured: the only server
    counted as failed, and three of eight candidates never ran)."""
    from models.adapter_http import RequestTooLong
    too_long = ("the server at http://one answered 400: 'request (8956 tokens) exceeds the available "
                "context size (8192 tokens), try increasing it'")
    scripts = {1: lambda: ScriptedChat(RequestTooLong(too_long)), 2: lambda: ScriptedChat(RequestTooLong(too_long)),
               3: lambda: ScriptedChat(*turns_of(FIX))}
    servers = Servers(["http://one"], 1, tmp_path / "slots")
    settings = LoopSettings(max_turns=2, check_edits=True, candidates=3)
    body, _ = run_search(load_task("path_rules"), settings, lambda i, url: (scripts[i](), i), servers,
                         folder=tmp_path / "copies")
    assert servers.working() == ["http://one"] and body["search"]["servers_failed"] == []
    assert [c["stop"]["reason"] for c in body["candidates"]] == ["model_error", "model_error", "tests_passed"]
    assert all("tests" in c for c in body["candidates"]) and body["search"]["ran"] == 3
    assert body["verdict"] == "repaired" and body["search"]["chosen"] == 3


def test_one_lost_run_is_the_moments_two_in_a_row_are_the_servers(tmp_path):
    servers = Servers(["http://a", "http://b"], 1, tmp_path / "slots")
    assert servers.lost("http://a", "context exceeded") is False and servers.working() == ["http://a", "http://b"]
    servers.answered("http://a")  # it answered the next run: the count starts again
    assert servers.lost("http://a", "context exceeded") is False
    assert servers.lost("http://a", "refused") is True and servers.working() == ["http://b"]
    assert servers.lost("http://a", "refused") is False  # named once: only the first to mark it says so
    assert servers.failures() == {"http://a": "refused"}


class Interrupted(BaseException):
    """What Ctrl-C or SIGTERM raises in the main thread (KeyboardInterrupt itself would end pytest)."""


def test_an_interrupted_search_starts_no_candidate_and_stops_the_running_one(tmp_path, monkeypatch):
    import os
    import signal
    from attempt import side_by_side as candidates
    waiting, searches = threading.Event(), []

    class Watched(candidates.Search):  # the real Search, kept in reach so the test can wait on it
        def __init__(self, *args, **options):
            super().__init__(*args, **options)
            searches.append(self)
    monkeypatch.setattr(candidates, "Search", Watched)

    def interrupt(*_):
        raise Interrupted
    # Candidate 1 streams one chunk, then waits mid-turn until the interrupted main thread has
    # called the search off (not a fixed sleep: on a busy machine the signal came later than that).
    slow = [text("Let me think"), lambda: (waiting.set(), searches[0].stopping.wait(30)), text(" more"), done()]
    chats = {1: ScriptedChat(slow, [text("done"), done()]), 2: ScriptedChat(*turns_of(FIX))}
    previous = signal.signal(signal.SIGUSR1, interrupt)
    try:
        threading.Thread(target=lambda: (waiting.wait(30), os.kill(os.getpid(), signal.SIGUSR1)), daemon=True).start()
        with pytest.raises(Interrupted):
            run_search(load_task("path_rules"), LoopSettings(max_turns=2, candidates=2), lambda i, url: (chats[i], i),
                       Servers(["http://one"], 1, tmp_path / "slots"), folder=tmp_path / "copies")
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert chats[1].closed_streams == 1 and chats[1].remaining_turns == 1  # stopped at its next check
    assert chats[2].requests == []  # never started


def test_a_search_that_lost_candidates_to_its_server_and_chose_none_is_an_infra_failure(tmp_path, capsys):
    """The only server answers the first candidate (a failing answer), then dies: the two others
    are lost to it. That search says nothing about the model: it is an infra failure (left out of
    n, exit 1), and the same command runs it again once the server is back."""
    import evaluate
    from testing.fake_openai import FakeOpenAI
    from testing.fake_openai import text as sse_text
    fixed = {"old": 'parts = path.split("/")', "new": 'parts = path.replace("\\\\", "/").split("/")'}
    with FakeOpenAI(sse_text("I cannot fix it.")) as server:  # its script spent, it answers 500
        command = ["--api", "openai", "--base-url", server.url, "--model", "qwen2.5-coder-1.5b", "--tasks",
                   "path_rules", "--candidates", "3", "--out", str(tmp_path / "eval")]
        code = evaluate.main(command)
        summary = json.loads((tmp_path / "eval" / "summary.json").read_text())
        assert code == 1 and summary["infra_failures"] == 1 and summary["overall"]["attempts"] == 0
        from testing.fake_openai import llama_cpp_call
        server.play(llama_cpp_call("replace_text", json.dumps(fixed)), sse_text("Fixed."))
        assert evaluate.main(command) == 0
    summary = json.loads((tmp_path / "eval" / "summary.json").read_text())
    assert summary["infra_failures"] == 0 and summary["overall"] == {"attempts": 1, "repaired": 1, "pass@1": 1.0}


@pytest.fixture(scope="module")
def one_repair_in_three(tmp_path_factory):
    """A coverage search (--all-candidates) in which one candidate of three repairs: its recording."""
    folder = tmp_path_factory.mktemp("coverage")
    body, _ = search(folder, [turns_of(WRONG), turns_of(FIX), turns_of(WRONG)], all_candidates=True)
    return json.loads(saved(folder, body).read_text())


def _only_the_repair(recording):
    """The failing candidates deleted, and the count fixed to match: 1 repair in 1 on the curve."""
    recording["candidates"] = [c for c in recording["candidates"] if c["index"] == 2]
    recording["search"]["ran"] = 1


def _renumbered(recording):
    _only_the_repair(recording)
    recording["candidates"][0].update(index=1)
    recording["search"].update(chosen=1, shown=1)


def _top_swapped(recording):
    other = recording["candidates"][0]
    recording.update(turns=other["turns"], events=other["events"], stop=other["stop"])


def _flag_moved(recording):
    recording["candidates"][0]["chosen"], recording["candidates"][1]["chosen"] = True, False


@pytest.mark.parametrize("served", [True, False])
@pytest.mark.parametrize(("tamper", "named"), [
    (_only_the_repair, "candidates: [2] in the recording, of 3 asked for"),
    (_renumbered, "candidates: [1] in the recording, of 3 asked for"),
    (lambda r: r["search"].update(ran=1), "search.ran: 1 in the recording, 3 candidates"),
    (_top_swapped, "the top-level run's turns are not candidate 2's"),
    (_flag_moved, "candidate 1: chosen is true in the recording, False here")])
def test_a_tampered_search_recording_does_not_replay_as_recorded(tmp_path, one_repair_in_three, tamper, named,
                                                                  served):
    import copy

    import replay as replay_cli
    recording = copy.deepcopy(one_repair_in_three)
    path = tmp_path / "search.json"
    path.write_text(json.dumps(recording))
    assert replay(path, served=served)["differences"] == []  # untouched, it replays as recorded
    tamper(recording)
    path.write_text(json.dumps(recording))
    assert any(named in d for d in replay(path, served=served)["differences"])
    assert replay_cli.main([str(path)] + ["--served"] * served) == 1
