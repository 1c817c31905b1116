"""LocalModel through the real `ollama` SDK over real HTTP, against fake_ollama.py."""
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from agent_loop import agent_events
from local_model import OPTIONS, PAST_DEADLINE, TIMEOUT, DeadlinePassed, DeadlineTransport, LocalModel, ModelUnavailable
from testing.fake_ollama import Drop, Forever, HttpError, Stall
from testing.scripted import call, calls, done, text, thinking
from tests.helpers import FIX, SCHEMAS, of_type
from tests.network import closed_port

TASK = "Fix the failing test."
MESSAGES = [{"role": "user", "content": TASK}]

def run_live(server, tools, **model_options):
    events = list(agent_events(LocalModel(host=server.url, **model_options), tools, TASK))
    assert [e["type"] for e in events].count("stopped") == 1
    return events


def test_the_sdk_sends_what_the_loop_asked_for(tools, fake_ollama):
    server = fake_ollama.play([text("Reading."), done(tool_calls=[call("read_file", path="path_rules.py")])],
                              [text("ok"), done()])
    run_live(server, tools)
    first, second = server.requests
    assert first["model"] == "gemma4:e2b" and first["stream"] is True and first["think"] is True
    assert first["options"] == OPTIONS and first["keep_alive"] == "10m"
    assert first["tools"] == SCHEMAS  # flat schemas pass the SDK's Tool model unchanged
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assistant, tool = second["messages"][2:]
    assert assistant == {"role": "assistant", "content": "Reading.",
                         "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "path_rules.py"}}}]}
    assert tool["role"] == "tool" and tool["tool_name"] == "read_file" and '"path": "path_rules.py"' in tool["content"]


def test_calls_on_the_done_chunk_arrive_through_the_sdk(tools, fake_ollama):
    server = fake_ollama.play([text("Let me look."), done(tool_calls=[call("read_file", path="path_rules.py"), call("run_tests")])],
                              [text("ok"), done()])
    events = run_live(server, tools)
    assert [e["name"] for e in of_type(events, "tool_result")] == ["read_file", "run_tests"]


def test_several_call_chunks_and_thinking_arrive_through_the_sdk(tools, fake_ollama):
    server = fake_ollama.play([thinking("Plan <first> & then act."), calls(call("read_file", path="path_rules.py")),
                     calls(call("read_file", path="tests/test_path_rules.py"), call("nope")), done()],
                              [text("ok"), done()])
    events = run_live(server, tools)
    assert of_type(events, "thinking_delta")[0]["text"] == "Plan <first> & then act."  # Go escapes undone
    assert [e["name"] for e in of_type(events, "tool_start")] == ["read_file", "read_file", "nope"]


def test_a_mid_stream_error_line_keeps_what_came_and_stops_with_model_error(tools, fake_ollama):
    server = fake_ollama.play([text("Working"), {"error": "an error was encountered while running the model"}])
    events = run_live(server, tools)
    assert of_type(events, "text_delta")[0]["text"] == "Working"
    assert events[-1]["reason"] == "model_error"
    assert "in the middle of the reply: 'an error was encountered" in events[-1]["error"]


def test_a_call_nested_deeper_than_json_reads_is_the_models_malformed_call(tools, fake_ollama):
    """1,200 levels: the SDK's json.loads raises RecursionError on the line. The call cannot be
    read, so it is refused with words the model reads, and the run goes on."""
    line = ('{"model":"gemma4:e2b","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"",'
            '"tool_calls":[{"function":{"name":"read_file","arguments":{"path":' + "[" * 1200 + "]" * 1200 + '}}}]},'
            '"done":false}\n').encode()
    server = fake_ollama.play([text("Reading."), line, done()], [text("ok"), done()])
    events = run_live(server, tools)
    (result,) = [e["result"] for e in of_type(events, "tool_result")]
    assert "no function name" in result["error"] and "nests deeper than JSON can be read" in result["error"]
    assert events[-1]["reason"] == "assistant_finished" and len(server.requests) == 2
    assert server.requests[1]["messages"][2]["tool_calls"] == [{"function": {"name": "", "arguments": {}}}]


def test_a_call_nested_deep_but_readable_is_refused_by_name(tools, fake_ollama):
    deep = {"path": json.loads("[" * 500 + "]" * 500)}
    server = fake_ollama.play([done(tool_calls=[call("read_file", **deep)])], [text("ok"), done()])
    events = run_live(server, tools)
    (result,) = [e["result"] for e in of_type(events, "tool_result")]
    assert result["error"].startswith("arguments for read_file nest more than 100 levels deep")
    assert server.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"] == {}  # not sent back


@pytest.mark.parametrize("status, message, advice", [
    (404, "model 'gemma4:e2b' not found", "ollama pull gemma4:e2b"),
    (400, "registry.ollama.ai/library/gemma3:4b does not support tools", "does not support tool calling"),
    (400, '"gemma3:4b" does not support thinking', "--no-think"),
    (503, "server busy, please try again", "answered 503"),
])
def test_errors_before_the_stream_say_what_to_do(tools, status, message, advice, fake_ollama):
    server = fake_ollama.play(HttpError(status, message))
    events = run_live(server, tools)
    assert events[-1]["reason"] == "model_error" and advice in events[-1]["error"]


def test_a_stream_without_done_through_the_sdk_is_incomplete(tools, fake_ollama):
    server = fake_ollama.play([text("I will"), calls(call("run_tests"))])
    events = run_live(server, tools)
    assert events[-1]["reason"] == "incomplete_model_turn" and of_type(events, "tool_start") == []


def test_an_abrupt_close_is_a_model_error(tools, fake_ollama):
    server = fake_ollama.play([text("I will"), Drop()])
    events = run_live(server, tools)
    assert events[-1]["reason"] == "model_error" and "RemoteProtocolError" in events[-1]["error"]


def test_server_down_says_how_to_start_it(tools):
    host = f"http://127.0.0.1:{closed_port()}"
    events = list(agent_events(LocalModel(host=host), tools, TASK))
    assert events[-1]["reason"] == "model_error"
    assert f"not reachable at {host}" in events[-1]["error"] and "ollama serve" in events[-1]["error"]
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        LocalModel(host=host).check()


def test_a_stalled_stream_hits_the_read_timeout(tools, fake_ollama):
    server = fake_ollama.play([text("Thinking..."), Stall(1.5), done()])
    events = run_live(server, tools, timeout=0.5)
    assert events[-1]["reason"] == "model_error" and "sent nothing for 0.5 s" in events[-1]["error"]


def test_closing_early_closes_the_http_stream(tools, fake_ollama):
    server = fake_ollama.play([text("a"), Stall(0.2), text("b"), Stall(0.2), text("c"), done()])
    loop = agent_events(LocalModel(host=server.url), tools, TASK)
    assert [next(loop)["type"], next(loop)["text"]] == ["model_start", "a"]
    loop.close()
    for _ in range(50):  # the server notices on its next write
        if server.disconnects:
            break
        time.sleep(0.05)
    assert server.disconnects == 1


def test_ollama_host_is_the_default_host(monkeypatch, fake_ollama):
    server = fake_ollama.play()
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    assert LocalModel().check()["digest"].startswith("sha256:")


@pytest.mark.parametrize("capabilities, think, advice", [
    (["completion"], False, "does not support tool calling"),
    (["completion", "tools"], True, "--no-think"),
])
def test_check_refuses_models_without_the_needed_capabilities(capabilities, think, advice, fake_ollama):
    server = fake_ollama.play(capabilities=capabilities)
    with pytest.raises(ModelUnavailable, match=advice):
        LocalModel(host=server.url, think=think).check()


def test_check_reports_a_model_that_is_not_pulled(fake_ollama):
    server = fake_ollama.play()
    with pytest.raises(ModelUnavailable, match="run `ollama pull qwen3:8b`"):
        LocalModel("qwen3:8b", host=server.url).check()


def test_a_full_repair_end_to_end_through_the_sdk(tools, fake_ollama):
    server = fake_ollama.play([calls(call("read_file", path="path_rules.py")), done()],
                              [done(tool_calls=[call("run_tests")])],
                              [text("Normalising backslashes."), done(tool_calls=[FIX])],
                              [done(tool_calls=[call("run_tests")])],
                              [text("All four tests pass."), done()])
    events = run_live(server, tools)
    runs = [e["result"] for e in of_type(events, "tool_result") if e["name"] == "run_tests"]
    assert [r["exit_code"] for r in runs] == [1, 0]
    assert events[-1]["reason"] == "assistant_finished" and len(server.requests) == 5


def test_a_megabyte_error_page_is_quoted_short(tools, fake_ollama):
    server = fake_ollama.play(HttpError(502, b"<html><h1>502 Bad Gateway</h1>" + b"<!-- padding -->" * 65_000 + b"</html>"))
    events = run_live(server, tools)
    assert events[-1]["reason"] == "model_error" and "answered 502: '<html><h1>502 Bad Gateway</h1>" in events[-1]["error"]
    assert "\n" not in events[-1]["error"] and len(events[-1]["error"]) < 600


def test_an_openai_compatible_server_given_as_the_host_says_which_flags_to_use(tools, fake_openai):
    root = fake_openai.url.removesuffix("/v1")  # /api/chat and /api/show: 404; /v1/models: a list
    with pytest.raises(ModelUnavailable, match=f"OpenAI-compatible server, not Ollama: try `--api openai --base-url {root}/v1`"):
        LocalModel(host=root).check()
    events = list(agent_events(LocalModel(host=root), tools, TASK))
    assert events[-1]["reason"] == "model_error" and f"--api openai --base-url {root}/v1" in events[-1]["error"]
    assert "ollama pull" not in events[-1]["error"]


def test_a_host_that_is_no_server_of_models_says_so(httpserver, monkeypatch):
    monkeypatch.setattr(httpserver, "no_handler_status_code", 404)  # a web server with none of the paths
    with pytest.raises(ModelUnavailable, match="is not Ollama .*pass Ollama's URL as --host"):
        LocalModel(host=httpserver.url_for("/").rstrip("/")).check()


# The deadline: a request ends at `ends_at` whatever the server sends, or does not send.

@pytest.mark.parametrize("turn", [
    [text("Thinking"), Forever(text(""))],   # empty chunks, forever
    [text("Thinking"), Stall(10), done()],  # silence
    [Stall(10), text("late"), done()],      # an answer that never starts
], ids=["empty chunks", "silence", "no answer"])
def test_the_deadline_ends_a_stream_that_never_answers(fake_ollama, turn):
    server = fake_ollama.play(turn)
    started = time.monotonic()
    with pytest.raises(DeadlinePassed, match="deadline passed before .*/api/chat"):
        list(LocalModel(host=server.url, ends_at=started + 0.5)(MESSAGES, SCHEMAS))
    # Wide bounds: the request ends a moment after the deadline, not when the server gives up.
    assert 0.5 <= time.monotonic() - started < 5


def test_the_loop_names_the_deadline_when_the_server_sends_only_empty_chunks(tools, fake_ollama):
    server = fake_ollama.play([text("Thinking"), Forever(text(""))])
    started = time.monotonic()
    events = list(agent_events(LocalModel(host=server.url).with_deadline(0.6), tools, TASK, deadline=0.6))
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "deadline"} and time.monotonic() - started < 5


