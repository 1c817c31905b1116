"""The three allowlisted tools the model may call, their JSON schemas, and nothing else.

`RepoTools(root)` works on one copy of the sample: `read_file` reads the two allowlisted
files, `replace_text` edits `path_rules.py` by exact, unique match, and `run_tests` runs a
fixed pytest command as untrusted code (see pytest_run.py and sandbox.py).

What this file deliberately is not: a shell, a general file API, or a judge of the model's
claims. Tool problems raise ValueError / TypeError / OSError; the loop turns them into
`{"error": ...}` results the model can read.
"""
import os
import tempfile
from pathlib import Path

import sandbox
from pytest_run import run_pytest

READABLE = ("path_rules.py", "tests/test_path_rules.py")
EDITABLE = "path_rules.py"
MAX_FILE_BYTES = 100_000  # the sample's files are tiny; a huge one would flood the context


def _schema(name, description, **properties):
    # Flat on purpose: the Ollama SDK silently strips nested JSON-schema keywords.
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "required": list(properties),
        "properties": {key: {"type": "string", "description": text} for key, text in properties.items()}}}}


SCHEMAS = [
    _schema("read_file", "Read one repository file and return its text.",
            path="path_rules.py or tests/test_path_rules.py"),
    _schema("replace_text", "Replace text that occurs exactly once in path_rules.py.",
            old="the exact current text to replace, copied from the file", new="the replacement text"),
    _schema("run_tests", "Run the repository's tests with pytest; exit_code 0 means they all pass."),
]


class RepoTools:
    schemas = SCHEMAS

    def __init__(self, root, *, test_timeout=15.0, sandbox_mode="auto"):
        """sandbox_mode: "auto" (bubblewrap where it works), "require" (raise if it does not), "none"."""
        if sandbox_mode not in ("auto", "require", "none"):
            raise ValueError(f"sandbox_mode must be 'auto', 'require' or 'none', not {sandbox_mode!r}")
        self.root = Path(root).resolve()
        self.test_timeout = test_timeout
        self.sandbox, self.sandbox_warning = ("none", "sandbox turned off") if sandbox_mode == "none" else sandbox.detect()
        if sandbox_mode == "require" and self.sandbox == "none":
            raise OSError(f"a sandbox is required but unavailable: {self.sandbox_warning}")
        # An explicit table, so a model can never reach any other attribute by name.
        self._tools = {"read_file": self.read_file, "replace_text": self.replace_text, "run_tests": self.run_tests}

    def invoke(self, name, arguments):
        """Check the arguments against the tool's schema, then run it."""
        if name not in self._tools:
            raise ValueError(f"unknown tool {name!r}")
        parameters = next(s["function"]["parameters"] for s in SCHEMAS if s["function"]["name"] == name)
        expected = set(parameters["properties"])
        unexpected, missing = sorted(set(arguments) - expected), sorted(set(parameters["required"]) - set(arguments))
        if unexpected or missing:
            raise TypeError(f"{name} takes {sorted(expected) or 'no arguments'}; "
                            f"unexpected: {unexpected}, missing: {missing}")
        for key, value in arguments.items():
            if not isinstance(value, str):
                raise TypeError(f"{name}: argument {key!r} must be a string, got {type(value).__name__}")
        return self._tools[name](**arguments)

    def read_file(self, path):
        """Return the text of one allowlisted file."""
        return {"path": self._relative(path), "text": self._resolve(path).read_text(encoding="utf-8")}

    def replace_text(self, old, new):
        """Replace `old` with `new` in path_rules.py when `old` occurs exactly once."""
        target = self._resolve(EDITABLE)
        text = target.read_text(encoding="utf-8")
        if not old:
            raise ValueError("old must be non-empty text copied from path_rules.py")
        count = text.count(old)
        if count != 1:
            found = "not found" if count == 0 else f"found {count} times"
            raise ValueError(f"old text {found} in {EDITABLE}; it must match exactly once. "
                             "Read the file again and copy the text exactly, with enough context to be unique.")
        write_atomic(target, text.replace(old, new, 1))
        return {"path": EDITABLE, "replaced": 1}

    def run_tests(self):
        """Run the fixed pytest command and return its exit code, counts and output tail."""
        result = {**run_pytest(self.root, self.test_timeout, self.sandbox), "sandbox": self.sandbox}
        if self.sandbox_warning:
            result["sandbox_warning"] = self.sandbox_warning
        return result

    def _resolve(self, path):
        """Resolve an allowlisted path, refusing anything that lands outside the root."""
        relative = self._relative(path)
        resolved = (self.root / relative).resolve()  # follows symlinks, so a link out is caught
        if not resolved.is_relative_to(self.root) or resolved.relative_to(self.root).as_posix() != relative:
            raise ValueError(f"{path!r} resolves outside the repository; refused")
        # Tested code may have swapped the file for a FIFO (reads would hang) or a huge file.
        if not resolved.is_file() or resolved.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"{path!r} is not a regular file under {MAX_FILE_BYTES} bytes; refused")
        return resolved

    def _relative(self, path):
        if os.path.isabs(path) or ".." in Path(path).parts:
            raise ValueError(f"{path!r} must be a relative path inside the repository")
        relative = Path(path).as_posix()
        if relative not in READABLE:
            raise ValueError(f"{path!r} is not readable; allowed files: {', '.join(READABLE)}")
        return relative


def write_atomic(path, text):
    """Write text to a temp file beside `path`, then rename: readers never see half a file."""
    path = Path(path)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temp, mode)  # mkstemp makes 0600; keep the file's own mode
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise

