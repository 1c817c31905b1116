"""A recording as a file: the format's name, plain JSON of anything, written, kept, loaded.

`save` writes any text, any shape, atomically; `keep` never loses a finished run (its folder gone,
it goes under a fresh name, never over another file); `output_problem` says, before minutes of
model time, why a recording could not be written where it is asked to; `load` reads one (plain,
or gzip-compressed as FILE.json.gz, within a bound) and checks its shape (runs/recording_check.py). `plain_copy` is what a recorder keeps of a value: plain JSON.

What this file deliberately is not: the capture of a run (recording.py) or a replay (replay.py).
"""
import gzip
import json
import re
import zlib
import tempfile
from pathlib import Path

from runs.recording_check import check_recording
from workspace.files import write_atomic, write_kept

FORMAT = "coding-loop-recording/1"
MOST_UNPACKED = 200_000_000  # bytes a .json.gz recording may unpack to: the largest committed one is about 3 MB


def plain_copy(value):
    """A JSON-shaped copy (deepcopy fails on a few hundred levels of nesting; this does not)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return _bounded(value)


def _bounded(value, depth=0):
    """JSON-shaped, at most 100 levels deep; anything else becomes a string that says so."""
    if depth >= 100:
        return "<nested too deep to record>"
    if isinstance(value, dict):
        return {str(key): _bounded(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_bounded(item, depth + 1) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return f"<unrecordable {type(value).__name__}>"


def save(path, recording):
    """Write a recording atomically, readable by people and diff tools, whatever it holds."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json_text(recording) + "\n")


def keep(path, recording, warn):
    """Save a finished run at `path`, or (its folder gone) under a fresh name said through `warn`;
    return where it went, so a later save of the same run goes there too."""
    text = json_text(recording) + "\n"
    return write_kept(path, text, warn, "the run")


def output_problem(output):
    """Why the recording could not be written at `output`, found before minutes of model time."""
    path = Path(output)
    if path.is_dir():
        return f"--output {output} is a folder; give a file name"
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".coding-loop-check-"):
            pass
    except OSError as error:
        return f"cannot write to {folder}: {error.strerror or error}; pass another --output"
    return None


def json_text(value):
    """`value` as indented JSON that is valid UTF-8, whatever text it holds."""
    try:
        text = json.dumps(value, indent=1, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(_bounded(value), indent=1, ensure_ascii=False)
    # A lone surrogate (a model can stream "\ud800") cannot be UTF-8: keep it as a JSON
    # escape, which loads back as the very same string.
    return re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)


def load(path):
    """Read a recording (a FILE.json, or a FILE.json.gz: measurements keep theirs compressed) and
    check its shape; anything else is a ValueError naming the file."""
    try:
        recording = json.loads(_text(path))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{path}: not a JSON recording ({type(error).__name__})") from None
    problem = check_recording(recording, FORMAT)
    if problem:
        raise ValueError(f"{path}: {problem}")
    return recording


def _text(path):
    """The file's text; a .gz file decompressed, at most MOST_UNPACKED bytes of it: a shared
    recording is untrusted, and a few kilobytes of gzip can unpack to gigabytes."""
    if not str(path).endswith(".gz"):
        return Path(path).read_text(encoding="utf-8")
    try:
        with gzip.open(path, "rb") as packed:
            data = packed.read(MOST_UNPACKED + 1)
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise ValueError(f"{path}: not a gzip file that unpacks whole ({type(error).__name__})") from None
    if len(data) > MOST_UNPACKED:
        raise ValueError(f"{path}: unpacks to more than {MOST_UNPACKED // 1_000_000} MB, more than any run records")
    return data.decode("utf-8")
