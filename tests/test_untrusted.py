"""Everything from the model is untrusted: chunks of any shape, tools that blow up, text that
cannot be encoded or that tries to take over the terminal. The run always ends with one
`stopped` event, keeps its outcome, and is always saved and reloadable. So is a settings file
someone shared: one that cannot be used is one line naming it, before any work."""
import io
import json

import pytest

from command_line.printer import Printer, clean
from runs.recording import run_recorded
from runs.recording_file import load, save
from testing.scripted import ScriptedChat, call, done, text, thinking
from tests.helpers import READ, of_type, results, run

ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[1A\r> run_tests() \u202e\x9b31m"


@pytest.mark.parametrize("odd", [
    None, 42, "chunk", ["list"], {"message": "text"}, {"message": None},
    {"message": {"content": 42}}, {"message": {"thinking": ["x"]}}, {"message": {"content": None}},
    {"message": {"tool_calls": "read_file"}}, {"message": {"tool_calls": {"function": {}}}},
    {"message": {"tool_calls": [None, 7, "x"]}}, {"done": "yes"}, {"done": True, "done_reason": 5},
])
def test_chunks_of_any_shape_never_crash_the_loop(tools, odd):
    chat = ScriptedChat([text("Reading."), odd, done(tool_calls=[READ])], [text("ok"), done()])
    events = run(chat, tools)  # exactly one stopped event, last
    assert events[-1]["reason"] in ("assistant_finished", "incomplete_model_turn")
    # A string for tool_calls is not a list of calls: no character becomes a call.
    assert all(e["name"] in ("read_file", None) for e in of_type(events, "tool_start"))


class ClosingFails:
    """A stream whose close() raises, as a broken SDK stream might."""

    def __init__(self, chunks):
        self.chunks = iter(chunks)

    def __iter__(self):
        return self.chunks

    def close(self):
        raise RuntimeError("close failed")


def test_a_stream_whose_close_raises_does_not_change_the_outcome(tools):
    turns = iter([[done(tool_calls=[READ])], [text("Done."), done()]])
    events = run(lambda messages, schemas: ClosingFails(next(turns)), tools)
    assert [r["path"] for r in results(events)] == ["path_rules.py"]
    assert events[-1] == {"type": "stopped", "turn": 2, "reason": "assistant_finished"}


def test_a_stream_whose_close_raises_does_not_change_a_recorded_outcome(tools):
    turns = iter([[done(tool_calls=[READ])], [text("Done."), done()]])
    body = run_recorded(lambda messages, schemas: ClosingFails(next(turns)), tools,
                        start_tests={"exit_code": 1, "passed": 3, "failed": 1, "errors": 0})
    assert body["stop"] == {"type": "stopped", "turn": 2, "reason": "assistant_finished"}
    assert len(body["timings"]["model_s"]) == 2


class ExplodingTools:
    """Tools whose every call raises something other than ValueError / TypeError / OSError."""
    schemas = [{"type": "function", "function": {"name": "read_file", "description": "",
                                                 "parameters": {"type": "object", "required": ["path"],
                                                                "properties": {"path": {"type": "string"}}}}}]

    def __init__(self, error):
        self.error = error

    def invoke(self, name, arguments):
        raise self.error


@pytest.mark.parametrize("error", [RuntimeError("boom"), RecursionError(), KeyError("k"), AssertionError()])
def test_any_exception_a_tool_raises_becomes_an_error_result(error):
    chat = ScriptedChat([done(tool_calls=[READ])], [text("ok"), done()])
    events = run(chat, ExplodingTools(error))
    (result,) = results(events)
    assert list(result) == ["error"] and result["error"]
    assert events[-1]["reason"] == "assistant_finished"


def nested(depth):
    value = "bottom"
    for _ in range(depth):
        value = {"deeper": value}
    return value


def test_deeply_nested_arguments_are_refused_recorded_and_saved(tools, tmp_path):
    chat = ScriptedChat([done(tool_calls=[call("read_file", path=nested(400))])], [text("ok"), done()])
    body = run_recorded(chat, tools, start_tests={"exit_code": 1, "passed": 3, "failed": 1, "errors": 0})
    assert body["stop"]["reason"] == "assistant_finished"  # the recorder changed nothing
    assert "nest more than 100 levels deep" in of_type(body["events"], "tool_result")[0]["result"]["error"]
    path = tmp_path / "deep.json"
    save(path, {"format": "coding-loop-recording/1", "source": "scripted", "model": {"name": "scripted"}, **body})
    assert load(path)["events"] == json.loads(json.dumps(body["events"]))


def test_a_lone_surrogate_is_printed_saved_and_reloaded_identically(tools, tmp_path):
    lone = "fixed \ud800 it"
    chat = ScriptedChat([thinking("\udfff"), text(lone), done()])
    body = run_recorded(chat, tools, start_tests={"exit_code": 1, "passed": 3, "failed": 1, "errors": 0},
                        on_event=Printer(out=io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), show_thinking=True))
    path = tmp_path / "surrogate.json"
    save(path, {"format": "coding-loop-recording/1", "source": "scripted", "model": {"name": "scripted"}, **body})
    reloaded = load(path)
    assert of_type(reloaded["events"], "text_delta")[0]["text"] == lone
    assert reloaded["turns"][0]["chunks"][1]["message"]["content"] == lone
    path.read_bytes().decode("utf-8")  # the file itself is valid UTF-8


