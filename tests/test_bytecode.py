"""testing/bytecode.py: with PYTHONDONTWRITEBYTECODE set, the run's processes share one bytecode
folder outside the tree, the user's own, kept for the next run; a temporary one, removed, when
there is no such place."""
import os
import sys
import types

from testing import bytecode


def configured(monkeypatch, cache_home):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.setattr(sys, "pycache_prefix", sys.pycache_prefix)  # share() sets both for this process
    monkeypatch.setattr(sys, "dont_write_bytecode", sys.dont_write_bytecode)
    config = types.SimpleNamespace()
    bytecode.share(config)
    return config


def test_the_bytecode_goes_to_the_users_cache_folder_and_stays(monkeypatch, tmp_path):
    config = configured(monkeypatch, tmp_path / "cache")
    folder = tmp_path / "cache" / "coding-loop" / "pycache"
    assert os.environ["PYTHONPYCACHEPREFIX"] == sys.pycache_prefix == str(folder)
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ and not sys.dont_write_bytecode
    assert folder.stat().st_mode & 0o077 == 0  # no one else may write bytecode this user will run
    bytecode.remove_the_runs_own(config)
    assert folder.is_dir()


def test_without_a_cache_folder_the_run_uses_its_own_and_removes_it(monkeypatch, tmp_path):
    (tmp_path / "not-a-folder").write_text("")
    config = configured(monkeypatch, tmp_path / "not-a-folder")
    folder = os.environ["PYTHONPYCACHEPREFIX"]
    assert folder == config.coding_loop_pycache and os.path.isdir(folder)
    bytecode.remove_the_runs_own(config)
    assert not os.path.exists(folder)
