"""A focused first message (`preload_scope="focus"`, loop/context_focus.py): on a long file the
ranking points into, the model is shown that code alone, its best few definitions whole, and a
system prompt written for answers by definitions; on small files, exactly what it was shown before.

Scripted turns, the real tools and real pytest on copies; the long library is test_answer_form's
generated ledger (Account7.rate2 divides by zero).
"""
import json

import pytest

from agent_loop import LoopSettings, agent_events
from loop.context import preload
from loop.context_defs import Answering
from loop.context_focus import FOCUS_MOST, best_few
from settings.named import fields_of, load_settings
from testing.scripted import ScriptedChat, done, text
from tests.helpers import of_type
from tests.test_answer_form import ANSWER, BUG, ledger_task
from workspace.task_catalog import fresh_copy, load_task, task_names
from repo_tools import RepoTools

RATE2 = {"path": "ledger.py", "name": "Account7.rate2", "start": 210, "end": 211, "score": 0.9, "why": "frame"}


def ranked(*names_and_scores):
    return [{"path": "ledger.py", "name": name, "start": 1, "end": 1, "score": score, "why": "ochiai"}
            for name, score in names_and_scores]


def first_request(tools, focus, **fields):
    chat = ScriptedChat([text(ANSWER), done()])
    settings = load_settings("small-model-explain", **fields)
    events = list(agent_events(chat, tools, tools.task.prompt(), settings, start_tests=tools.run_tests(), focus=focus))
    system, first = chat.requests[0][0]
    return (system, first["content"]), events


def test_a_long_file_the_ranking_points_into_is_shown_alone_and_answered_by_its_method(tmp_path):
    tools = ledger_task(tmp_path, classes=22, ending="\n")
    focus = [RATE2, *ranked(("Account3.rate1", 0.5), ("total", 0.46), ("Account9.rate4", 0.45), ("Account1.rate0", 0.2))]
    (system, first), events = first_request(tools, focus)
    assert events[-1]["reason"] == "tests_passed"  # the answer, a method alone, repaired it
    assert system["content"] == load_settings("small-model-explain").system_definitions  # not "the entire file"
    assert "entire content of the file" not in system["content"]
    assert "class Account7:\n    def rate2(self, amount):\n        " + BUG in first
    (shown,) = of_type(events, "definitions_shown")  # the test file is not shown at all, not even outlined
    assert shown["path"] == "ledger.py" and shown["definitions"] == ["Account3.rate1", "Account7.rate2", "total"]
    assert "tests/test_ledger.py\n```" not in first and "def test_total" not in first
    assert "Files you can read:" not in first  # the ticket, then one line naming what is shown
    assert first.startswith("Account7's rate2 fails. Fix ledger.py.\n\nThe code the failing tests run is shown "
                            "below: ledger.py.\n\n")


def test_under_all_the_same_run_shows_every_readable_file_and_the_first_system_prompt(tmp_path):
    tools = ledger_task(tmp_path, classes=22, ending="\n")
    (system, first), events = first_request(tools, [RATE2], preload_scope="all", system_definitions=None)
    assert system["content"] == load_settings("small-model-explain").system
    assert "tests/test_ledger.py\n```python\nfrom ledger import Account7" in first
    assert "Files you can read: ledger.py, tests/test_ledger.py" in first


def test_without_a_ranking_focus_shows_what_all_shows(tmp_path):
    (system, first), _ = first_request(ledger_task(tmp_path / "a", classes=22, ending="\n"), None)
    (_, all_first), _ = first_request(ledger_task(tmp_path / "b", classes=22, ending="\n"), None, preload_scope="all")
    assert first == all_first and "tests/test_ledger.py" in first
    assert system["content"] == load_settings("small-model-explain").system_definitions  # still by definitions


def small_task_names():
    """The shipped tasks whose every file is answered whole: the 24 small tasks the presets were measured on."""
    settings = load_settings("small-model-explain")
    names = []
    for name in task_names():
        task = load_task(name)
        texts = [(task.repo / path).read_text() for path in task.readable if (task.repo / path).is_file()]
        if not any(Answering.of(settings).by_definitions(text) for text in texts):
            names.append(name)
    return names


def test_on_every_small_shipped_task_the_first_message_is_what_it_was(tmp_path):
    settings = load_settings("small-model-explain")
    names = small_task_names()
    assert len(names) >= 24
    for name in names:
        task = load_task(name)
        tools = RepoTools(fresh_copy(task, tmp_path / name), task=task)
        focus = [{"path": task.editable[0], "name": "anything", "start": 1, "end": 2, "score": 1.0, "why": "frame"}]
        messages = []
        for scope in ("focus", "all"):
            answering = Answering(settings.answer_form, settings.answer_budget, focus, None, scope=scope)
            messages.append(preload(task, None, tools.file_text, prompt=task.prompt(), answering=answering))
        assert messages[0] == messages[1], name


