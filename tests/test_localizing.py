"""Localization from the tests (localizing/): the ranking on small real projects, with real
pytest and real coverage.py in the real sandbox; the coverage run skipped with its reason; the
ranking carried through a recording and its replay; hostile files that never crash it."""
import json
import os
import sys
from pathlib import Path

import pytest

import record_run
import replay as replay_module
from agent_loop import LoopSettings
from fixing.project_pytest import project_command
from localizing import coverage_run
from localizing.definitions import definitions
from localizing.ranking import localize, product_frames
from repo_tools import RepoTools
from runs import recording as recording_module
from runs.recording_file import load
from runs.recording_check import check_recording
from testing.scripted import call, done, text
from tests.helpers import FIX
from tests.user_repos import fake_venv
from workspace.task_catalog import Task, fresh_copy

STATS = '''def total(xs):
    return sum(xs)


def mean(xs):
    return total(xs) / len(xs)


def spread(xs):
    return max(xs) - min(xs)


def middle(xs):
    ordered = sorted(xs)
    return ordered[len(ordered) // 2 - 1]


class Report:
    def __init__(self, xs):
        self.xs = xs

    @property
    def line(self):
        return f"mean {mean(self.xs)}, spread {spread(self.xs)}"
'''
TEST_STATS = '''from stats import Report, mean, middle, spread, total


def test_total():
    assert total([1, 2, 3]) == 6


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_spread():
    assert spread([1, 5, 3]) == 4


def test_middle():
    assert middle([3, 1, 2]) == 2


def test_report():
    assert Report([1, 2, 3]).line == "mean 2.0, spread 2"
'''
# A raise three calls deep in the code, reached through a helper in the test's own file.
PARSE = '''def load(text):
    return parse(text)


def parse(text):
    return [number(part) for part in text.split(",")]


def number(part):
    return int(part)
'''
TEST_PARSE = '''from parse import load


def through_a_helper(text):
    return load(text)


def test_load():
    assert through_a_helper("1, 2;") == [1, 2]


def test_load_plain():
    assert load("1,2") == [1, 2]
'''


def project(tmp_path, files, readable):
    """A task of `files` (written to tmp_path/repo) and the tools of a fresh copy of it."""
    repo = tmp_path / "repo"
    for path, content in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(content)
    task = Task(name="stats", title="t", ticket="Fix it.", readable=tuple(readable),
                editable=tuple(p for p in readable if not p.startswith("tests/")), repo=repo)
    return RepoTools(fresh_copy(task, tmp_path / "copy"), task=task)


def test_the_buggy_function_ranks_first_among_functions_every_test_runs(tmp_path):
    tools = project(tmp_path, {"stats.py": STATS, "tests/test_stats.py": TEST_STATS},
                    ["stats.py", "tests/test_stats.py"])
    found = localize(tools, tools.run_tests())
    assert found["coverage"].startswith("ran in ")
    first = found["ranked"][0]
    assert (first["path"], first["name"], first["start"], first["end"]) == ("stats.py", "middle", 13, 15)
    assert first["score"] == 0.7 and first["why"] == "ochiai 1.00; called by a failing test"
    # Functions only passing tests ran have no evidence at all; no test file is ever ranked.
    assert [item["name"] for item in found["ranked"]] == ["middle"]
    json.dumps(found)  # plain JSON, as a recording keeps it


def test_traceback_frames_rank_deepest_first_and_a_test_frame_never_ranks(tmp_path):
    tools = project(tmp_path, {"parse.py": PARSE, "tests/test_parse.py": TEST_PARSE},
                    ["parse.py", "tests/test_parse.py"])
    start = tools.run_tests()
    assert "tests/test_parse.py" in start["output"]  # the test's own frames are in the traceback
    frames = product_frames(start["output"], {"parse.py"})
    assert [list(ranks) for ranks in frames] == [[("parse.py", 10), ("parse.py", 6), ("parse.py", 2)]]
    found = localize(tools, start)
    assert found["ranked"][0]["name"] == "number" and found["ranked"][0]["why"].startswith("traceback frame (deepest)")
    assert {item["name"] for item in found["ranked"]} == {"number", "parse", "load"}
    assert all(item["path"] == "parse.py" for item in found["ranked"])


