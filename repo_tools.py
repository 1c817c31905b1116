"""The three allowlisted tools the model may call, their JSON schemas, and nothing else.

`RepoTools(root)` works on one copy of the sample: `read_file` reads the two allowlisted
files, `replace_text` edits `path_rules.py` by exact, unique match, and `run_tests` runs a
fixed pytest command in a sandbox (see sandbox.py) with a clean environment and bounds on
time, output and memory.

What this file deliberately is not: a shell, a general file API, or a judge of the model's
claims. Tool problems raise ValueError / TypeError / OSError; the loop turns them into
`{"error": ...}` results the model can read.
"""
import os
import re
import sys
import tempfile
from pathlib import Path

import sandbox
from bounded_run import run_bounded

READABLE = ("path_rules.py", "tests/test_path_rules.py")
EDITABLE = "path_rules.py"
OUTPUT_CHARS = 4000
MAX_FILE_BYTES = 100_000  # the sample's files are tiny; a huge one would flood the context
# A fixed command: no bytecode, no cache, no config from parent folders, only tests/.
PYTEST_ARGS = ("-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull,
               "--rootdir", ".", "tests")
# Nothing inherited: API keys, tokens and PYTHON* settings stay outside.
CLEAN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
             "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


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
        command = [sys.executable, *PYTEST_ARGS]
        if self.sandbox == "bubblewrap":
            sandbox.prepare_workspace(self.root)
            command = sandbox.wrap(command, self.root)
        env = {**CLEAN_ENV, "HOME": str(self.root)}
        limits = sandbox.resource_limits(cpu_seconds=int(self.test_timeout) + 5)
        exit_code, output, timed_out = run_bounded(command, self.root, env, self.test_timeout, limits)
        output = _portable(output, self.root)[-OUTPUT_CHARS:]
        result = {"exit_code": exit_code, "output": output, **_counts(output),
                  "timed_out": timed_out, "sandbox": self.sandbox}
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


def _portable(output, root):
    """The same code gives the same output wherever it runs, so recordings replay exactly:
    pytest's closing "in 0.05s" goes (the model needs counts, not seconds), and the paths
    of this copy and this interpreter become relative or named."""
    output = re.sub(r" in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?$", "", output, flags=re.M)
    output = output.replace(f"{root}/", "")
    if sys.prefix != sys.base_prefix:
        output = output.replace(sys.prefix, "<venv>")
    return output.replace(sys.base_prefix, "<python>")


def _counts(output):
    """Parse pytest's closing summary line ("1 failed, 3 passed") into counts."""
    for line in reversed(output.splitlines()):
        if re.fullmatch(r"\d+ \w+(, \d+ \w+)*", line.strip()):
            counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", line)}
            errors = counts.get("errors", counts.get("error", 0))  # "1 error", "2 errors"
            return {"passed": counts.get("passed", 0), "failed": counts.get("failed", 0), "errors": errors}
    return {"passed": 0, "failed": 0, "errors": 0}
