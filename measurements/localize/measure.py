"""How long localization's coverage run adds, and where it ranks the function a repair edits:
on every task in tasks/ (the solution's edit names the function), and on the real libraries
measurements/fix-libraries/prepare.py prepares (fix.py against the loopback fake server, whose
one scripted turn ends the run; the injected bug's line names the function).

    python measurements/localize/measure.py [DEST]   # DEST: prepared libraries (default /tmp/fix-libraries)

What this file deliberately is not: part of coding-loop (nothing imports it, the suite never runs
it) or a measurement of a model: no model is asked.
"""
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "measurements" / "fix-libraries"))

from localizing.definitions import definitions, enclosing  # noqa: E402
from localizing.ranking import localize  # noqa: E402
from repo_tools import RepoTools  # noqa: E402
from workspace.task_catalog import fresh_copy, load_task, task_names  # noqa: E402


def rank_of(ranked, path, name):
    return next((n for n, item in enumerate(ranked, 1) if (item["path"], item["name"]) == (path, name)), None)


def solution_function(task, root):
    """(path, name) of the definition the solution's first edit is in."""
    edit = json.loads((task.folder / "solution.json").read_text())["edits"][0]
    line = (root / edit["path"]).read_text().split(edit["old"])[0].count("\n") + 1
    found = enclosing(definitions(root, edit["path"]), line)
    return edit["path"], found.name if found else None


def tasks():
    rows = []
    for name in task_names():
        task = load_task(name)
        with tempfile.TemporaryDirectory() as folder:
            tools = RepoTools(fresh_copy(task, folder), task=task)
            start_started = time.perf_counter()
            start = tools.run_tests()
            start_s = time.perf_counter() - start_started
            found = localize(tools, start)
            where = solution_function(task, tools.root)
        rows.append((name, start_s, found["coverage"], rank_of(found["ranked"], *where), where[1]))
        print(f"{name:24} start {start_s:5.2f} s; coverage {found['coverage']}; the fixed function "
              f"{where[1]} ranks {rows[-1][3]}", flush=True)
    ran = [float(r[2].split()[2]) for r in rows if r[2].startswith("ran in")]
    print(f"tasks: {len(rows)}; coverage ran on {len(ran)}, {sum(ran):.1f} s in all, mean {sum(ran) / max(len(ran), 1):.2f} s "
          f"(the start runs: mean {sum(r[1] for r in rows) / len(rows):.2f} s); fixed function ranked 1st on "
          f"{sum(r[3] == 1 for r in rows)}, top 3 on {sum(bool(r[3]) and r[3] <= 3 for r in rows)}, top 8 on "
          f"{sum(bool(r[3]) for r in rows)}")


def libraries(dest):
    import fix
    from prepare import LIBRARIES
    from testing.fake_ollama import FakeOllama
    from testing.scripted import done, text
    for name, library in LIBRARIES.items():
        repo = Path(dest) / name
        if not repo.is_dir():
            print(f"{name}: not prepared in {dest}")
            continue
        with FakeOllama() as server, tempfile.TemporaryDirectory() as out:
            server.play([text("I cannot tell."), done()])
            printed = io.StringIO()
            started = time.perf_counter()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
                fix.main(["--repo", str(repo), "--tests", library.tests, "--host", server.url,
                          "--output", f"{out}/run.json", "--max-turns", "1", "--candidates", "1"])
            seconds = time.perf_counter() - started
            found = json.loads(Path(f"{out}/run.json").read_text()).get("localization", {})
        diff = subprocess.run(["git", "-C", str(repo), "diff", "-U0", "HEAD~1"], capture_output=True, text=True).stdout
        line = int(diff.split("@@ ")[1].split("+")[1].split(",")[0].split()[0])
        bug = enclosing(definitions(repo, library.path), line)
        rank = rank_of(found.get("ranked") or [], library.path, bug.name if bug else None)
        print(f"{name}: coverage {found.get('coverage')}; fix.py {seconds:.1f} s in all; the buggy function "
              f"{bug.name if bug else None} ranks {rank}; top 3: "
              f"{[item['name'] for item in (found.get('ranked') or [])[:3]]}", flush=True)


if __name__ == "__main__":
    tasks()
    libraries(sys.argv[1] if len(sys.argv) > 1 else "/tmp/fix-libraries")
