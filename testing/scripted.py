"""Scripted model turns for the tests: the chunk builders and `ScriptedChat`, a queue of turns.

Used by the tests and by make_recordings.py to write chunk scripts by hand. The builders are
models/scripted_turns.py's (the shipped scripted attempts use them too). A scripted
chat is a queue: request N gets turn N, whatever the messages say (it never branches on
them), and it keeps a copy of every request so a test can check what reached the model.

What this file deliberately is not: a model. Anything produced from it is `source: "scripted"`.
"""
import copy

from models.scripted_turns import call, calls, done, text, thinking  # noqa: F401 - the tests' builders


class ScriptedChat:
    """Plays one scripted turn per request: a list of chunks (exceptions and callables
    allowed among them), or an exception raised by the request itself."""

    def __init__(self, *turns):
        self.turns = list(turns)
        self.requests = []       # deep copies of (messages, tool_schemas), as sent
        self.closed_streams = 0  # how many streams the caller closed

    @property
    def remaining_turns(self):
        return len(self.turns)

    def __call__(self, messages, tool_schemas):
        self.requests.append(copy.deepcopy((messages, tool_schemas)))
        if not self.turns:
            raise AssertionError(f"the script has no turn for request {len(self.requests)}")
        turn = self.turns.pop(0)
        if isinstance(turn, BaseException):
            raise turn  # the request itself fails (server down, model missing)
        return self._stream(turn)

    def _stream(self, turn):
        try:
            for chunk in turn:
                if isinstance(chunk, BaseException):
                    raise chunk  # a failure mid-stream, after the chunks before it
                if callable(chunk):
                    chunk()  # a step between chunks, such as advancing a test clock
                    continue
                yield copy.deepcopy(chunk)
        except GeneratorExit:
            self.closed_streams += 1
            raise