def test_every_wait_of_a_request_gets_at_most_what_is_left_of_the_deadline():
    waits, ends_at = [], time.monotonic() + 10
    inner = httpx.MockTransport(lambda request: waits.append(request.extensions["timeout"]) or httpx.Response(200))
    with httpx.Client(transport=DeadlineTransport(inner, lambda: ends_at), timeout=TIMEOUT) as client:
        client.get("http://ollama.invalid/api/version")
        assert waits[0]["connect"] == waits[0]["pool"] == 5.0  # shorter than what is left: kept
        assert 9 < waits[0]["read"] <= 10 + PAST_DEADLINE and 9 < waits[0]["write"] <= 10 + PAST_DEADLINE
        ends_at = time.monotonic() - 5  # already over: the request is not even sent
        with pytest.raises(DeadlinePassed):
            client.get("http://ollama.invalid/api/version")
        ends_at = None  # no deadline: the configured waits
        client.get("http://ollama.invalid/api/version")
    assert len(waits) == 2 and waits[1]["read"] == TIMEOUT.read


def test_with_deadline_is_a_copy_with_the_same_options_and_its_own_deadline(fake_ollama):
    model = LocalModel("gemma4:e2b", host=fake_ollama.url, think=False, keep_alive="1m", options={"seed": 3}, timeout=7)
    before = time.monotonic()
    timed = model.with_deadline(30)
    assert timed is not model and model.ends_at is None and before + 30 <= timed.ends_at <= time.monotonic() + 30
    assert (timed.url, timed.timeout, timed.model) == (model.url, model.timeout, model.model) == (
        fake_ollama.url, httpx.Timeout(7), "gemma4:e2b")
    assert timed.recorded() == model.recorded() == {"think": False, "keep_alive": "1m", "options": {**OPTIONS, "seed": 3}}
    assert model.with_deadline(None).ends_at is None
    fake_ollama.play([text("ok"), done()])
    assert list(timed(MESSAGES, SCHEMAS))[-1]["done"] is True
    assert fake_ollama.requests[0]["options"]["seed"] == 3 and fake_ollama.requests[0]["keep_alive"] == "1m"


