"""Run the sample's tests as untrusted code: one fixed pytest command, bounded in every way.

`run_pytest(root, ...)` runs the command on a throwaway copy of `root` (nothing a test run
writes survives it), in a clean environment, inside the sandbox when there is one (sandbox.py
builds that command line), with resource limits, a timeout that kills the whole process
group, and only the head and tail of the output kept; then it reads the counts from
pytest's summary line (pytest_output.py reads every part of the output). A `PytestCommand` says which interpreter and arguments: the tasks'
fixed one by default; fix.py builds a user's project's own (fixing/project_pytest.py).
`run_in_copy(...)` is the same guarded run of another entry point than `-m pytest` (the
coverage run of localizing/coverage_run.py), its output kept whole up to run_bounded's ends.

What this file deliberately is not: a general process runner. Nothing in the command comes
from the model.
"""
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from workspace import sandbox
from workspace.files import remove_tree
from workspace.pytest_output import counts

OUTPUT_CHARS = 4000
RUNNING = set()  # the process groups of the test runs under way (a search runs several, in threads)
HEAD_CHARS = 1000    # pytest's first lines (collection errors) matter as much as its summary
KEEP_BYTES = 16_000  # enough for 4,000 characters of any UTF-8 text, at each end
# A fixed command: no bytecode, no cache, no config and no conftest.py from parent folders
# (with `-c /dev/null` alone, pytest would load a conftest.py from any folder above the copy),
# only tests/.
PYTEST_ARGS = ("-q", "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", ".", "--confcutdir", ".", "tests")
# Nothing inherited: API keys, tokens and PYTHON* settings stay outside.
CLEAN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
             "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
# Inside the sandbox the run starts in an empty tmpfs: copy the read-only workspace in (entry
# by entry: the tmpfs root itself is not ours to chmod), then become `python -B -m pytest`
# (or the entry point the arguments name: COPY_THEN_RUN).
# This runs before any tested code, as the sandboxed user, without `site` (-S): the interpreter
# that runs pytest starts only once the copy is there, so a path file (.pth) of an editable
# install that points into the copy finds it.
COPY_THEN_PYTEST = """import os, shutil, sys
for name in os.listdir(sys.argv[1]):
    source = os.path.join(sys.argv[1], name)
    if os.path.isdir(source) and not os.path.islink(source):
        shutil.copytree(source, name, symlinks=True)
    else:
        shutil.copy2(source, name, follow_symlinks=False)
os.execv(sys.executable, [sys.executable, "-B", "-m", "pytest", *sys.argv[2:]])"""
COPY_THEN_RUN = COPY_THEN_PYTEST.replace('"-m", "pytest", ', "")  # `python -B <argv[2:]>`: any entry point


@dataclass(frozen=True)
class PytestCommand:
    """Which interpreter runs pytest, with which arguments and environment. The default is the
    tasks' fixed command; a task may bring its own (fix.py: a user's project, its way)."""
    python: str = sys.executable
    args: tuple = PYTEST_ARGS
    env: tuple = ()        # (name, value) pairs: the whole environment (default CLEAN_ENV; HOME is the copy)
    places: tuple = ()     # folders the interpreter needs, mounted read-only in the sandbox
    inside: str = None     # where the copy appears inside the sandbox (default: where it is)
    timeout: float = None  # seconds a run may take (None: the tools' own)


def run_pytest(root, timeout, sandbox_name, command=None):
    """Return {"exit_code", "output", "passed", "failed", "errors", "timed_out"} for `root`."""
    exit_code, output, dropped, timed_out, where = run_in_copy(root, timeout, sandbox_name, command)
    output = _shorten(_portable(output, where), dropped)
    return {"exit_code": exit_code, "output": output, **counts(output), "timed_out": timed_out}


def run_in_copy(root, timeout, sandbox_name, command=None, entry=None):
    """(exit_code, output, dropped, timed_out, where it ran) of `python -B <entry> <command.args>`
    on a throwaway copy of `root`, with every guard of a test run; `entry` (None: `-m pytest`)
    is fixed code of the harness, never the model's."""
    command = command or PytestCommand()
    limits = sandbox.resource_limits(cpu_seconds=int(timeout) + 5)
    if sandbox_name == "bubblewrap":
        where = command.inside or root
        start = ["-c", COPY_THEN_PYTEST] if entry is None else ["-c", COPY_THEN_RUN, *entry]  # pytest's line unchanged
        argv = sandbox.wrap([command.python, "-B", "-S", *start[:2], sandbox.SOURCE, *start[2:], *command.args],
                            root, command.places, command.inside)
        return (*run_bounded(argv, root, _env(where, command), timeout, limits), where)
    scratch = tempfile.mkdtemp(prefix="coding-loop-tests-")  # no sandbox: a temporary folder, removed after
    try:
        where = shutil.copytree(root, os.path.join(scratch, "repo"), symlinks=True)
        argv = [command.python, "-B", *(entry or ("-m", "pytest")), *command.args]
        return (*run_bounded(argv, where, _env(where, command), timeout, limits), where)
    finally:
        remove_tree(scratch)


