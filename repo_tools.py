"""The three allowlisted tools the model may call, their JSON schemas, and nothing else.

`RepoTools(root, task=...)` works on one copy of a task's repository: `read_file` reads the
task's readable files (a big one by its first READ_CHARS: workspace/file_limits.py), `replace_text` edits an editable file by exact, unique match, and
`run_tests` runs a fixed pytest command as untrusted code on a throwaway copy (see
pytest_run.py and sandbox.py), so the workspace changes only through `replace_text`. The
harness alone may narrow `run_tests` to node ids (`only`, workspace/test_selection.py): the tests
that failed at the start, checked first; the model's schema has no such argument.

What this file deliberately is not: a shell, a general file API, or a judge of the model's
claims. Tool problems raise ValueError / TypeError / OSError; the loop turns them into
`{"error": ...}` results the model can read.
"""
import os
import stat
from pathlib import Path

from loop.line_endings import line_ending, with_line_ending
from loop.tool_checks import argument_problem, quoted
from workspace import sandbox
from workspace.file_limits import MAX_FILE_BYTES, READ_CHARS, read_slice  # noqa: F401 - the tools' limits
from workspace.files import write_atomic
from workspace.pytest_run import PytestCommand, run_pytest
from workspace.task_catalog import load_task
from workspace.test_selection import narrowed

# A library module of 100+ KB is answered by definitions (loop/context_defs.py shows the model a
# part, text_edits_defs.py reads back a method), so the tools read and edit one up to
# MAX_FILE_BYTES (workspace/file_limits.py, one rule for fix.py too); read_file shows READ_CHARS.
TEST_TIMEOUT = 15.0       # seconds per test run, unless the task's pytest command says otherwise


def _schema(name, description, **properties):
    # Flat on purpose: the Ollama SDK silently strips nested JSON-schema keywords.
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "required": list(properties),
        "properties": {key: {"type": "string", "description": text} for key, text in properties.items()}}}}


def schemas_for(task):
    """The tool schemas for one task: its file names are in the descriptions."""
    edit = {"old": "the exact current text to replace, copied from the file", "new": "the replacement text"}
    if len(task.editable) == 1:
        replace = _schema("replace_text", f"Replace text that occurs exactly once in {task.editable[0]}.", **edit)
    else:  # several editable files: the model names the one it edits
        replace = _schema("replace_text", "Replace text that occurs exactly once in one editable file.",
                          path=f"one of: {', '.join(task.editable)}", **edit)
    return [_schema("read_file", "Read one repository file and return its text.",
                    path=f"one of: {', '.join(task.readable)}"),
            replace,
            _schema("run_tests", "Run the repository's tests with pytest; exit_code 0 means they all pass.")]


def _no_match(relative, old, count):
    """Why `old` cannot be replaced, and what to do instead."""
    if count == 0 and "\ufffd" in old:
        # read_file shows bytes that are not UTF-8 as U+FFFD, but the file holds the bytes, not U+FFFD.
        return (f"old text not found in {relative}: U+FFFD (\ufffd) in what read_file shows stands for bytes "
                "that are not UTF-8, which cannot be matched; copy text beside them instead.")
    found = "not found" if count == 0 else f"found {count} times"
    return (f"old text {found} in {relative}; it must match exactly once. "
            "Read the file again and copy the text exactly, with enough context to be unique.")


