"""OpenAIModel through the real `openai` SDK over real HTTP, against fake_openai.py.

Most tests stay at the adapter: one scripted stream in, Ollama-shaped chunks out. A few
run the whole loop, and those assert on tool results and requests, not on exact events.
"""
import json
import pathlib
import threading
import time

import pytest

from agent_loop import agent_events
from local_model import DeadlinePassed, ModelUnavailable
from openai_model import OpenAIModel, to_openai_messages
from testing.fake_openai import (
    KEEP_ALIVE,
    Drop,
    Forever,
    HttpError,
    Raw,
    Stall,
    delta,
    llama_cpp_call,
    lm_studio_call,
    ollama_v1_call,
    parallel_calls,
    reasoning,
    reused_index_calls,
    text,
    tool_delta,
    usage,
    vllm_call,
    vllm_no_argument_call,
    without_finish,
)
from tests.helpers import FIX_NEW, FIX_OLD, SCHEMAS, of_type
from tests.network import closed_port

MODEL = "qwen2.5-coder-1.5b"
TASK = "Fix the failing test."
MESSAGES = [{"role": "system", "content": "You repair code."}, {"role": "user", "content": TASK}]
READ = '{"path": "path_rules.py"}'
READ_CALL = {"function": {"name": "read_file", "arguments": {"path": "path_rules.py"}}}
CAPTURES = pathlib.Path(__file__).parent / "wire_captures"


def reply(server, turn, **model_options):
    """Play one turn and return every chunk the adapter yields for it."""
    server.play(turn)
    return list(OpenAIModel(MODEL, server.url, **model_options)(MESSAGES, SCHEMAS))


def final(chunks):
    assert [chunk["done"] for chunk in chunks].count(True) == 1 and chunks[-1]["done"]
    return chunks[-1]


def run_loop(server, tools, **model_options):
    events = list(agent_events(OpenAIModel(MODEL, server.url, **model_options), tools, TASK))
    assert [e["type"] for e in events].count("stopped") == 1
    for request in server.requests:
        assert_every_call_answered(request)
    return events


def assert_every_call_answered(request):
    """As Codex's tests check: each tool result answers an earlier call, in order, and each call gets one."""
    unanswered, ids = [], []
    for message in request["messages"]:
        if message["role"] == "tool":
            assert unanswered and message["tool_call_id"] == unanswered.pop(0), message
        else:
            assert not unanswered, f"calls without a result: {unanswered}"
            unanswered = [call["id"] for call in message.get("tool_calls", [])]
            ids += unanswered
    assert not unanswered and len(ids) == len(set(ids))


# Each server's way of streaming a call gives the same Ollama-shaped turn.

@pytest.mark.parametrize("turn", [
    pytest.param(llama_cpp_call("read_file", READ), id="llama.cpp: name first, fragments, usage after"),
    pytest.param(ollama_v1_call("read_file", READ), id="ollama /v1: whole call, separate finish"),
    pytest.param(vllm_call("read_file", READ), id="vllm: rest of the arguments in the finish chunk"),
    pytest.param(lm_studio_call("read_file", READ), id="lm studio: id on every delta, empty name later"),
    pytest.param(lm_studio_call("read_file", READ, later_name="read_file"), id="whole name on every delta"),
])
def test_every_servers_streamed_call_arrives_whole_on_the_done_chunk(fake_openai, turn):
    chunks = reply(fake_openai, turn)
    assert final(chunks)["message"]["tool_calls"] == [READ_CALL]
    assert final(chunks)["done_reason"] == "stop"  # finish reason tool_calls
    assert len(chunks) == 1  # nothing before it: calls wait for the end


@pytest.mark.parametrize("turn", [
    pytest.param(vllm_no_argument_call("run_tests"), id="arguments missing"),
    pytest.param(vllm_no_argument_call("run_tests", arguments=None), id="arguments null"),
    pytest.param(llama_cpp_call("run_tests", "{}"), id='"" then "{}"'),
    pytest.param(ollama_v1_call("run_tests", ""), id="empty string"),
])
def test_a_tool_without_parameters_gets_an_empty_object(fake_openai, turn):
    done = final(reply(fake_openai, turn))
    assert done["message"]["tool_calls"] == [{"function": {"name": "run_tests", "arguments": {}}}]


