"""Shared fixtures: every test works on its own fresh copy of the sample."""
import pytest

from repo_tools import RepoTools
from runs.recording import fresh_sample


@pytest.fixture
def workspace(tmp_path):
    """A fresh copy of the faulty sample; the original is never touched."""
    return fresh_sample(tmp_path)


@pytest.fixture
def tools(workspace):
    return RepoTools(workspace)


class FakeClock:
    """A deadline clock that moves only when a test says so."""

    def __init__(self):
        self.seconds = 1000.0

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


@pytest.fixture(scope="session")
def climbed(tmp_path_factory):
    """One whole outer loop (improve.py --scripted with IMPROVE_FLAGS), shared by every test that
    reads it (tests/test_improve.py, tests/test_improve_trust.py): it costs seconds of pytest.
    Read it, or copy it; never change it."""
    import json

    import improve
    from tests.helpers import IMPROVE_FLAGS
    out = tmp_path_factory.mktemp("improvement") / "out"
    assert improve.main([*IMPROVE_FLAGS, "--out", str(out)]) == 0
    return out, json.loads((out / "improvement.json").read_text())
