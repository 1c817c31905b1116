"""What every attempt and summary.json of a run is labelled with: the model as its server named
it, and the checkout that ran it (its commit, and whether it had uncommitted changes), read once
when the run starts, since every attempt runs this same code.

What this file deliberately is not: a git client (it asks two questions and changes nothing), or
fix.py's reading of a user's repository (fixing/repo.py).
"""
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # this checkout: its commit labels every attempt


@dataclass(frozen=True)
class Labels:
    """What every attempt and summary.json of a run is labelled with: the model as its server
    named it ({"name", "digest"}), and this checkout's commit and whether it had changes."""
    model: dict
    commit: str = None
    dirty: bool = None

    @classmethod
    def here(cls, model):
        """The labels of a run of `model` from this checkout, read once: every attempt runs this code."""
        return cls(model, *git_state())


def git_state():
    """(commit, dirty) of this checkout, or (None, None) outside git."""
    def git(*command):
        return subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, timeout=10)
    try:
        commit = git("rev-parse", "HEAD")
        status = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    if commit.returncode != 0:
        return None, None
    return commit.stdout.strip(), bool(status.stdout.strip())