class RepoTools:
    def __init__(self, root, *, task=None, test_timeout=None, sandbox_mode="auto"):
        """task: a workspace.task_catalog.Task (default: the sample's). test_timeout: seconds
        (default: the task's own pytest command's, else 15). sandbox_mode: "auto"
        (bubblewrap where it works), "require" (raise if it does not), "none"."""
        if sandbox_mode not in ("auto", "require", "none"):
            raise ValueError(f"sandbox_mode must be 'auto', 'require' or 'none', not {sandbox_mode!r}")
        self.root, self.task = Path(root).resolve(), task or load_task()
        self.schemas = schemas_for(self.task)
        own = getattr(self.task.pytest, "timeout", None)  # a task's own pytest command brings its timeout
        self.test_timeout = test_timeout if test_timeout is not None else own or TEST_TIMEOUT
        self.sandbox, self.sandbox_warning = ("none", "sandbox turned off") if sandbox_mode == "none" else sandbox.detect()
        if sandbox_mode == "require" and self.sandbox == "none":
            raise OSError(f"a sandbox is required but unavailable: {self.sandbox_warning}")
        # An explicit table, so a model can never reach any other attribute by name.
        self._tools = {"read_file": self.read_file, "replace_text": self.replace_text, "run_tests": self.run_tests}

    def invoke(self, name, arguments, *, time_left=None, only=None):
        """Check the arguments against the tool's schema, then run it. `time_left` (seconds)
        is what remains of the run's deadline: a tool gets no more than that. `only` (node ids)
        is the harness's own narrowing of run_tests (loop/judge.py), never the model's: no
        schema offers it, and the model's arguments cannot reach it."""
        schema = next((s for s in self.schemas if s["function"]["name"] == name), None)
        problem = f"unknown tool {quoted(name)}" if schema is None else argument_problem(schema, arguments)
        if problem:
            raise TypeError(problem)
        if name == "run_tests":
            return self.run_tests(time_left=time_left, only=only)
        if only is not None:
            raise TypeError(f"only the harness's run_tests takes a selection, not {quoted(name)}")
        return self._tools[name](**arguments)

    def read_file(self, path):
        """Return the text of one readable file (a byte that is not UTF-8 is shown as U+FFFD);
        of a file longer than READ_CHARS, its first lines, marked `truncated`, with a note."""
        return read_slice(self._relative(path, self.task.readable), self.file_text(path, self.task.readable))

    def file_text(self, path, allowed=None):
        """The whole text of a readable or editable file, as read_file decodes it: the harness's
        own read (an edit written as text is made against the whole file), never a tool."""
        allowed = allowed or (*self.task.readable, *self.task.editable)
        return self._read(path, allowed).decode("utf-8", errors="replace")

    def replace_text(self, old, new, path=None):
        """Replace `old` with `new` in an editable file when `old` occurs exactly once."""
        if path is None and len(self.task.editable) == 1:
            path = self.task.editable[0]
        if path is None:
            raise ValueError(f"say which file to edit: path is one of {', '.join(self.task.editable)}")
        relative = self._relative(path, self.task.editable)
        # Match on the file's own bytes: each byte that is not UTF-8 becomes a lone surrogate that
        # encodes back to the very same byte, so no byte outside the replaced span ever changes.
        text = self._read(relative, self.task.editable).decode("utf-8", "surrogateescape")
        if not old:
            raise ValueError(f"old must be non-empty text copied from {relative}")
        ending = line_ending(text)
        if ending:  # the file's own line endings, whatever the model wrote: no mixed endings
            old, new = with_line_ending(old, ending), with_line_ending(new, ending)
        if old == new:  # a real small model "edited" this way six times in a row, each time told it worked
            raise ValueError(f"old and new are the same, so nothing would change in {relative}; "
                             "write the corrected code in `new`")
        count = text.count(old)
        if count != 1:
            raise ValueError(_no_match(relative, old, count))
        before, _, after = text.partition(old)
        edited = (before.encode("utf-8", "surrogateescape") + new.encode("utf-8", "surrogatepass")
                  + after.encode("utf-8", "surrogateescape"))
        if len(edited) > MAX_FILE_BYTES:
            raise ValueError(f"the edit would make {relative} larger than {MAX_FILE_BYTES:,} bytes; refused")
        write_atomic(self.root / relative, edited)
        return {"path": relative, "replaced": 1}

    def run_tests(self, time_left=None, only=None):
        """Run the fixed pytest command on a throwaway copy; exit code, counts and output.
        `only`: node ids to run instead of the whole selection (workspace/test_selection.py)."""
        timeout = self.test_timeout if time_left is None else max(0.0, min(self.test_timeout, time_left))
        command = self.task.pytest
        if only is not None:  # read from the start run's output, which tests print: each must be a node id
            if not all(isinstance(node, str) and "::" in node and not node.startswith("-") for node in only):
                raise ValueError("only takes pytest node ids (path::name)")
            command = narrowed(command or PytestCommand(), tuple(only))
            if command is None:
                raise ValueError("this test command cannot be narrowed to node ids")
        result = {**run_pytest(self.root, timeout, self.sandbox, command), "sandbox": self.sandbox}
        if self.sandbox_warning:
            result["sandbox_warning"] = self.sandbox_warning
        return result

    def _read(self, path, allowed):
        """The bytes of an allowed file, refusing links out, odd files and huge ones."""
        relative = self._relative(path, allowed)
        try:
            resolved = (self.root / relative).resolve(strict=True)  # follows links, so a link out is caught
        except (OSError, RuntimeError) as error:  # missing, a link loop, a name too long
            raise ValueError(f"{quoted(path)} cannot be opened: {type(error).__name__}") from None
        if not resolved.is_relative_to(self.root) or resolved.relative_to(self.root).as_posix() != relative:
            raise ValueError(f"{quoted(path)} resolves outside the repository; refused")
        info = resolved.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:  # a FIFO would hang a read
            raise ValueError(f"{quoted(path)} is not a regular file of at most {MAX_FILE_BYTES:,} bytes; refused")
        return resolved.read_bytes()

    def _relative(self, path, allowed):
        if os.path.isabs(path) or ".." in Path(path).parts:
            raise ValueError(f"{quoted(path)} must be a relative path inside the repository")
        relative = Path(path).as_posix()
        if relative not in allowed:
            raise ValueError(f"{quoted(path)} is not allowed here; allowed files: {', '.join(allowed)}")
        return relative