def test_a_new_id_at_an_occupied_index_starts_a_new_call(fake_openai):
    chunks = reply(fake_openai, reused_index_calls(("read_file", READ), ("run_tests", "{}")))
    assert [call["function"]["name"] for call in final(chunks)["message"]["tool_calls"]] == ["read_file", "run_tests"]


def test_parallel_calls_with_interleaved_fragments_stay_apart(fake_openai):
    tests = '{"path": "tests/test_path_rules.py"}'
    chunks = reply(fake_openai, parallel_calls(("read_file", READ), ("read_file", tests)))
    assert [call["function"]["arguments"]["path"] for call in final(chunks)["message"]["tool_calls"]] == [
        "path_rules.py", "tests/test_path_rules.py"]


@pytest.mark.parametrize("arguments", ['{"path": "path_rules.py"', '["path_rules.py"]', "null"])
def test_arguments_that_are_not_a_json_object_pass_on_as_raw_text(fake_openai, arguments):
    chunks = reply(fake_openai, llama_cpp_call("read_file", arguments))
    assert final(chunks)["message"]["tool_calls"] == [{"function": {"name": "read_file", "arguments": arguments}}]


def test_counts_and_the_prompt_cache_hit_go_on_the_done_chunk(fake_openai):
    done = final(reply(fake_openai, llama_cpp_call("read_file", READ, cache_n=80, prompt_n=40)))
    assert (done["prompt_eval_count"], done["eval_count"]) == (120, 12)
    assert (done["cached_prompt_tokens"], done["evaluated_prompt_tokens"]) == (80, 40)
    # Only llama.cpp's own timings (an older server without prompt_tokens_details):
    done = final(reply(fake_openai, [*text("Done."), usage(prompt=50, timings={"cache_n": 45, "prompt_n": 5})]))
    assert (done["prompt_eval_count"], done["cached_prompt_tokens"]) == (50, 45)


def test_text_fragments_pass_on_as_content_deltas_and_length_is_incomplete(fake_openai):
    chunks = reply(fake_openai, text("I will ", "read it", finish="length"))
    assert [chunk["message"]["content"] for chunk in chunks[:-1]] == ["I will ", "read it"]
    assert final(chunks)["done_reason"] == "length"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_becomes_thinking(fake_openai, field):
    chunks = reply(fake_openai, [reasoning("Plan: read first.", field), *text("Reading.")])
    assert chunks[0]["message"] == {"role": "assistant", "content": "", "thinking": "Plan: read first."}
    # A server that sends the same thinking under both names still gives it once.
    chunks = reply(fake_openai, [delta(reasoning_content="Once.", reasoning="Once."), *text("ok")])
    assert chunks[0]["message"]["thinking"] == "Once."


def test_a_stream_without_a_finish_reason_yields_no_done_chunk(fake_openai, tools):
    chunks = reply(fake_openai, without_finish(llama_cpp_call("read_file", READ)))
    assert chunks == []
    chunks = reply(fake_openai, without_finish(text("I was cut")))
    assert [chunk["done"] for chunk in chunks] == [False]
    fake_openai.play(without_finish(llama_cpp_call("run_tests", "{}")))
    events = run_loop(fake_openai, tools)
    assert events[-1]["reason"] == "incomplete_model_turn" and of_type(events, "tool_start") == []


@pytest.mark.parametrize("event", [b"[1, 2]", b'"text"', b'{"choices": "zz", "usage": 5}', b'{"choices": [null]}',
                                   b'{"choices": [{"delta": {"tool_calls": [{"index": [0]}]}, "finish_reason": [1]}]}'])
def test_chunks_of_any_shape_do_not_crash_the_adapter(fake_openai, event):
    assert reply(fake_openai, Raw(b"data: " + event + b"\n\ndata: [DONE]\n\n")) == []


