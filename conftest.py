"""Shared fixtures: every test works on its own fresh copy of the sample."""
import pytest

from recording import fresh_sample
from repo_tools import SAMPLE, RepoTools
from task_catalog import solution_edits

# The one-line repair of the sample (normalise Windows separators before splitting), from
# tasks/path_rules/solution.json: one definition for every test and script.
(_FIX,) = solution_edits(SAMPLE)
FIX_OLD, FIX_NEW = _FIX["old"], _FIX["new"]


@pytest.fixture
def workspace(tmp_path):
    """A fresh copy of the faulty sample; the original is never touched."""
    return fresh_sample(tmp_path)


@pytest.fixture
def tools(workspace):
    return RepoTools(workspace)


def write_probe(workspace, body):
    """Replace the sample's tests with one test whose body is `body`: code we run through
    run_tests to see what the sandbox lets through (it is ours, not the model's)."""
    (workspace / "tests/test_path_rules.py").unlink()
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    (workspace / "tests/test_probe.py").write_text(
        f"import os, socket, sys, time, subprocess\n\n\ndef test_probe():\n{lines}\n")


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
    import agent_loop
    fake = FakeClock()
    monkeypatch.setattr(agent_loop, "now", fake)
    return fake


@pytest.fixture(scope="session")
def _running_fake_ollama():
    from fake_ollama import FakeOllama
    with FakeOllama() as server:
        yield server


@pytest.fixture
def fake_ollama(_running_fake_ollama):
    """The loopback Ollama server, with an empty script; call `.play(*turns)` to fill it."""
    return _running_fake_ollama.play()


@pytest.fixture(scope="session")
def _running_fake_openai():
    from fake_openai import FakeOpenAI
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def fake_openai(_running_fake_openai):
    """The loopback Chat Completions server, with an empty script; `.play(*turns)` fills it."""
    return _running_fake_openai.play()
