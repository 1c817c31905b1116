"""A long file shown and answered by definitions (answer_form, issue 34), end to end: scripted
turns, the real tools and real pytest on a copy of a generated library task.

The library is generated here, never committed: `library(classes)` writes classes of five
methods (about 27 lines and 400 bytes each); one method, Account7.rate2, divides by zero.
"""
import json

import pytest

from agent_loop import LoopSettings, agent_events
from loop.context import DEFINITIONS_HINT, FILES_BUDGET
from repo_tools import RepoTools
from settings.named import load_settings
from testing.scripted import ScriptedChat, done, text
from tests.helpers import of_type, results
from workspace.task_catalog import fresh_copy, load_task

BUG, FIX = "return amount * 9 / (7 - 7)", "return amount * 9 + 7"
TESTS = ("from ledger import Account7, total\n\n\ndef test_rate():\n    assert Account7(1).rate2(2) == 25\n\n\n"
         "def test_total():\n    assert total([Account7(2)]) == 2\n")
ANSWER = ("rate2 divides by zero; it should add the account's number.\n\nledger.py\n```python\nclass Account7:\n"
          f"    def rate2(self, amount):\n        {FIX}\n```")


def library(classes):
    lines = ['"""Accounts: a generated library module."""', "import math", "from decimal import Decimal", "", ""]
    for c in range(classes):
        lines += [f"class Account{c}:", f'    """Account kind {c}."""', "", "    def __init__(self, base):",
                  "        self.base = base", ""]
        for m in range(5):
            body = BUG if (c, m) == (7, 2) else f"return amount * {m + c} + {c}"
            lines += ["    @staticmethod" if m == 0 else "    # a rate", f"    def rate{m}(self, amount):",
                      f"        {body}", ""]
        lines.append("")
    return "\n".join(lines + ["def total(accounts):", "    return sum(a.base for a in accounts)", ""])


def ledger_task(tmp_path, classes, ending):
    """A task whose editable ledger.py is `library(classes)` written with `ending`; its tools."""
    folder = tmp_path / "tasks" / "ledger"
    (folder / "repo" / "tests").mkdir(parents=True)
    (folder / "repo" / "ledger.py").write_bytes(library(classes).replace("\n", ending).encode())
    (folder / "repo" / "tests" / "test_ledger.py").write_text(TESTS)
    (folder / "task.json").write_text(json.dumps({
        "title": "Rates", "ticket": "Account7's rate2 fails. Fix ledger.py.",
        "readable": ["ledger.py", "tests/test_ledger.py"], "editable": ["ledger.py"]}))
    task = load_task("ledger", tmp_path / "tasks")
    return RepoTools(fresh_copy(task, tmp_path / "copy"), task=task)


def run(tools, chat, focus=None, **fields):
    settings = load_settings("small-model-explain", **fields)
    events = list(agent_events(chat, tools, tools.task.prompt(), settings, start_tests=tools.run_tests(), focus=focus))
    assert [event["type"] for event in events].count("stopped") == 1 and events[-1]["type"] == "stopped"
    json.dumps(events)
    return events


def test_a_600_line_module_is_repaired_by_the_corrected_method_alone_and_stays_crlf(tmp_path):
    tools = ledger_task(tmp_path, classes=22, ending="\r\n")
    before = (tools.root / "ledger.py").read_bytes()
    assert before.count(b"\n") > 600 and len(before) > 6_000  # past answer_budget: by definitions
    chat = ScriptedChat([text(ANSWER), done()])
    events = run(tools, chat, focus=[{"path": "ledger.py", "name": "Account7.rate2", "start": 1, "end": 1,
                                      "score": 0.9, "why": "traceback frame"}])
    assert events[-1]["reason"] == "tests_passed"
    assert (tools.root / "ledger.py").read_bytes() == before.replace(BUG.encode(), FIX.encode())  # CRLF, byte for byte
    first = chat.requests[0][0][1]["content"]
    assert "class Account7:\n    def rate2(self, amount):\n        " + BUG in first  # whole, under its class
    assert "# ledger.py, lines 210-211 (in class Account7 at line 195)" in first  # its file and lines
    assert "\n6: class Account0:\n9:     def __init__(self, base):\n" in first  # the outline
    assert "return amount * 10 + 7" not in first  # Account7.rate3: not shown whole, nor the file
    assert len(first) < FILES_BUDGET + 2_000 and first.endswith(DEFINITIONS_HINT.format(path="ledger.py"))
    (shown,) = of_type(events, "definitions_shown")
    assert shown == {"type": "definitions_shown", "turn": 1, "path": "ledger.py", "lines": 601, "why": "focus",
                     "definitions": ["Account7.rate2"], "outlined": shown["outlined"]} and shown["outlined"] > 100


