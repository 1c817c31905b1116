"""Reading a named configuration (settings/NAME.json) or any settings file into a LoopSettings.

A file is a JSON object of LoopSettings' fields, each optional (a missing field takes the
loop's default), plus "about", one sentence on what it is for, and "options", the model options
it was measured with (`{"temperature": 0.7}`), handed to command_line/shared_flags.py, where models/choice.py
checks them as it checks the flags (a flag given wins). "system" and "system_definitions" may be one string or a
list of lines (joined with newlines), so a prompt reads line by line in the file. Anything
else (an unknown field, a wrong value, a file that is not JSON, nested too deep, or larger than
MAX_BYTES, a pipe included) is one ValueError naming the file and the problem: the command line
prints it as one line.

What this file deliberately is not: the settings' defaults or their checks (LoopSettings has
both), or a merger of several files: one file, then the flags.
"""
import json
import re
from pathlib import Path

from agent_loop import LoopSettings

FOLDER = Path(__file__).resolve().parent
NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")  # a named configuration, as opposed to a file's path
MAX_BYTES = 100_000


def names():
    """The named configurations shipped in settings/."""
    return sorted(path.stem for path in FOLDER.glob("*.json"))


def settings_path(name_or_file):
    """The file a --settings value means: settings/NAME.json for a known name, else the path."""
    if NAME.fullmatch(name_or_file) and (FOLDER / f"{name_or_file}.json").is_file():
        return FOLDER / f"{name_or_file}.json"
    if NAME.fullmatch(name_or_file) and not Path(name_or_file).exists():
        raise ValueError(f"--settings {name_or_file}: no such configuration; named ones: {', '.join(names())}, "
                         "or give a JSON file")
    return Path(name_or_file)


def load_settings(name_or_file, **changes):
    """The LoopSettings a --settings value names, with `changes` (flags given) on top."""
    return load_preset(name_or_file, **changes)[0]


def load_preset(name_or_file, **changes):
    """(the LoopSettings, the model options) a --settings value names, `changes` on the settings."""
    path = settings_path(str(name_or_file))
    try:
        with open(path, "rb") as handle:  # read up to the limit: a pipe (`<(...)`) has no size to ask
            text = handle.read(MAX_BYTES + 1)
        if len(text) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES:,} bytes")
        data = json.loads(text.decode("utf-8"))
        return LoopSettings(**{**fields_of(data), **changes}), options_of(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError, TypeError) as error:
        raise ValueError(f"--settings {name_or_file}: {_why(error)}") from None


def fields_of(data):
    """The LoopSettings fields of a settings file's object."""
    if not isinstance(data, dict):
        raise ValueError(f"a settings file holds one JSON object, not a {type(data).__name__}")
    unknown = sorted(set(data) - set(LoopSettings.__dataclass_fields__) - {"about", "options"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; fields: {', '.join(LoopSettings.__dataclass_fields__)}")
    fields = {key: value for key, value in data.items() if key not in ("about", "options")}
    for prompt in ("system", "system_definitions"):  # a prompt may be written as a list of lines
        if isinstance(fields.get(prompt), list) and all(isinstance(line, str) for line in fields[prompt]):
            fields[prompt] = "\n".join(fields[prompt])
    return fields


def options_of(data):
    """The model options a settings file's object carries ({} when none), not yet checked: the
    model's options are models/choice.py's to check, a layer above this one."""
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f'"options" holds a JSON object of model options, not a {type(options).__name__}')
    return dict(options)


def _why(error):
    if isinstance(error, OSError):
        return f"cannot read it ({error.strerror or error})"
    if isinstance(error, (UnicodeDecodeError, json.JSONDecodeError)):
        return f"not a JSON file ({type(error).__name__})"
    if isinstance(error, RecursionError):
        return "not a settings file (JSON nested too deep to read)"
    return str(error)[:300]
