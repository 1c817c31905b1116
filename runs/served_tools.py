"""Tools for a served replay: each call is answered with its recorded result; nothing runs.

`replay.py --served` (and `replay(path, served=True)`) checks the loop's own behaviour over a
recording without a subprocess: `ServedTools` hands back the recorded result of each call, in
order, and keeps the task's files in memory (pristine, then edited as each served
`replace_text` says), so a loop that reads them (context="preload", edits written as text)
sees what the recorded run saw.

What this file deliberately is not: a tool. It cannot answer a call the recording never made.
"""
from repo_tools import schemas_for
from runs.recording_file import plain_copy
from runs.replay_check import RequestDrift
from workspace.file_limits import read_slice


class ServedTools:
    """Tools that answer each call with its recorded result, in order; nothing runs. The schemas
    are today's for the recording's task (`task`: replay.py's open_recording finds it), so a
    changed schema shows up as drift. The files are kept in memory, pristine at the start and edited as
    each served replace_text says, so the loop can read them (context="preload", edits written
    as text) without any file system."""

    def __init__(self, recording, task):
        self.task = task
        self.schemas = schemas_for(self.task)
        self.files = {path: (self.task.repo / path).read_bytes().decode("utf-8", errors="replace")
                      for path in self.task.readable if (self.task.repo / path).is_file()}
        starts = {(e.get("turn"), e.get("index"), bool(e.get("by_harness"))): e
                  for e in recording["events"] if e["type"] == "tool_start"}
        self.queue = [(starts.get((e.get("turn"), e.get("index"), bool(e.get("by_harness"))), {}), e["result"])
                      for e in recording["events"] if e["type"] == "tool_result"]

    def invoke(self, name, arguments, *, time_left=None, only=None):
        # Calls the loop refused never reach us, so skip recorded results until this call's.
        # `only`: a harness run narrowed to node ids (check_first) is served only for the same ids.
        while self.queue:
            start, result = self.queue.pop(0)
            if (start.get("name") == name and start.get("arguments") == arguments
                    and start.get("only") == (None if only is None else list(only))):
                if name == "replace_text" and "replaced" in result:
                    self._edit(arguments)
                return plain_copy(result)
        selection = "" if only is None else f" on {len(only)} selected test(s)"
        raise RequestDrift(f"{name}({arguments}){selection} was never called in the recording")

    def read_file(self, path):
        """What RepoTools.read_file returns of the file as it is now: a big one's first lines."""
        return read_slice(path, self.file_text(path))

    def file_text(self, path):
        """The whole text, as RepoTools.file_text reads it (edits written as text need it)."""
        if path not in self.files:
            raise ValueError(f"{path!r} is not allowed here")
        return self.files[path]

    def _edit(self, arguments):
        path = arguments.get("path") or self.task.editable[0]
        self.files[path] = self.files[path].replace(arguments["old"], arguments["new"], 1)