def test_without_a_focus_the_definition_the_traceback_names_is_shown(tmp_path):
    tools = ledger_task(tmp_path, classes=22, ending="\n")
    chat = ScriptedChat([text("Done."), done()], [text("Done."), done()])
    events = run(tools, chat)
    (shown,) = of_type(events, "definitions_shown")
    assert (shown["why"], shown["definitions"]) == ("failures", ["Account7.rate2"])
    assert BUG in chat.requests[0][0][1]["content"]


def test_a_long_file_the_focus_does_not_name_is_shown_as_its_outline_alone(tmp_path):
    """The ranking points into another file: this one is outlined, none of its definitions shown
    whole (a small model reads each one it is shown as a hint of where the bug is)."""
    tools = ledger_task(tmp_path, classes=22, ending="\n")
    chat = ScriptedChat([text("Done."), done()], [text("Done."), done()])
    events = run(tools, chat, focus=[{"path": "other.py", "name": "f", "start": 1, "end": 2, "score": 0.5,
                                      "why": "ochiai 0.5"}])
    (shown,) = of_type(events, "definitions_shown")
    assert (shown["why"], shown["definitions"]) == ("outline", []) and shown["outlined"] > 100
    first = chat.requests[0][0][1]["content"]
    assert "def rate2(self, amount):\n        " + BUG not in first  # in the failures only, never whole
    assert "\n210:     def rate2(self, amount):\n" in first


def test_auto_answers_a_small_file_whole_as_before(tools, workspace):
    chat = ScriptedChat([text("Done."), done()], [text("Done."), done()])
    events = list(agent_events(chat, tools, "Fix it.", load_settings("small-model-explain"),
                               start_tests=tools.run_tests()))
    assert of_type(events, "definitions_shown") == []
    first = chat.requests[0][0][1]["content"]
    assert (workspace / "path_rules.py").read_text().rstrip() in first  # the whole file
    assert first.endswith(load_settings("small-model-explain").answer_hint)


def test_a_150_kb_module_is_never_shown_whole_and_each_turn_reads_within_the_budget(tmp_path):
    tools = ledger_task(tmp_path, classes=380, ending="\n")
    assert len((tools.root / "ledger.py").read_bytes()) > 150_000
    still_wrong = ANSWER.replace(FIX, "return amount * 9 - 7")  # parses, but the test still fails
    chat = ScriptedChat([text(still_wrong), done()], [text(ANSWER), done()])
    events = run(tools, chat, max_turns=2)  # the preset's one turn would end before the correction
    assert events[-1]["reason"] == "tests_passed"
    assert [r.get("replaced") for r in results(events) if "replaced" in r] == [1, 1]
    messages = [m["content"] for m in chat.requests[1][0] if m["role"] == "user"]
    assert len(messages) == 2 and all(len(message) < FILES_BUDGET + 2_000 for message in messages)
    assert "The tests still fail:" in messages[1] and "def rate2(self, amount):\n        return amount * 9 - 7" in messages[1]
    assert [shown["turn"] for shown in of_type(events, "definitions_shown")] == [1, 1]  # the first message, the correction


@pytest.mark.parametrize("bad, words", [
    ({"answer_form": "methods"}, "answer_form must be one of auto, file, definitions"),
    ({"answer_budget": True}, "answer_budget must be an int"), ({"answer_budget": 10}, "answer_budget must be an int")])
def test_the_answer_settings_are_checked_and_recorded(bad, words):
    with pytest.raises(ValueError, match=words):
        LoopSettings(**bad)
    recorded = LoopSettings(answer_form="auto").recorded()
    assert (recorded["answer_form"], recorded["answer_budget"]) == ("auto", 6_000)
    older = {key: value for key, value in recorded.items() if key not in ("answer_form", "answer_budget")}
    assert LoopSettings.from_recorded(older).answer_form == "file"  # a recording before them: whole files
