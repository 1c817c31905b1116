"""Checking that a loaded recording has the shape a replay relies on.

Recordings are shared between people, so they are untrusted input: a list, a missing
`turns`, a string where a number belongs. `check_recording` returns one sentence naming the
first problem (and where it is), or None; replay.py turns that into one `error:` line.

What this file deliberately is not: a full JSON-schema validator. It checks the fields that
the replay reads, with their types, and nothing the replay ignores. A recording made with
`localize="tests"` carries `localization` (what localizing/ranking.py found: `ranked`, the
`focus` a replay hands back, and `coverage`, what its coverage run did), so a replay never
ranks again; one made before it (every shipped one) has none and replays unchanged.
"""
from agent_loop import LoopSettings


def _is(kind):
    return lambda value: isinstance(value, kind) and not (kind is int and isinstance(value, bool))


TEXT, NUMBER, MAPPING, LISTING = _is(str), _is(int), _is(dict), _is(list)
FLAG = _is(bool)
# The verdict and the runs it comes from are compared by every replay, so they are required.
TOP_LEVEL = {"format": TEXT, "source": TEXT, "model": MAPPING, "task": TEXT, "settings": MAPPING,
             "sample": MAPPING, "tools": LISTING, "start_tests": MAPPING, "final_tests": MAPPING,
             "tests_unchanged": FLAG, "verdict": TEXT, "turns": LISTING, "events": LISTING}


def check_recording(recording, expected_format):
    """Return None when `recording` can be replayed, else what is wrong with it."""
    if not isinstance(recording, dict):
        return f"a recording is a JSON object, not a {type(recording).__name__}"
    if recording.get("format") != expected_format:
        return f"format is {str(recording.get('format'))[:40]!r}, expected {expected_format!r}"
    if recording.get("interrupted") is True:
        return "the run was interrupted before its verdict: it is kept to be read, and cannot be replayed"
    if recording.get("source") not in ("live", "scripted"):
        return f"source must be 'live' or 'scripted', not {str(recording.get('source'))[:40]!r}"
    for key, fits in TOP_LEVEL.items():
        if key not in recording:
            return f"missing {key!r}"
        if not fits(recording[key]):
            return f"{key!r} has the wrong type ({type(recording[key]).__name__})"
    return (_settings(recording["settings"]) or _sample(recording["sample"]) or _tools(recording["tools"])
            or (None if TEXT(recording["model"].get("name")) else "model.name must be text")
            or _turns(recording["turns"]) or _events(recording["events"])
            or _tests(recording["final_tests"], "final_tests") or _tests(recording["start_tests"], "start_tests")
            or (None if TEXT(recording.get("task_name", "")) else "'task_name' must be text")
            or _localization(recording) or _search(recording))


RANKED = {"path": TEXT, "name": TEXT, "start": NUMBER, "end": NUMBER, "why": TEXT,
          "score": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)}


def _localization(recording):
    """The localization a replay hands back as `focus`: there whenever the settings asked for it."""
    if "localization" not in recording:
        return "settings.localize is 'tests' but there is no 'localization'" if (
            recording["settings"].get("localize") == "tests") else None
    found = recording["localization"]
    if not MAPPING(found) or not TEXT(found.get("coverage")) or not (found.get("ranked") is None or LISTING(found["ranked"])):
        return "'localization' needs 'coverage' (text) and 'ranked' (a list or null)"
    for number, item in enumerate(found["ranked"] or [], 1):
        if not MAPPING(item) or not all(fits(item.get(key)) for key, fits in RANKED.items()):
            return f"localization.ranked {number}: needs {', '.join(RANKED)}"
    return None


def _settings(settings):
    """The settings the replay rebuilds the run from: LoopSettings reads them, with its defaults
    for the fields a recording predates, and checks every field as it does for a live run."""
    if "max_turns" not in settings:  # every recording writes the budget it ran with
        return "missing settings.max_turns"
    try:
        LoopSettings.from_recorded(settings)
    except (TypeError, ValueError) as error:
        return f"settings.{error}"  # LoopSettings names the field first: "max_turns must be a positive int, ..."
    return None


def _sample(sample):
    if not all(TEXT(path) and TEXT(digest) for path, digest in sample.items()):
        return "'sample' must map file paths to sha256 texts"
    return None


def _tools(tools):
    for number, schema in enumerate(tools, 1):
        function = schema.get("function") if MAPPING(schema) else None
        if not MAPPING(function) or not TEXT(function.get("name")):
            return f"tool {number}: needs function.name"
    return None


def _turns(turns):
    for number, turn in enumerate(turns, 1):
        where = f"turn {number}"
        if not MAPPING(turn) or not MAPPING(turn.get("request")) or not LISTING(turn["request"].get("messages")):
            return f"{where}: needs request.messages, a list"
        if not all(MAPPING(message) for message in turn["request"]["messages"]):
            return f"{where}: every request message must be an object"
        if not LISTING(turn.get("chunks")):
            return f"{where}: needs chunks, a list"
        if "error" in turn and not TEXT(turn["error"]):
            return f"{where}: error must be text"
    return None


def _events(events):
    if not events:
        return "'events' is empty"
    for number, event in enumerate(events, 1):
        if not MAPPING(event) or not TEXT(event.get("type")):
            return f"event {number}: needs a 'type'"
        if not all(NUMBER(event[key]) for key in ("turn", "index") if key in event):
            return f"event {number}: turn and index must be ints"
        if event["type"] == "tool_result" and not MAPPING(event.get("result")):
            return f"event {number}: a tool_result needs a 'result' object"
    last = events[-1]
    if last["type"] != "stopped" or not TEXT(last.get("reason")):
        return "the last event must be 'stopped', with a reason"
    return None


def _tests(result, name):
    if not MAPPING(result):
        return f"'{name}' must be an object"
    for count in ("exit_code", "passed", "failed", "errors"):
        if not NUMBER(result.get(count)):
            return f"{name}.{count} must be an int"
    return None


def _search(recording):
    """A search's candidates and what it chose, checked as the replay reads them."""
    if "candidates" not in recording:
        return None
    search, records = recording.get("search"), recording["candidates"]
    if not LISTING(records) or not records or not MAPPING(search):
        return "a search needs 'candidates' (a list, not empty) and 'search' (an object)"
    if not (search.get("chosen") is None or NUMBER(search["chosen"])):
        return "search.chosen must be a candidate's index or null"
    if not all(NUMBER(search.get(key)) for key in ("candidates", "ran")) or search["candidates"] < 1:
        return "search.candidates (a positive int) and search.ran (an int) are required"
    for number, candidate in enumerate(records, 1):
        where = f"candidate {number}"
        if not MAPPING(candidate) or not NUMBER(candidate.get("index")) or not LISTING(candidate.get("turns")):
            return f"{where}: needs an int 'index' and 'turns', a list"
        if not FLAG(candidate.get("chosen")):
            return f"{where}: chosen must be true or false"
        if "tests" in candidate and _tests(candidate["tests"], f"{where}.tests"):
            return _tests(candidate["tests"], f"{where}.tests")
        if not NUMBER(candidate.get("cancelled_after_checks", 0)) or candidate.get("cancelled_after_checks", 0) < 0:
            return f"{where}: cancelled_after_checks must be an int >= 0"
        problem = _turns(candidate["turns"]) or _events(candidate.get("events") if LISTING(candidate.get("events")) else [])
        if problem:
            return f"{where}: {problem}"
    return None