@pytest.mark.real_pytest_runs
def test_a_coverage_run_that_takes_too_long_is_skipped_and_says_so(tmp_path):
    slow = TEST_STATS + "\n\ndef test_slow():\n    import time\n    time.sleep(30)\n"
    tools = project(tmp_path, {"stats.py": STATS, "tests/test_stats.py": slow}, ["stats.py", "tests/test_stats.py"])
    counts = coverage_run.line_counts(tools, ["tests/test_stats.py::test_middle"], timeout=3)
    assert counts == {"skipped": "the coverage run took longer than 3 s"}


def venv_without_coverage(folder):
    """A project's interpreter with pytest and its dependencies, and no coverage.py."""
    packages = Path(next(p for p in sys.path if p.endswith("site-packages") and (Path(p) / "pytest").is_dir()))
    only = Path(folder) / "only-pytest"
    only.mkdir(parents=True)
    for name in ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py"):
        if (packages / name).exists():
            os.symlink(packages / name, only / name)
    return fake_venv(folder, packages=False, paths=[only])


def test_an_interpreter_without_coverage_gets_the_harness_s_own_or_is_skipped(tmp_path, monkeypatch):
    python = venv_without_coverage(tmp_path / "venv")
    tools = project(tmp_path, {"stats.py": STATS, "tests/test_stats.py": TEST_STATS},
                    ["stats.py", "tests/test_stats.py"])
    task = Task(**{**tools.task.__dict__, "pytest": project_command(tools.task.repo, str(python))})
    tools = RepoTools(tools.root, task=task)
    start = tools.run_tests()
    assert start["failed"] == 1
    found = localize(tools, start)  # the harness's own coverage.py, loaded read-only
    assert found["coverage"].startswith("ran in ") and found["ranked"][0]["why"].startswith("ochiai 1.00")
    monkeypatch.setattr(coverage_run, "own_coverage", lambda: None)
    found = localize(tools, start)
    assert found["coverage"] == f"skipped: coverage.py is not installed for {python}"
    assert found["ranked"][0]["name"] == "middle"  # the failing test still names what it calls


def test_hostile_modules_never_crash_it(tmp_path):
    files = {"broken.py": "def f(:\n", "huge.py": "x = 1\n" * 300_000, "deep.py": "def f():\n" + "".join(
        "    " * depth + "if x:\n" for depth in range(1, 90)) + "    " * 90 + "pass\n",
             "stats.py": STATS, "tests/test_stats.py": TEST_STATS}
    tools = project(tmp_path, files, list(files))
    assert definitions(tools.root, "broken.py") == [] and definitions(tools.root, "huge.py") == []
    found = localize(tools, tools.run_tests())
    assert found["ranked"][0]["name"] == "middle"
    hostile = {"output": "parse.py:99999999999: in f\nbroken.py:1: SyntaxError\n" + "E x\n" * 10_000}
    assert localize(tools, hostile)["ranked"] == [] and localize(tools, {"output": None})["ranked"] == []


def test_a_report_of_another_shape_is_skipped():
    for report in ('{"files": ["a.py"], "lines": [[3, 1, 1, 0]], "failed_seen": 1}', "[1]", "{",
                   '{"files": ["a.py"], "lines": [[0, 1, -1, 0]], "failed_seen": 1}'):
        assert "skipped" in coverage_run.read_report(coverage_run.MARK + report)


def test_the_setting_is_checked():
    assert LoopSettings().localize == "off" and LoopSettings(localize="tests").recorded()["localize"] == "tests"
    with pytest.raises(ValueError, match="localize must be 'off' or 'tests', not 'yes'"):
        LoopSettings(localize="yes")