@pytest.mark.parametrize("odd", [
    {"choices": {"0": {"delta": {"content": "x"}}}}, {"choices": 5}, {"choices": "abc"}, {"choices": [{"delta": "text"}]},
    {"choices": [{"delta": {"tool_calls": {"index": 0, "function": {"name": "run_tests"}}}}]},
    {"choices": [{"delta": {"tool_calls": 7}}]}, {"choices": [{"delta": {"tool_calls": "run_tests"}}]},
    {"choices": [{"delta": {"content": 5, "reasoning_content": [1], "reasoning": {"a": 1}}, "finish_reason": 7}]},
    {"choices": [], "usage": [1, 2]}, {"choices": [], "usage": {"prompt_tokens_details": [1], "prompt_tokens": "5"}},
    {"choices": [], "usage": {"prompt_tokens_details": {"cached_tokens": "all"}}, "timings": "fast"},
])
def test_odd_chunk_shapes_among_good_ones_are_read_field_by_field(fake_openai, odd):
    chunks = reply(fake_openai, [delta(content="Reading."), odd, delta("stop"), usage()])
    assert chunks[0]["message"] == {"role": "assistant", "content": "Reading."}
    assert final(chunks)["done_reason"] == "stop" and "tool_calls" not in final(chunks)["message"]


def test_odd_tool_call_fields_are_read_field_by_field(fake_openai):
    odd = {"index": "1", "id": 5, "type": "function", "function": {"name": 7, "arguments": {"path": "path_rules.py"}}}
    chunks = reply(fake_openai, [delta(tool_calls=[odd]), tool_delta(0, name="read_file"), delta("tool_calls")])
    # A string index counts as 0, a number is no id and no name: one call, named by the later delta.
    assert final(chunks)["message"]["tool_calls"] == [READ_CALL]


def test_text_arrives_before_the_stream_ends(fake_openai):
    gate = threading.Event()
    fake_openai.play([delta(role="assistant", content=None), delta(content="Reading"),
                      lambda: gate.wait(5), delta(content=" now."), delta("stop")])
    stream = OpenAIModel(MODEL, fake_openai.url)(MESSAGES, SCHEMAS)
    assert next(stream)["message"]["content"] == "Reading"  # while the server still holds the rest
    assert not gate.is_set()
    gate.set()
    assert [chunk["done"] for chunk in stream] == [False, True]


# What the adapter sends.

def test_options_map_to_chat_completions_fields_and_num_ctx_is_not_sent(fake_openai):
    reply(fake_openai, text("ok"))
    sent = fake_openai.requests[0]
    assert (sent["temperature"], sent["seed"], sent["max_tokens"]) == (0, 7, 2048)
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["tools"] == SCHEMAS and sent["messages"] == MESSAGES
    asked = {"temperature": 0.7, "seed": 3, "num_predict": 64, "num_ctx": 8192}
    sent_as = OpenAIModel(MODEL, fake_openai.url, options=asked).sent_options
    assert sent_as == {"temperature": 0.7, "seed": 3, "max_tokens": 64}  # what a recording should keep
    reply(fake_openai, text("ok"), options={"temperature": 0.7, "num_ctx": 8192})
    sent = fake_openai.requests[0]
    assert sent["temperature"] == 0.7 and "num_ctx" not in json.dumps(sent) and "options" not in sent
    with pytest.raises(ValueError, match="top_k"):
        OpenAIModel(MODEL, fake_openai.url, options={"top_k": 40})


@pytest.mark.parametrize("streamed", ['{"path":"path_rules.py"}', '{ "path" : "path_rules.py" }'])
def test_arguments_go_back_byte_identical_with_the_streamed_id(fake_openai, tools, streamed):
    fake_openai.play([reasoning("Look first."), *llama_cpp_call("read_file", streamed, id="abc123")], text("Read it."))
    events = run_loop(fake_openai, tools)
    assert of_type(events, "tool_result")[0]["result"]["path"] == "path_rules.py"
    assistant, tool = fake_openai.requests[1]["messages"][2:4]
    assert assistant["tool_calls"] == [{"id": "abc123", "type": "function",
                                        "function": {"name": "read_file", "arguments": streamed}}]
    assert "thinking" not in assistant and "reasoning_content" not in assistant  # see to_openai_messages
    assert tool["tool_call_id"] == "abc123" and set(tool) == {"role", "tool_call_id", "content"}


