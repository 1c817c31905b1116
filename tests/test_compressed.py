"""Recordings kept compressed (FILE.json.gz, as measurements/ keeps its newest): read and replayed
as the plain file is; one that is not gzip, is cut short, or unpacks past the bound is one line."""
import gzip
import zlib

import pytest

from replay import main, replay
from runs.recording_file import MOST_UNPACKED, load
from tests.test_replay import RECORDINGS


def packed(tmp_path, name="fix_in_one_edit"):
    path = tmp_path / f"{name}.json.gz"
    path.write_bytes(gzip.compress((RECORDINGS / f"{name}.json").read_bytes(), mtime=0))
    return path


@pytest.mark.parametrize("served", [True, False])
def test_a_compressed_recording_replays_as_its_plain_file_does(tmp_path, capsys, served):
    path = packed(tmp_path)
    assert load(path) == load(RECORDINGS / "fix_in_one_edit.json")
    result = replay(path, served=served)
    assert result["differences"] == [] and result["verdict"] == "repaired"
    assert main(["--served", str(path)] if served else [str(path)]) == 0
    assert "1 of 1 recordings replayed as recorded" in capsys.readouterr().out


def test_a_file_that_unpacks_past_the_bound_is_refused_before_it_is_read_whole(tmp_path, monkeypatch):
    """The bound made small here (the rule, not the 200 MB, is what is tested: packing 200 MB takes a while)."""
    monkeypatch.setattr("runs.recording_file.MOST_UNPACKED", 2_000_000)
    bomb = tmp_path / "bomb.json.gz"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    bomb.write_bytes(packer.compress(b"0" * 5_000_000) + packer.flush())
    assert bomb.stat().st_size < 10_000  # a few kilobytes that would unpack past the bound
    with pytest.raises(ValueError, match=r"bomb.json.gz: unpacks to more than 2 MB, more than any run records"):
        load(bomb)
    assert MOST_UNPACKED == 200_000_000


# mtime=0: gzip's header holds the time it was made, and the bytes are the test's id; workers
# collecting a second apart saw different tests, and xdist stopped the run ("Different tests
# were collected between gw1 and gw0").
@pytest.mark.parametrize("content, words", [
    (b"not gzip at all", "not a gzip file that unpacks whole (BadGzipFile)"),
    (gzip.compress(b'{"format": "coding-loop-recording/1"', mtime=0)[:-12], "not a gzip file that unpacks whole"),
    (gzip.compress(b"\xff\xfe not text", mtime=0), "not a JSON recording (UnicodeDecodeError)"),
], ids=["not gzip", "cut short", "not text"])
def test_a_broken_compressed_recording_is_one_line(tmp_path, capsys, content, words):
    path = tmp_path / "broken.json.gz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        load(path)
    assert main([str(path)]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err and words in out.out + out.err
