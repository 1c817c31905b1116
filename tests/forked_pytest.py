"""pytest runs forked from one warm interpreter: how tests/test_tasks.py runs every task's own
tests (48 runs) without paying pytest's import 48 times.

`ForkedPytest(env)` starts one `python -B` in `env` that imports pytest and waits. For each run
it forks a child that becomes what `python -B -m pytest ARGS` in that folder would be: the same
environment, the folder first on sys.path (as `-m` puts it), no bytecode written, standard input
empty, standard output and error to one file; the child ends with pytest's exit code. Children
of one request run at once; a child still running after `seconds` is ended by its own alarm.

Why a fork and not a fresh process: importing pytest is most of a small run (about 0.12 of 0.19
CPU-seconds), and a fork of a process that has imported pytest and nothing else starts where
a fresh `python -m pytest` would be after that import.

What this file deliberately is not: our runner (workspace/pytest_run.py, with its sandbox and
limits): test_tasks checks the tasks independently of it. Nothing here runs model-written code.
"""
import json
import subprocess
import sys
from pathlib import Path

SERVER = """import json, os, signal, sys, traceback
import pytest  # what every run would otherwise import again

def start(cwd, args, out, seconds):
    pid = os.fork()
    if pid:
        return pid
    code = 3
    try:
        output = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.chdir(cwd)
        sys.path[0] = cwd
        signal.alarm(seconds)
        code = int(pytest.main(list(args)))
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

for line in sys.stdin:
    pids = [start(**run) for run in json.loads(line)]
    print(json.dumps([os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]), flush=True)
"""


class ForkedPytest:
    """One warm interpreter; `run(args, runs, seconds)` -> [(exit_code, output)] per (cwd, out)."""

    def __init__(self, env):
        self.server = subprocess.Popen([sys.executable, "-B", "-c", SERVER], env=env, cwd="/",
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, args, folders, seconds):
        """Run `python -B -m pytest *args` in each folder at once; an exit code below 0 is the
        signal that ended the run (SIGALRM: it took longer than `seconds`)."""
        outputs = [Path(folder).parent / f"{Path(folder).name}.pytest-output" for folder in folders]
        runs = [{"cwd": str(folder), "args": list(args), "out": str(out), "seconds": int(seconds)}
                for folder, out in zip(folders, outputs)]
        self.server.stdin.write(json.dumps(runs) + "\n")
        self.server.stdin.flush()
        answer = self.server.stdout.readline()
        if not answer:
            raise RuntimeError("the warm interpreter ended: its traceback is in the test's captured output")
        codes = json.loads(answer)
        return [(code, out.read_text(encoding="utf-8", errors="replace")) for code, out in zip(codes, outputs)]

    def close(self):
        self.server.stdin.close()
        self.server.wait(timeout=30)