def test_a_recording_carries_the_localization_and_replays_without_ranking_again(fake_ollama, tmp_path, capsys,
                                                                                   monkeypatch):
    fake_ollama.play([done(tool_calls=[FIX])], [text("Fixed."), done()])
    output = tmp_path / "run.json"
    code = record_run.main(["--host", fake_ollama.url, "--output", str(output), "--scripted", "--localize", "tests"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "localization: python_sources (path_rules.py:4, 0.4); coverage ran in " in printed
    recording = load(output)
    assert recording["localization"]["ranked"][0]["name"] == "python_sources"
    first_message = recording["turns"][0]["request"]["messages"]
    # A replay hands the recorded ranking back as `focus`: it never ranks again.
    monkeypatch.setattr(recording_module, "when_asked", lambda *a: pytest.fail("a replay ranked again"))
    for served in (False, True):
        replayed = replay_module.replay(output, served=served)
        assert replayed["differences"] == [] and replayed["verdict"] == "repaired"
    assert recording["turns"][0]["request"]["messages"] == first_message
    # Its shape is checked: a recording asking for it must carry it, and in the shape a replay reads.
    without = {key: value for key, value in recording.items() if key != "localization"}
    assert check_recording(without, recording["format"]) == "settings.localize is 'tests' but there is no 'localization'"
    broken = {**recording, "localization": {"ranked": [{"path": "a.py"}], "coverage": "ran"}}
    assert check_recording(broken, recording["format"]).startswith("localization.ranked 1: needs path, name")


FAKE_PYTEST_COV = '''"""Stands in for pytest-cov: --cov starts a coverage of its own as soon as pytest loads."""
import coverage
import pytest


def pytest_addoption(parser):
    parser.addoption("--cov", action="append", default=[])
    parser.addoption("--no-cov", action="store_true", default=False)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    known = early_config.known_args_namespace
    if known.cov and not known.no_cov:
        early_config.stolen = coverage.Coverage(data_file=None)
        early_config.stolen.start()
'''


def test_a_project_that_runs_pytest_cov_itself_still_gets_its_lines_ranked(tmp_path):
    # parse's configuration says `--cov=parse`: pytest-cov's own coverage took the tracer, and the
    # ranking saw no line. The plugin here is installed (an entry point) as pytest-cov is.
    plugins = tmp_path / "venv" / "plugins"  # inside the environment: the sandbox mounts it
    python = fake_venv(tmp_path / "venv", paths=[plugins])
    (plugins / "pytest_cov").mkdir(parents=True)
    (plugins / "pytest_cov" / "__init__.py").write_text("")
    (plugins / "pytest_cov" / "plugin.py").write_text(FAKE_PYTEST_COV)
    (plugins / "pytest_cov-0.dist-info").mkdir()
    (plugins / "pytest_cov-0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: pytest-cov\nVersion: 0\n")
    (plugins / "pytest_cov-0.dist-info" / "entry_points.txt").write_text("[pytest11]\npytest_cov = pytest_cov.plugin\n")
    tools = project(tmp_path, {"stats.py": STATS, "tests/test_stats.py": TEST_STATS,
                               "pytest.ini": "[pytest]\naddopts = --cov=stats\n"}, ["stats.py", "tests/test_stats.py"])
    task = Task(**{**tools.task.__dict__, "pytest": project_command(tools.task.repo, str(python))})
    tools = RepoTools(tools.root, task=task)
    start = tools.run_tests()
    assert start["failed"] == 1
    found = localize(tools, start)
    assert found["ranked"][0]["name"] == "middle" and found["ranked"][0]["why"].startswith("ochiai 1.00"), found


MONEY = '''class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return self.cents == other.cents

    def __repr__(self):
        return f"Money({self.cents})"


def add(a, b):
    return Money(a.cents - b.cents)


def double(a):
    return Money(a.cents * 2)
'''
TEST_MONEY = '''from money import Money, add, double


def test_add():
    assert add(Money(1), Money(2)) == Money(3)


def test_double():
    assert double(Money(2)) == Money(4)
'''


def test_code_run_only_to_word_a_failure_is_no_evidence(tmp_path):
    # parse's `FixedTzOffset.__repr__` ranked first: pytest's assertion message and its report
    # call the operands' __repr__, which only a failing test ever does.
    tools = project(tmp_path, {"money.py": MONEY, "tests/test_money.py": TEST_MONEY},
                    ["money.py", "tests/test_money.py"])
    start = tools.run_tests()
    assert start["failed"] == 1 and "Money(-1)" in start["output"]  # the repr was run, for the message
    found = localize(tools, start)
    names = [item["name"] for item in found["ranked"]]
    assert names[0] == "add" and "Money.__repr__" not in names, found["ranked"]