def test_the_same_call_in_two_turns_keeps_each_turns_id(fake_openai, tools):
    fake_openai.play(llama_cpp_call("read_file", READ, id="first"), llama_cpp_call("read_file", READ, id="second"),
                     text("Done."))
    run_loop(fake_openai, tools)
    sent = [m["tool_calls"][0]["id"] for m in fake_openai.requests[2]["messages"] if m.get("tool_calls")]
    assert sent == ["first", "second"]


def test_a_history_the_adapter_did_not_stream_gets_json_dumps_and_stable_ids():
    history = [*MESSAGES,
               {"role": "assistant", "content": "Two looks.", "thinking": "hm",
                "tool_calls": [READ_CALL, {"function": {"name": "run_tests", "arguments": {}}}]},
               {"role": "tool", "tool_name": "read_file", "content": '{"text": "..."}'},
               {"role": "tool", "tool_name": "run_tests", "content": '{"exit_code": 1}'},
               {"role": "user", "content": "Go on."}]
    sent = to_openai_messages(history)
    assert sent[2] == {"role": "assistant", "content": "Two looks.", "tool_calls": [
        {"id": "call_2_0", "type": "function", "function": {"name": "read_file", "arguments": READ}},
        {"id": "call_2_1", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}}]}
    assert [m["tool_call_id"] for m in sent[3:5]] == ["call_2_0", "call_2_1"]
    assert sent[5] == history[5] and to_openai_messages(history) == sent  # the same ids every time
    with pytest.raises(ValueError, match="answers no call"):
        to_openai_messages([*MESSAGES, {"role": "tool", "tool_name": "run_tests", "content": "{}"}])


def test_a_full_repair_through_four_servers_quirks(fake_openai, tools):
    fix = json.dumps({"old": FIX_OLD, "new": FIX_NEW})
    fake_openai.play(llama_cpp_call("read_file", READ), ollama_v1_call("run_tests", "{}"),
                     [*text("Normalising backslashes.")[:2], *vllm_call("replace_text", fix)[1:]],
                     lm_studio_call("run_tests", "{}"), text("All four tests ", "pass."))
    events = run_loop(fake_openai, tools)
    runs = [e["result"] for e in of_type(events, "tool_result") if e["name"] == "run_tests"]
    assert [r["exit_code"] for r in runs] == [1, 0]
    assert events[-1]["reason"] == "assistant_finished" and len(fake_openai.requests) == 5


def test_invalid_arguments_become_an_error_result_for_the_model(fake_openai, tools):
    fake_openai.play(llama_cpp_call("read_file", '{"path": "path_rules.py"', id="bad1"), text("Sorry."))
    events = run_loop(fake_openai, tools)
    assert "JSON object" in of_type(events, "tool_result")[0]["result"]["error"]
    # The loop sends {} for it, and so does the adapter (a server may refuse broken JSON), under its id.
    sent = fake_openai.requests[1]["messages"][2]["tool_calls"][0]
    assert (sent["id"], sent["function"]["arguments"]) == ("bad1", "{}")


DEEP = '{"path": ' + "[" * 1200 + "]" * 1200 + "}"  # past the ~1,000 levels Python's json reads


@pytest.mark.parametrize("turn", [
    pytest.param(llama_cpp_call("read_file", DEEP, id="deep1"), id="llama.cpp: fragments"),
    pytest.param(ollama_v1_call("read_file", DEEP, id="deep1"), id="ollama /v1: one delta"),
    pytest.param(llama_cpp_call("read_file", '{"path": ' + "[" * 500 + "]" * 500 + "}", id="deep1"),
                 id="readable, but deeper than any tool takes"),
])
def test_deeply_nested_arguments_are_the_models_malformed_call(fake_openai, tools, turn):
    """Once a RecursionError out of the stream reader ended the run model_error."""
    fake_openai.play(turn, text("Sorry."))
    events = run_loop(fake_openai, tools)
    (result,) = [e["result"] for e in of_type(events, "tool_result")]
    assert result == {"error": "arguments for read_file nest more than 100 levels deep; "
                               "a tool takes one flat JSON object of strings"}
    assert events[-1]["reason"] == "assistant_finished" and len(fake_openai.requests) == 2
    sent = fake_openai.requests[1]["messages"][2]["tool_calls"][0]
    assert (sent["id"], sent["function"]["arguments"]) == ("deep1", "{}")