def test_clean_neutralises_every_control_character_but_keeps_streamed_newlines():
    shown = clean(ESCAPES + "\nnext\tline", keep_newlines=True)
    assert not any(ch in shown for ch in "\x1b\x07\r\u202e\x9b")
    assert "\\x1b]0;owned" in shown and shown.endswith("\nnext\tline")
    assert "\n" not in clean("a\nb") and clean("a\nb") == "a\\x0ab"


def test_model_controlled_text_reaches_the_terminal_neutralised():
    out = io.StringIO()
    show = Printer(out=out, show_thinking=True)
    for event in [{"type": "model_start", "turn": 1},
                  {"type": "thinking_delta", "turn": 1, "text": ESCAPES},
                  {"type": "text_delta", "turn": 1, "text": ESCAPES + "\n"},
                  {"type": "tool_start", "turn": 1, "index": 0, "name": ESCAPES, "arguments": {ESCAPES: ESCAPES}},
                  {"type": "tool_result", "turn": 1, "index": 0, "name": ESCAPES, "result": {"error": ESCAPES}},
                  {"type": "tool_result", "turn": 1, "index": 1, "name": "run_tests",
                   "result": {"exit_code": 1, "passed": 0, "failed": 1, "errors": 0, "sandbox": ESCAPES}},
                  {"type": "nudge", "turn": 1, "kind": "calls_refused", "text": ESCAPES},
                  {"type": "stopped", "turn": 1, "reason": "model_error", "error": ESCAPES}]:
        show(event)
    printed = out.getvalue()
    assert not any(ch in printed for ch in "\x1b\x07\r\u202e\x9b")
    assert printed.count("\n") == 9  # the streamed text's own newline, and one line per event


MEGABYTE = "x" * 1_000_000


@pytest.mark.parametrize("name, arguments", [
    ("read_file", {"path": MEGABYTE}),                                   # not allowed, quoted
    ("read_file", {"path": "/" + MEGABYTE}),                             # absolute
    ("read_file", {"path": "path_rules.py", **{f"k{n}": "v" for n in range(10_000)}}),  # unexpected keys
    ("read_file", {MEGABYTE: "path_rules.py"}),                          # one huge key
    ("read_file", {"path": "path_rules.py", "x" * 1000: 5}),
    ("replace_text", {"old": MEGABYTE, "new": "y"}),                     # not found
    (MEGABYTE, {}),                                                      # an unknown tool's name
], ids=["path", "absolute path", "10,000 keys", "huge key", "long key, not a string", "huge old", "huge name"])
def test_a_tool_result_quotes_at_most_a_few_hundred_characters_of_a_huge_call(tools, name, arguments):
    chat = ScriptedChat([done(tool_calls=[call(name, **arguments)])], [text("ok"), done()])
    events = run(chat, tools)
    (result,) = results(events)
    assert "error" in result and len(json.dumps(result)) < 1_000, json.dumps(result)[:300]
    assert len(chat.requests[1][0][-1]["content"]) < 1_000  # the tool message the model reads next
    # Called directly, the tools' own refusals are as short.
    if name in ("read_file", "replace_text"):
        with pytest.raises((ValueError, TypeError)) as caught:
            tools.invoke(name, arguments)
        assert len(str(caught.value)) < 1_000


def a_pipe(tmp_path, data):
    """A named pipe a thread writes `data` into, as `--settings <(...)` gives one: it has no size
    to ask. The writer gives up quietly when the reader stops early."""
    import os
    import threading
    path = tmp_path / "settings-pipe"
    os.mkfifo(path)

    def write():
        try:
            with open(path, "wb") as pipe:
                pipe.write(data)
        except BrokenPipeError:
            pass
    threading.Thread(target=write, daemon=True).start()
    return path


@pytest.mark.parametrize(("text", "named"), [
    ('{"system": ' + "[" * 40_000 + "]" * 40_000 + "}", "nested too deep"),
    ('{"deadline": 1e999}', "deadline must be a number of seconds"),
    ('{"offered_tools": ["read_file", ["run_tests"]]}', "offered_tools must be allowlisted tool names"),
    (None, "larger than 100,000 bytes")])
def test_a_settings_file_that_cannot_be_used_is_one_line_naming_it_and_nothing_is_written(
        fake_ollama, tmp_path, capsys, text, named):
    """They were a RecursionError traceback, a recording with Infinity in it (not JSON), "unhashable
    type: 'list'", and a 10 MB system prompt let through a pipe."""
    import record_run
    if text is None:
        path = a_pipe(tmp_path, json.dumps({"system": "x" * 10_000_000}).encode())
    else:
        path = tmp_path / "settings.json"
        path.write_text(text)
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--settings", str(path), "--output", str(output)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: --settings {path}: ") and named in err
    assert not output.exists() and fake_ollama.requests == []


def test_an_endless_deadline_flag_is_refused_in_one_line(fake_ollama, tmp_path, capsys):
    import record_run
    for endless in ("inf", "Infinity", "nan"):
        with pytest.raises(SystemExit) as stop:
            record_run.main(["--host", fake_ollama.url, "--deadline", endless, "--output", str(tmp_path / "run.json")])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1 and "--deadline" in err and repr(endless) in err
    assert not (tmp_path / "run.json").exists() and fake_ollama.requests == []
