"""Small user repositories in temporary folders, for fix.py's tests: a package with a failing
test, the state of a whole tree (to prove it did not change), and a virtual environment made of
a link and two files.

What this file deliberately is not: fix.py's own reading of a repository (fixing/repo.py).
"""
import os
import site
import stat
import subprocess
import sys
from pathlib import Path

from testing.scripted import call
from workspace.files import fingerprint

OPS = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
OPS_FIXED = OPS.replace("a - b", "a + b")
TEST_OPS = ("from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
            "def test_mul():\n    assert mul(2, 3) == 6\n")
# A package with a src/ layout that its own pytest configuration puts on the path.
PROJECT = {"pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
           "src/calc/__init__.py": "", "src/calc/ops.py": OPS, "tests/test_ops.py": TEST_OPS}
ADD_FIX = call("replace_text", old="return a - b", new="return a + b")


def make_project(root, files=PROJECT, git=True, links=None):
    """Write `files` under `root` and make `links` ({path: where it points}); with `git`, commit
    them as a user would have."""
    root = Path(root)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text if isinstance(text, bytes) else text.encode())
    for path, points_to in (links or {}).items():
        os.symlink(points_to, root / path)
    if git:
        for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                        "-c", "commit.gpgsign=false", "commit", "-qm", "start"]):
            subprocess.run(["git", "-C", str(root), *command], check=True, capture_output=True)
    return root


def tree_state(root):
    """Every file, link and folder under `root` (.git included): kind, mode and content hash."""
    state = {}
    for here, folders, files in os.walk(root):
        for name in folders + files:
            path = os.path.join(here, name)
            info = os.lstat(path)
            kind = "link" if os.path.islink(path) else "folder" if os.path.isdir(path) else "file"
            digest = os.readlink(path) if kind == "link" else fingerprint(path) if kind == "file" else ""
            state[os.path.relpath(path, root)] = (kind, stat.S_IMODE(info.st_mode), digest)
    return state


def fake_venv(folder, packages=True, paths=()):
    """A virtual environment of this interpreter made of a link and two small files: bin/python,
    pyvenv.cfg, and a path file in its site-packages that names this environment's packages
    (without `packages`: nothing is installed, not even pytest) and `paths` (an editable install)."""
    folder = Path(folder)
    (folder / "bin").mkdir(parents=True)
    os.symlink(sys.executable, folder / "bin" / "python")
    home = Path(sys.base_prefix) / "bin"
    (folder / "pyvenv.cfg").write_text(f"home = {home}\ninclude-system-site-packages = false\n")
    packages_folder = folder / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    packages_folder.mkdir(parents=True)
    lines = [*(site.getsitepackages() if packages else []), *map(str, paths)]
    (packages_folder / "links.pth").write_text("".join(f"{line}\n" for line in lines))
    return folder / "bin" / "python"


CLAMP = "def clamp(value, low, high):\n    return max(low, min(value, high - 1))\n"
CLAMP_FIXED = CLAMP.replace("high - 1", "high")
TEST_CLAMP = ("from biglib.core import clamp\n\n\ndef test_inside():\n    assert clamp(2, 0, 3) == 2\n\n\n"
              "def test_above():\n    assert clamp(5, 0, 3) == 3\n")


def big_module(size):
    """A module of `size` bytes or a little more, as real libraries keep much of their code: many
    small functions, and last the buggy `clamp` (past what read_file shows of it)."""
    helpers, total, number = [], 0, 0
    while total < size - len(CLAMP):
        helper = f'def scale_{number:05d}(value):\n    """Scale by {number}."""\n    return value * {number}\n\n\n'
        helpers.append(helper)
        total, number = total + len(helper), number + 1
    return "".join(helpers) + CLAMP


def big_library(core):
    """A library whose tests fail in `core` (biglib/core.py's text), beside a small script no
    test uses (the file fix.py once chose instead of a module too big for it)."""
    return {"biglib/__init__.py": "", "biglib/core.py": core, "tests/test_core.py": TEST_CLAMP,
            "benchmarks/bench_sum.py": "import timeit\n\nprint(timeit.timeit('sum(range(100))', number=1000))\n"}
