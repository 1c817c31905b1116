"""Scripted model turns: the chunk builders, and `ScriptedTurns`, a queue of turns played in order.

A scripted chat is a queue: request N gets turn N, whatever the messages say (it never
branches on them). `evaluate.py --scripted` plays the shipped scripted attempts with it
(models/scripted_attempts.py); the tests' richer double, testing/scripted.py's
ScriptedChat, builds its chunks with these same builders.

What this file deliberately is not: a model. Anything produced from it is `source: "scripted"`.
"""
import copy


def text(content):
    """A streamed content fragment."""
    return {"message": {"role": "assistant", "content": content}, "done": False}


def thinking(fragment):
    """A streamed thinking fragment (content is "" as on the wire)."""
    return {"message": {"role": "assistant", "content": "", "thinking": fragment}, "done": False}


def call(name, **arguments):
    """One tool call as the SDK dumps it: whole, never in fragments."""
    return {"function": {"name": name, "arguments": arguments}}


def calls(*tool_calls, content=""):
    """A not-yet-done chunk carrying tool calls (and, optionally, content)."""
    return {"message": {"role": "assistant", "content": content, "tool_calls": list(tool_calls)}, "done": False}


def done(reason="stop", tool_calls=()):
    """The closing chunk; Ollama's native path puts every tool call here."""
    message = {"role": "assistant", "content": ""}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    return {"message": message, "done": True, "done_reason": reason, "eval_count": 1}


class ScriptedTurns:
    """A chat callable that answers request N with turn N (a list of chunk dicts)."""

    def __init__(self, *turns):
        self.turns = list(turns)

    def __call__(self, messages, tool_schemas):
        if not self.turns:  # the attempt went further than its script: a bug in the script
            raise RuntimeError("the scripted attempt has no turn left for this request")
        return iter(copy.deepcopy(self.turns.pop(0)))