@pytest.mark.parametrize("scores, kept", [
    ([0.7, 0.424], [0.7, 0.424]),                 # boltons-2: both, the second above half the best
    ([0.6, 0.6, 0.321, 0.3, 0.273], [0.6, 0.6, 0.321]),  # parse: three at most
    ([1.0, 0.1], [1.0]),                          # toolz-2: a guess under half the best is left out
    ([None, 0.5], [None, 0.5]),                   # an unscored item came without a score: kept
])
def test_the_focus_keeps_the_best_few_ranked_definitions(scores, kept):
    focus = [{"path": "a.py", "name": f"f{i}", "score": score} for i, score in enumerate(scores)]
    assert [item["score"] for item in best_few(focus)] == kept and len(best_few(focus)) <= FOCUS_MOST


@pytest.mark.parametrize("bad, words", [
    ({"preload_scope": "files"}, "preload_scope must be 'all' or 'focus'"),
    ({"system_definitions": "  "}, "system_definitions must be None or a non-empty prompt"),
    ({"system_definitions": ["a"]}, "system_definitions must be None or a non-empty prompt")])
def test_the_focus_settings_are_checked(bad, words):
    with pytest.raises(ValueError, match=words):
        LoopSettings(**bad)


def test_a_settings_file_writes_the_definitions_prompt_as_lines_and_it_is_recorded():
    fields = fields_of({"system_definitions": ["one", "two"], "preload_scope": "focus"})
    settings = LoopSettings(**fields)
    assert settings.system_definitions == "one\ntwo"
    assert LoopSettings.from_recorded(settings.recorded()) == settings
    older = {k: v for k, v in settings.recorded().items() if k not in ("preload_scope", "system_definitions")}
    assert LoopSettings.from_recorded(older).preload_scope == "all"  # a recording made before: as it ran


def test_a_long_test_file_outlined_beside_a_short_module_asks_for_the_whole_module(tmp_path):
    """Seen with the real model on iso8601 (162 lines, answered whole, beside a 282-line test file
    shown as its outline): the message's last line asked for functions "with
    iso8601/test_iso8601.py on the line before", the test file, and the system prompt was the one
    for answers by definitions. The file to answer is the editable one."""
    folder = tmp_path / "tasks" / "calc"
    (folder / "repo" / "tests").mkdir(parents=True)
    (folder / "repo" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    cases = "".join(f"\n\ndef test_add_{n}():\n    assert add({n}, 1) == {n + 1}  # case {n} of many\n" for n in range(120))
    (folder / "repo" / "tests" / "test_calc.py").write_text("from calc import add" + cases)
    (folder / "task.json").write_text(json.dumps({"title": "Add", "ticket": "add subtracts.",
                                                  "readable": ["calc.py", "tests/test_calc.py"], "editable": ["calc.py"]}))
    task = load_task("calc", tmp_path / "tasks")
    tools = RepoTools(fresh_copy(task, tmp_path / "copy"), task=task)
    assert len((tools.root / "tests" / "test_calc.py").read_text()) > 6_000  # shown by definitions
    chat = ScriptedChat([text("calc.py\n```python\ndef add(a, b):\n    return a + b\n```"), done()])
    settings = load_settings("small-model-explain")
    focus = [{"path": "calc.py", "name": "add", "start": 1, "end": 2, "score": 0.9, "why": "frame"}]
    events = list(agent_events(chat, tools, task.prompt(), settings, start_tests=tools.run_tests(), focus=focus))
    (system, first) = chat.requests[0][0]
    assert [shown["path"] for shown in of_type(events, "definitions_shown")] == ["tests/test_calc.py"]
    assert first["content"].endswith(settings.answer_hint) and "tests/test_calc.py on the line before" not in first["content"]
    assert system["content"] == settings.system
    assert events[-1]["reason"] == "tests_passed"


def test_a_recording_made_before_the_fix_replays_with_the_hint_it_was_shown():
    older = {k: v for k, v in LoopSettings().recorded().items() if k != "editable_hint"}
    assert LoopSettings.from_recorded(older).editable_hint is False and LoopSettings().editable_hint is True
    with pytest.raises(ValueError, match="editable_hint must be true or false"):
        LoopSettings(editable_hint="yes")