def test_a_chunk_the_sdk_cannot_decode_ends_the_turn_with_a_malformed_call(fake_openai, tools):
    """Arguments sent as an object 1,200 levels deep: the SDK's json.loads gives up on the whole
    event, so the call has no name either; the model reads why, and the run goes on."""
    event = (b'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"' + MODEL.encode()
             + b'","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","type":"function",'
             b'"function":{"name":"read_file","arguments":{"path":' + b"[" * 1200 + b"]" * 1200 + b'}}}]},'
             b'"finish_reason":null}]}\n\n')
    fake_openai.play([*llama_cpp_call("read_file", READ)[:-2], event], text("Sorry."))  # no finish after it
    events = run_loop(fake_openai, tools)
    ran, refused = [e["result"] for e in of_type(events, "tool_result")]
    assert "text" in ran and "no function name" in refused["error"]
    assert "nests deeper than JSON can be read" in refused["error"]
    assert events[-1]["reason"] == "assistant_finished"


# Failures: one sentence that says what to do, never a traceback.

def test_no_server_says_what_to_start(tools):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(ModelUnavailable, match="no OpenAI-compatible server answers at .*llama-server") as caught:
        OpenAIModel(MODEL, url).check()
    assert "\n" not in str(caught.value) and "--base-url" in str(caught.value)
    events = list(agent_events(OpenAIModel(MODEL, url), tools, TASK))
    assert events[-1]["reason"] == "model_error" and url in events[-1]["error"]


def test_a_model_that_is_not_served_names_the_served_ones(fake_openai):
    fake_openai.play(models=[{"id": MODEL}, {"id": "other-model"}])
    with pytest.raises(ModelUnavailable, match=r"'gemma4:e2b' is not served .*: \['qwen2.5-coder-1.5b', 'other-model'\]"):
        OpenAIModel("gemma4:e2b", fake_openai.url).check()
    with pytest.raises(ModelUnavailable, match=r"it serves: \['qwen2.5-coder-1.5b', 'other-model'\]"):
        list(OpenAIModel("gemma4:e2b", fake_openai.url)(MESSAGES, SCHEMAS))  # the chat's 404 asks /models


def test_check_returns_the_name_and_a_digest_where_the_server_gives_one(fake_openai):
    assert OpenAIModel(MODEL, fake_openai.url).check() == {"name": MODEL, "digest": None}
    fake_openai.play(models=[{"id": MODEL, "digest": "sha256:abc"}])
    assert OpenAIModel(MODEL, fake_openai.url + "/").check()["digest"] == "sha256:abc"


def test_a_base_url_without_the_api_says_to_fix_it(fake_openai):
    root = fake_openai.url.removesuffix("/v1")
    with pytest.raises(ModelUnavailable, match="404 for /models.*--base-url"):
        OpenAIModel(MODEL, root).check()


@pytest.mark.parametrize("turn, advice", [
    (HttpError(500, "loading model"), "answered 500: 'loading model'"),
    ([delta(content="Working"), {"error": {"message": "context size exceeded", "code": 400}}],
     "error in the middle of the reply: 'context size exceeded'"),
    ([delta(content="Working"), Drop()], "was cut off in the middle of the reply"),
    (Raw(b"data: {not json\n\n"), "not Chat Completions"),
])
def test_server_failures_are_one_sentence(fake_openai, turn, advice):
    fake_openai.play(turn)
    with pytest.raises(ModelUnavailable, match=advice) as caught:
        list(OpenAIModel(MODEL, fake_openai.url)(MESSAGES, SCHEMAS))
    assert "\n" not in str(caught.value) and fake_openai.url in str(caught.value)