def test_the_sdk_is_imported_only_when_a_local_model_is_made():
    """evaluate.py's worker processes and the entry points import this module for its defaults;
    one that runs an OpenAI-compatible or a scripted model never pays for the ollama SDK."""
    probe = ("import sys, evaluation.job, local_model; before = 'ollama' in sys.modules; "
             "local_model.LocalModel('m', 'http://127.0.0.1:9'); print(before, 'ollama' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           cwd=Path(__file__).resolve().parent.parent)
    assert shown.stdout.split() == ["False", "True"], shown.stderr


def test_model_objects_share_one_tls_context_per_http_library(monkeypatch):
    """A model object is made for each attempt, candidate and check; loading the certificate
    bundle for each (about 20 ms of CPU) is paid once a process, by each SDK's HTTP library."""
    import ssl

    import local_model
    from models.adapter_http import tls_context
    from openai_model import OpenAIModel
    local_model._sdk()  # imported first: on import, the ollama SDK makes a default client of its own
    loaded, load = [], ssl.SSLContext.load_verify_locations
    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations",
                        lambda context, *args, **kwargs: loaded.append(1) or load(context, *args, **kwargs))
    tls_context.cache_clear()
    for _ in range(3):
        LocalModel("m", "http://127.0.0.1:9")
        OpenAIModel("m", "http://127.0.0.1:9/v1")
    assert len(loaded) == 2
