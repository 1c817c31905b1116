"""What a big module costs the harness, by size: the measurement behind the limit in
workspace/file_limits.py (issue 38). No model: a module of small functions is generated in a
temporary folder (never committed), then read, parsed, fingerprinted, edited by replace_text's
steps, diffed, and edited by a one-function block (loop/text_edits.py), each timed once; and
the memory ast.parse takes (each size in a process of its own). Run from the project's root:

    python measurements/big-modules/measure.py 0.15 1 2 4 5
"""
import ast
import difflib
import hashlib
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from loop.text_edits import find_text_edits  # noqa: E402 - after the path above
from workspace.files import write_atomic  # noqa: E402

HELPER = '''def method_{n:05d}(self, value, *, strict=False):
    """Return the value converted, checked when strict."""
    if strict and not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {{type(value).__name__}}")
    return self.scale * value + {n}


'''


def module(size):
    parts, total = [], 0
    while total < size:
        parts.append(HELPER.format(n=len(parts)))
        total += len(parts[-1])
    return "".join(parts), len(parts) - 1


def timed(function):
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def measure(megabytes):
    text, last = module(int(megabytes * 1_000_000))
    path = Path(tempfile.mkdtemp(prefix="big-module-")) / "big.py"
    path.write_text(text)
    row = {"read": timed(lambda: path.read_bytes().decode("utf-8"))[0]}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    row["parse"] = timed(lambda: ast.parse(text))[0]
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024  # only a new peak shows
    row["sha256"] = timed(lambda: hashlib.sha256(path.read_bytes()).hexdigest())[0]
    old, new = f"self.scale * value + {last}\n", f"self.scale * value - {last}\n"
    head, _, tail = text.partition(old)
    row["replace"] = timed(lambda: write_atomic(path, (head + new + tail).encode()))[0]
    after = path.read_text()
    row["diff"] = timed(lambda: "".join(difflib.unified_diff(text.splitlines(True), after.splitlines(True))))[0]
    block = f"```python\ndef method_{last:05d}(self, value):\n    return value\n```\n"
    row["block edit"] = timed(lambda: find_text_edits(block, {"big.py": text}))[0]
    lines = text.count("\n")
    print(f"{megabytes:>5} MB {lines:>7} lines: " + ", ".join(f"{k} {v:.3f} s" for k, v in row.items())
          + f", parse peak +{grown:.0f} MB")


if __name__ == "__main__":
    if len(sys.argv) == 2:
        measure(float(sys.argv[1]))
    else:  # one process per size: a process's memory peak only grows
        for size in sys.argv[1:] or ["0.15", "1", "2", "4", "5"]:
            subprocess.run([sys.executable, __file__, size], check=True)