def test_a_request_too_long_for_the_servers_context_is_the_runs_own_result(fake_openai, tools):
    """llama-server's 400 for a request longer than a slot's context: the run stops model_error
    under RequestTooLong's name, which a search never counts as a lost server."""
    from attempt.servers import lost_to_server
    fake_openai.play(HttpError(400, "request (8956 tokens) exceeds the available context size (8192 tokens), "
                                    "try increasing it"))
    events = run_loop(fake_openai, tools)
    assert events[-1]["reason"] == "model_error" and events[-1]["error"].startswith("RequestTooLong: ")
    assert not lost_to_server(events[-1])


def test_a_dropped_stream_through_the_loop_keeps_the_text_and_stops_with_model_error(fake_openai, tools):
    fake_openai.play([delta(content="I will"), Drop()])
    events = run_loop(fake_openai, tools)
    assert of_type(events, "text_delta")[0]["text"] == "I will"
    assert events[-1]["reason"] == "model_error" and "cut off" in events[-1]["error"]


def test_a_stalled_stream_hits_the_read_timeout(fake_openai):
    fake_openai.play([delta(content="Thinking..."), Stall(1.0), *text("late")])
    with pytest.raises(ModelUnavailable, match="sent nothing for 0.3 s"):
        list(OpenAIModel(MODEL, fake_openai.url, timeout=0.3)(MESSAGES, SCHEMAS))


def test_closing_early_closes_the_http_stream(fake_openai, tools):
    fake_openai.play([delta(content="a"), Stall(0.1), delta(content="b"), Stall(0.1), *text("c")])
    loop = agent_events(OpenAIModel(MODEL, fake_openai.url), tools, TASK)
    assert [next(loop)["type"], next(loop)["text"]] == ["model_start", "a"]
    loop.close()
    for _ in range(50):  # the server notices on its next write
        if fake_openai.disconnects:
            break
        time.sleep(0.05)
    assert fake_openai.disconnects == 1


def test_an_html_page_for_models_is_one_short_sentence(fake_openai):
    fake_openai.play(models=Raw(b"<!DOCTYPE html>\n<html><body>" + b"<p>Welcome!</p>\n" * 70_000 + b"</body></html>"))
    with pytest.raises(ModelUnavailable, match="/models answered '<!DOCTYPE html>.*no list of models.*--base-url") as caught:
        OpenAIModel(MODEL, fake_openai.url).check()
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 600


def test_a_models_list_of_odd_entries_is_read_entry_by_entry(fake_openai):
    fake_openai.play(models=[{"id": 5}, {"name": "x"}, {"id": ["a"]}])
    with pytest.raises(ModelUnavailable, match="it serves: nothing"):
        OpenAIModel(MODEL, fake_openai.url).check()
    fake_openai.play(models=[{"id": 5}, {"id": MODEL, "digest": 7}])
    assert OpenAIModel(MODEL, fake_openai.url).check() == {"name": MODEL, "digest": None}


def test_a_megabyte_error_page_is_quoted_short(fake_openai):
    fake_openai.play(HttpError(502, b"<html><h1>502 Bad Gateway</h1>" + b"<!-- padding -->" * 65_000 + b"</html>"))
    with pytest.raises(ModelUnavailable, match="answered 502: '<html><h1>502 Bad Gateway</h1>.*more characters") as caught:
        list(OpenAIModel(MODEL, fake_openai.url)(MESSAGES, SCHEMAS))
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 600


# The deadline: a request ends at `ends_at` whatever the server sends, or does not send.

@pytest.mark.parametrize("forever", [Forever(KEEP_ALIVE), Forever(delta()), Forever({"choices": []}),
                                     Forever(delta(content="")), Stall(10)],
                         ids=["keep-alive comments", "empty deltas", "no choices", "empty content", "silence"])
def test_the_deadline_ends_a_stream_that_never_answers(fake_openai, forever):
    fake_openai.play([delta(role="assistant", content=None), forever])
    started = time.monotonic()
    with pytest.raises(DeadlinePassed, match="deadline passed before .*/chat/completions"):
        list(OpenAIModel(MODEL, fake_openai.url, ends_at=started + 0.5)(MESSAGES, SCHEMAS))
    # Wide bounds: the request ends a moment after the deadline, not when the server gives up (30 s).
    assert 0.5 <= time.monotonic() - started < 5


