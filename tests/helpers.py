"""What the offline suite shares: the sample's repair, a loop runner that checks every run's
contract, small event filters, and probes of the process table and the network.

What this file deliberately is not: a fixture module (conftest.py holds the fixtures) or a
test file; no test file imports another test file, they all import from here.
"""
import contextlib
import json
import os
import shutil
import site
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest

from agent_loop import agent_events
from repo_tools import schemas_for
from testing.scripted import call
from workspace.files import fingerprint
from workspace.task_catalog import load_task, solution_edits

SAMPLE = load_task()  # the card's sample task, path_rules
SCHEMAS = schemas_for(SAMPLE)  # its tool schemas
# The one-line repair of the sample (normalise Windows separators before splitting), from
# tasks/path_rules/solution.json: one definition for every test and script.
(_FIX,) = solution_edits(SAMPLE)
FIX_OLD, FIX_NEW = _FIX["old"], _FIX["new"]


FIX = call("replace_text", old=FIX_OLD, new=FIX_NEW)

TASK = "Make the failing test in tests/test_path_rules.py pass."
# The quickest real tool call, for tests that are about the loop rather than about pytest.
READ = call("read_file", path="path_rules.py")


def run(chat, tools, **options):
    """Run the loop to the end and check what every run must satisfy."""
    events = list(agent_events(chat, tools, TASK, **options))
    stops = [event for event in events if event["type"] == "stopped"]
    assert len(stops) == 1 and events[-1] is stops[0], "exactly one stopped event, last"
    json.dumps(events)  # plain, JSON-serialisable dicts
    return events


def of_type(events, kind):
    return [event for event in events if event["type"] == kind]


def results(events):
    return [event["result"] for event in of_type(events, "tool_result")]


def write_probe(workspace, body):
    """Replace the sample's tests with one test whose body is `body`: code we run through
    run_tests to see what the sandbox lets through (it is ours, not the model's)."""
    (workspace / "tests/test_path_rules.py").unlink()
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    (workspace / "tests/test_probe.py").write_text(
        f"import os, socket, sys, time, subprocess\n\n\ndef test_probe():\n{lines}\n")


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # bound, then closed: nothing listens there



def running_with(marker):
    """Processes on this machine whose command line holds `marker` (sandboxed ones included:
    the host sees every PID namespace)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except OSError:
            continue
    return found


def gone_soon(marker, seconds=3.0):
    """True once no process carries `marker` (a SIGKILL takes a moment to land)."""
    ends = time.monotonic() + seconds
    while running_with(marker):
        if time.monotonic() > ends:
            return False
        time.sleep(0.05)
    return True


@contextlib.contextmanager
def watching(marker):
    """Poll the process table while the block runs; the list gets True once `marker` was seen,
    so a test can tell "killed" from "never started"."""
    seen, stop = [], threading.Event()

    def poll():
        while not stop.is_set() and not seen:
            if running_with(marker):
                seen.append(True)
            stop.wait(0.05)
    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()


def grandchild(marker, escape=False):
    """Test code that starts a long-lived grandchild tagged with `marker`."""
    session = ", start_new_session=True" if escape else ""
    return (f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}']{session})\n"
            f"time.sleep(0.2)\n")




# --- fix.py: small user repositories in temporary folders --------------------------------------

OPS = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
OPS_FIXED = OPS.replace("a - b", "a + b")
TEST_OPS = ("from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
            "def test_mul():\n    assert mul(2, 3) == 6\n")
# A package with a src/ layout that its own pytest configuration puts on the path.
PROJECT = {"pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
           "src/calc/__init__.py": "", "src/calc/ops.py": OPS, "tests/test_ops.py": TEST_OPS}
ADD_FIX = call("replace_text", old="return a - b", new="return a + b")


def make_project(root, files=PROJECT, git=True):
    """Write `files` under `root`; with `git`, commit them as a user would have."""
    root = Path(root)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text if isinstance(text, bytes) else text.encode())
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


# --- a real browser (Debian's chromium, driven through its own CLI) ---------------------------

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (apt-get install -y chromium); CI must have it")


def chromium(page, folder, *flags):
    """One headless launch: the DOM after rendering, a screenshot, the console (where chromium
    reports what the page's Content-Security-Policy refused), the seconds taken."""
    shot = folder / "shot.png"
    started = time.monotonic()
    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         # chromium still calls Google services on its own; with no name resolving, nothing leaves.
         "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={folder / 'profile'}",
         "--enable-logging=stderr", "--v=0", "--window-size=1200,900", f"--screenshot={shot}", *flags,
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, shot.read_bytes(), run.stderr, time.monotonic() - started


def png_pixels(data):
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG with the stdlib: rows of RGB bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    chunks, pos = {}, 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunks.setdefault(kind, []).append(data[pos + 8:pos + 8 + length])
        pos += 12 + length  # length, type, body, CRC
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    assert depth == 8 and colour in (2, 6) and interlace == 0, "only 8-bit RGB(A) is handled"
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks[b"IDAT"])), width * bpp + 1
    rows, previous = [], bytes(width * bpp)
    for y in range(height):
        previous = _unfilter(raw[y * stride], raw[y * stride + 1:(y + 1) * stride], previous, bpp)
        rows.append(previous if bpp == 3 else b"".join(previous[i:i + 3] for i in range(0, len(previous), 4)))
    return width, height, rows


def _unfilter(kind, line, up, bpp):
    """Undo one scanline's PNG filter (0 none, 1 sub, 2 up, 3 average, 4 Paeth)."""
    if kind == 0:
        return line
    if kind == 2:  # bytewise add without carries, on whole rows as big integers: fast
        n, a, b = len(line), int.from_bytes(line, "big"), int.from_bytes(up, "big")
        low, high = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
        return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(n, "big")
    out = bytearray(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        if kind == 1:
            out[i] = (out[i] + left) & 255
        elif kind == 3:
            out[i] = (out[i] + (left + up[i]) // 2) & 255
        else:
            corner = up[i - bpp] if i >= bpp else 0
            p = left + up[i] - corner
            pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
            out[i] = (out[i] + (left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner)) & 255
    return bytes(out)
