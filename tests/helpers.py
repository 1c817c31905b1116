"""What most of the offline suite shares: the sample's repair, a loop runner that checks every
run's contract, and small event filters. Beside it: processes.py (probes of the process table),
network.py (ports and a silent server), terminal.py (a command line on a real terminal),
user_repos.py (small user repositories for fix.py), browser.py (chromium).

What this file deliberately is not: a fixture module (conftest.py holds the fixtures) or a
test file; no test file imports another test file, they all import from here and those beside it.
"""
import json

from agent_loop import agent_events
from repo_tools import schemas_for
from testing.scripted import call
from workspace.task_catalog import load_task, solution_edits

SAMPLE = load_task()  # the card's sample task, path_rules
SCHEMAS = schemas_for(SAMPLE)  # its tool schemas
# The one-line repair of the sample (normalise Windows separators before splitting), from
# tasks/path_rules/solution.json: one definition for every test and script.
(_FIX,) = solution_edits(SAMPLE)
FIX_OLD, FIX_NEW = _FIX["old"], _FIX["new"]


FIX = call("replace_text", old=FIX_OLD, new=FIX_NEW)

# evaluate.py's shared evaluation (the `evaluated` fixture, conftest.py): path_rules' attempts
# repair, then only claim to; pagination_last_page's repair with two edits, then with one of them.
# One worker: a second costs a Python start and its imports, and the tests of several workers
# (tests/test_evaluate_trust.py) ask for two themselves.
EVALUATE_FLAGS = ("--scripted", "--tasks", "path_rules,pagination_last_page", "--attempts", "2", "--jobs", "1")
# improve.py's shared climb (the `climbed` fixture, conftest.py): two training tasks, one held out.
IMPROVE_TRAIN, IMPROVE_HOLDOUT = ("path_rules", "discount_percent"), "refund_limit"
IMPROVE_FLAGS = ("--scripted", "--start", "weak", "--tasks", ",".join([*IMPROVE_TRAIN, IMPROVE_HOLDOUT]),
                 "--holdout", IMPROVE_HOLDOUT, "--jobs", "1")

TASK = "Make the failing test in tests/test_path_rules.py pass."
# The quickest real tool call, for tests that are about the loop rather than about pytest.
READ = call("read_file", path="path_rules.py")


def run(chat, tools, **options):
    """Run the loop to the end and check what every run must satisfy."""
    events = list(agent_events(chat, tools, TASK, **options))
    stops = [event for event in events if event["type"] == "stopped"]
    assert len(stops) == 1 and events[-1] is stops[0], "exactly one stopped event, last"
    json.dumps(events)  # plain, JSON-serialisable dicts
    return events


def of_type(events, kind):
    return [event for event in events if event["type"] == kind]


def results(events):
    return [event["result"] for event in of_type(events, "tool_result")]