def _env(home, command):
    return {**(dict(command.env) or CLEAN_ENV), "HOME": str(home)}


def _shorten(output, dropped=0):
    """Keep the head and the tail, and say how much was cut from the middle (`dropped`
    characters were never kept at all: a run that printed megabytes)."""
    if len(output) <= OUTPUT_CHARS and not dropped:
        return output
    marker = "\n[... {} characters cut ...]\n"
    tail = OUTPUT_CHARS - HEAD_CHARS - len(marker.format(len(output) + dropped))
    cut = len(output) - HEAD_CHARS - tail + dropped
    return output[:HEAD_CHARS] + marker.format(cut) + output[-tail:]


def run_bounded(command, cwd, env, timeout, limits):
    """Return (exit_code, output, dropped, timed_out) for `command`: the output's first and
    last KEEP_BYTES as text, and how many bytes between them were not kept."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,  # its own group, so we can kill all of it
        preexec_fn=lambda: sandbox.apply_limits(limits))
    RUNNING.add(process.pid)
    kept, done_reading = {"head": bytearray(), "tail": bytearray(), "cut": 0}, threading.Event()
    reader = threading.Thread(target=_keep_ends, args=(process.stdout, kept, done_reading), daemon=True)
    reader.start()
    # Wait in a thread: Popen.wait(timeout) polls (up to 50 ms late), an Event does not. The
    # thread waits without reaping (WNOWAIT), so the group id cannot be reused before the kill.
    exited = threading.Event()
    waiter = threading.Thread(target=lambda: (os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT),
                                              exited.set()), daemon=True)
    waiter.start()
    try:
        timed_out = not exited.wait(timeout)
    finally:
        # Kill the group even after a clean exit: a test may have left children running.
        _kill_group(process.pid)
        waiter.join()
        process.wait()
        RUNNING.discard(process.pid)
    # A child that escaped the group (it can, without the sandbox) may hold the pipe open:
    # read what comes for a moment, then stop reading, whatever it does.
    reader.join(timeout=0.5)
    done_reading.set()
    reader.join()
    process.stdout.close()
    text = (bytes(kept["head"]) + bytes(kept["tail"])).decode("utf-8", errors="replace")
    return process.returncode, text, kept["cut"], timed_out


def _keep_ends(pipe, kept, done_reading):
    # Read everything, keep only both ends: a test printing forever costs no memory. select()
    # with a short timeout, so the reader can be told to stop even when no byte ever comes.
    head, tail = kept["head"], kept["tail"]
    while not done_reading.is_set():
        if not select.select([pipe], [], [], 0.05)[0]:
            continue
        chunk = os.read(pipe.fileno(), 65536)
        if not chunk:
            return  # end of file: every writer has closed the pipe
        room = KEEP_BYTES - len(head)
        head += chunk[:room]
        tail += chunk[room:] if room > 0 else chunk
        if len(tail) > KEEP_BYTES:
            kept["cut"] += len(tail) - KEEP_BYTES
            del tail[:-KEEP_BYTES]


def kill_running():
    """Kill every test run of this process now (a stop: command_line/ctrl_c.py). A search runs tests in
    threads, which no signal reaches; each such run returns at once, killed."""
    for pid in list(RUNNING):
        _kill_group(pid)


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


def _portable(output, root):
    """The same code gives the same output wherever it runs, so recordings replay exactly:
    pytest's closing "in 0.05s" goes (the model needs counts, not seconds), and the paths
    of this copy and this interpreter become relative or named, and the memory addresses in
    object reprs (`<method 'strip' of str object at 0x7f...>`, different in every process) go."""
    # (A project's own `addopts` may ask for the long form: "=== 1 passed in 0.05s ===".)
    output = re.sub(r" in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?(?= =+$|$)", "", output, flags=re.M)
    output = re.sub(r" at 0x[0-9a-f]{4,16}>", " at 0x...>", output)
    output = output.replace(f"{root}/", "")
    if sys.prefix != sys.base_prefix:
        output = output.replace(sys.prefix, "<venv>")
    return output.replace(sys.base_prefix, "<python>")

