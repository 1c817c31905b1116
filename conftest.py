"""Shared fixtures: every test works on its own fresh copy of the sample; the run's bytecode
(testing/bytecode.py), its memory of pytest runs (testing/pytest_memo.py), and its garbage
collector's pace."""
import functools
import gc
import os

import pytest

from repo_tools import RepoTools
from runs.recording import fresh_sample
from testing import bytecode


def pytest_configure(config):
    _declare_markers(config)
    bytecode.share(config)


def pytest_unconfigure(config):
    bytecode.remove_the_runs_own(config)


def pytest_collection_finish(session):
    """What collection built lives to the end of the run: it is set aside from the collector
    (`gc.freeze`), which then runs every 20,000 new objects instead of 700. Measured (CPU-seconds
    spent collecting, the three test workers of one run): 2.4 before, 0.9 after."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def pytest_addoption(parser):
    parser.addoption("--every-run-real", action="store_true",
                     help="run every sandboxed pytest run for real (no run answered from testing/pytest_memo.py)")


def _declare_markers(config):
    config.addinivalue_line("markers", "real_pytest_runs: every sandboxed pytest run of this test is run for "
                            "real (a test about what a run does: the sandbox, the limits, the timeout)")


@pytest.fixture(scope="session", autouse=True)
def _pytest_memo(request, tmp_path_factory):
    """Each different sandboxed pytest run once per session, the repeats answered from it
    (testing/pytest_memo.py says what a run is a function of). Shared by every worker, and by
    the worker processes evaluate.py spawns, which start clean (evaluation/workers.py)."""
    from evaluation import workers
    from testing.pytest_memo import install
    if request.config.getoption("--every-run-real"):
        yield None
        return
    folder = _shared_temp(tmp_path_factory) / "pytest-memo"
    with pytest.MonkeyPatch.context() as patch:
        memo = install(folder, patch)
        patch.setattr(workers, "WORKER_SETUP", [functools.partial(install, str(folder))])
        yield memo


@pytest.fixture(autouse=True)
def _real_pytest_runs(request, _pytest_memo, monkeypatch):
    """A test marked real_pytest_runs gets every run real."""
    if _pytest_memo is not None and request.node.get_closest_marker("real_pytest_runs"):
        from evaluation import workers
        from workspace import pytest_run
        monkeypatch.setattr(pytest_run, "run_bounded", _pytest_memo.real)
        monkeypatch.setattr(workers, "WORKER_SETUP", [])


@pytest.fixture
def workspace(tmp_path):
    """A fresh copy of the faulty sample; the original is never touched."""
    return fresh_sample(tmp_path)


@pytest.fixture
def tools(workspace):
    return RepoTools(workspace)


@pytest.fixture
def without_bubblewrap(monkeypatch, tmp_path):
    """This process as on a machine without bubblewrap: nothing on PATH, and the sandbox asked
    for again (a process asks once; workspace/sandbox.py keeps the answer)."""
    from workspace import sandbox
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    sandbox.detect.cache_clear()
    yield
    sandbox.detect.cache_clear()  # before PATH comes back: the next test asks again


class FakeClock:
    """A deadline clock that moves only when a test says so."""
    seconds = 1000.0  # each clock's own, from its first advance

    def __call__(self):
        return self.seconds

    def advance(self, seconds):
        self.seconds += seconds


@pytest.fixture
def clock(monkeypatch):
    from loop import run_state
    fake = FakeClock()
    monkeypatch.setattr(run_state, "now", fake)
    return fake


@pytest.fixture(scope="session")
def _running_fake_ollama():
    from testing.fake_ollama import FakeOllama
    with FakeOllama() as server:
        yield server


@pytest.fixture
def fake_ollama(_running_fake_ollama):
    """The loopback Ollama server, with an empty script; call `.play(*turns)` to fill it."""
    return _running_fake_ollama.play()


@pytest.fixture(scope="session")
def _running_fake_openai():
    from testing.fake_openai import FakeOpenAI
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def fake_openai(_running_fake_openai):
    """The loopback Chat Completions server, with an empty script; `.play(*turns)` fills it."""
    return _running_fake_openai.play()


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """The address of a two-node Ray cluster on this machine (tests/ray_parts.py), one for each
    test module that asks: starting one costs seconds, and it is gone when the module ends."""
    from tests.ray_parts import two_node_cluster
    with two_node_cluster(tmp_path_factory.mktemp("no-bwrap")) as address:
        yield address


def _shared_temp(tmp_path_factory):
    """The test run's temporary folder, the same for every pytest-xdist worker (above each one's)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name, build):
    """The folder `name`, made by `build(folder)` once for the whole test run. Under pytest-xdist
    every worker asks: the first builds it while the others wait on a lock, then all read it
    (a session fixture alone is built once per worker: seconds of pytest each time)."""
    import fcntl
    shared = _shared_temp(tmp_path_factory)
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not (shared / f"{name}.built").exists():
            build(shared / name)
            (shared / f"{name}.built").write_text("")
    return shared / name


@pytest.fixture(scope="session")
def climbed(tmp_path_factory):
    """One whole outer loop (improve.py --scripted with IMPROVE_FLAGS), shared by every test that
    reads it (tests/test_improve.py, tests/test_improve_trust.py): it costs seconds of pytest.
    Read it, or copy it; never change it."""
    import json

    import improve
    from tests.helpers import IMPROVE_FLAGS

    def climb(folder):
        assert improve.main([*IMPROVE_FLAGS, "--out", str(folder / "out")]) == 0
    out = built_once(tmp_path_factory, "climbed", climb) / "out"
    return out, json.loads((out / "improvement.json").read_text())


@pytest.fixture(scope="session")
def evaluated(tmp_path_factory):
    """One scripted evaluation (evaluate.py with EVALUATE_FLAGS: two tasks x two attempts, in one
    worker process) and what it printed, shared by the tests of evaluate.py's summary, report and
    resume (tests/test_evaluate.py, tests/test_evaluate_trust.py). Copy it before changing it."""
    import contextlib
    import io

    import evaluate
    from tests.helpers import EVALUATE_FLAGS

    def run(folder):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert evaluate.main([*EVALUATE_FLAGS, "--out", str(folder / "out")]) == 0
        (folder / "printed.txt").write_text(printed.getvalue())
    folder = built_once(tmp_path_factory, "evaluated", run)
    return folder / "out", (folder / "printed.txt").read_text()