def test_the_deadline_ends_a_request_whose_answer_never_starts(fake_openai):
    fake_openai.play([Stall(10), *text("late")])
    started = time.monotonic()
    with pytest.raises(DeadlinePassed):
        list(OpenAIModel(MODEL, fake_openai.url, ends_at=started + 0.5)(MESSAGES, SCHEMAS))
    assert 0.5 <= time.monotonic() - started < 5
    with pytest.raises(DeadlinePassed):  # already past: nothing is sent
        list(OpenAIModel(MODEL, fake_openai.url, ends_at=started)(MESSAGES, SCHEMAS))


def test_the_loop_names_the_deadline_when_the_server_only_keeps_the_stream_alive(fake_openai, tools):
    fake_openai.play([delta(content="Thinking"), Forever(KEEP_ALIVE)])
    started = time.monotonic()
    model = OpenAIModel(MODEL, fake_openai.url).with_deadline(0.6)
    events = list(agent_events(model, tools, TASK, deadline=0.6))
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "deadline"} and time.monotonic() - started < 5
    for _ in range(50):  # the server notices on its next write
        if fake_openai.disconnects:
            break
        time.sleep(0.05)
    assert fake_openai.disconnects == 1


def test_with_deadline_is_a_copy_with_the_same_options_and_its_own_deadline(fake_openai):
    model = OpenAIModel(MODEL, fake_openai.url + "/", api_key="sk-test", options={"temperature": 0.7, "num_ctx": 4096})
    before = time.monotonic()
    timed = model.with_deadline(30)
    assert timed is not model and model.ends_at is None and before + 30 <= timed.ends_at <= time.monotonic() + 30
    assert timed.url == model.url == fake_openai.url and timed.api_key == "sk-test"
    assert timed.recorded() == model.recorded() == {"options": {"temperature": 0.7, "seed": 7, "max_tokens": 2048}}
    assert model.with_deadline(None).ends_at is None
    fake_openai.play(text("ok"))
    assert final(list(timed(MESSAGES, SCHEMAS)))["done_reason"] == "stop"
    assert fake_openai.requests[0]["temperature"] == 0.7


# A real stream, byte for byte (wire_captures/README.md says how it was captured).

def captured(server, name):
    return reply(server, Raw((CAPTURES / f"{name}.sse").read_bytes()))


def test_a_captured_llama_server_tool_call_assembles(fake_openai):
    done = final(captured(fake_openai, "llama-server-tool-call"))
    assert done["message"]["tool_calls"] == [READ_CALL] and done["done_reason"] == "stop"
    # The usage chunk after the finish chunk: the prompt cache matched all but one token.
    assert (done["prompt_eval_count"], done["eval_count"], done["cached_prompt_tokens"]) == (488, 28, 487)


def test_captured_parallel_calls_cut_off_by_length_are_incomplete(fake_openai, tools):
    done = final(captured(fake_openai, "llama-server-parallel-calls-length"))
    names = [call["function"]["name"] for call in done["message"]["tool_calls"]]
    assert names == ["read_file", "run_tests", "read_file"]
    assert done["message"]["tool_calls"][2]["function"]["arguments"] == '{"path' and done["done_reason"] == "length"
    fake_openai.play(Raw((CAPTURES / "llama-server-parallel-calls-length.sse").read_bytes()))
    events = run_loop(fake_openai, tools)
    assert events[-1]["reason"] == "incomplete_model_turn" and of_type(events, "tool_start") == []


def test_a_captured_llama_server_reply_that_writes_the_call_as_text(fake_openai):
    chunks = captured(fake_openai, "llama-server-json-as-text")
    written = "".join(chunk["message"]["content"] for chunk in chunks)
    assert written.startswith("```json") and '"read_file"' in written and len(chunks) == 31
    assert "tool_calls" not in final(chunks)["message"]
    assert (final(chunks)["prompt_eval_count"], final(chunks)["cached_prompt_tokens"]) == (488, 0)
