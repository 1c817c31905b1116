"""Run fix.py's defaults on prepared library bugs, one after another, against one model server.

    python measurements/fix-libraries/measure.py OUT [NAME ...] [-- FIX.PY FLAGS ...]

From a checkout of coding-loop (the one measured), after prepare.py put the bugs in
/tmp/fix-libraries. For each NAME (default: every entry of prepare.LIBRARIES) it runs

    .venv/bin/python fix.py --repo /tmp/fix-libraries/NAME [--tests ...] --api openai
        --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b --parallel 4
        --output OUT/NAME.json [FLAGS]

with no terminal (nothing is ever applied), keeps its terminal output in OUT/NAME.log and adds
one line to OUT/summary.tsv: name, fix.py's exit code, the verdict, the seconds it took.

What this file deliberately is not: part of coding-loop (nothing imports it, the suite never
runs it) or a judge: the verdict is the one fix.py wrote into the recording.
"""
import json
import subprocess
import sys
import time
from pathlib import Path

from prepare import LIBRARIES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SERVER = ["--api", "openai", "--base-url", "http://127.0.0.1:8080/v1", "--model", "qwen2.5-coder-1.5b",
          "--parallel", "4"]
LIMIT = 1800  # seconds: a run past this is killed, and its line says "timeout"


def main(argv):
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    args = argv[:argv.index("--")] if "--" in argv else argv
    out, names = Path(args[0]).resolve(), args[1:] or list(LIBRARIES)
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        started = time.time()
        code = run(name, out, flags)
        with open(out / "summary.tsv", "a") as summary:
            summary.write(f"{name}\t{code}\t{verdict(out / f'{name}.json')}\t{time.time() - started:.0f}\n")


def run(name, out, flags):
    library = LIBRARIES[name]
    tests = ["--tests", library.tests] if library.tests else []
    command = [str(ROOT / ".venv/bin/python"), "fix.py", "--repo", f"/tmp/fix-libraries/{name}", *tests, *SERVER,
               "--output", str(out / f"{name}.json"), *flags]
    with open(out / f"{name}.log", "w") as log:
        try:
            return subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=LIMIT).returncode
        except subprocess.TimeoutExpired:
            return "timeout"


def verdict(path):
    try:
        return json.loads(path.read_text())["verdict"]
    except (OSError, ValueError, KeyError, TypeError):
        return "no recording"


if __name__ == "__main__":
    main(sys.argv[1:])
