"""Comparing a replay with its recording, and saying exactly where they part.

Four comparisons: each request the loop sends against the recorded one, messages and tool
schemas (`check_request`, `check_tools`, raised as `RequestDrift` inside the replay), a real
replay's outcome (stop reason, each tool result), a served replay's events, one by one, and in
both replays the final tests' counts and the verdict (`verdict_differences`). Every message
names the turn (from 1), the place, the field and both values, shortened.

What this file deliberately is not: a diff tool. It reports the first difference of each
kind, which is where a reader starts looking.
"""
import json

from loop.turn_policy import MACHINE_FIELDS

SHOWN = 60  # characters of each value shown in a message
COUNTS = ("exit_code", "passed", "failed", "errors")  # what a final test run is compared by


class RequestDrift(Exception):
    """A request differs from the recording, or goes beyond it."""


def check_request(turn, recorded, received):
    """Raise RequestDrift naming the first field where `received` differs from `recorded`."""
    if len(received) != len(recorded):
        raise RequestDrift(f"turn {turn}: the request has {len(received)} messages, the recording {len(recorded)}")
    for index, (want, got) in enumerate(zip(recorded, received)):
        if want.get("role") == "tool" == got.get("role"):
            want, got = _tool_message(want), _tool_message(got)
        found = first_difference(want, got)
        if found:
            raise RequestDrift(f"turn {turn}, message {index} ({got.get('role', '?')}): {described(found)}")


def check_tools(turn, recorded, received):
    """Raise RequestDrift when the tool schemas sent differ from the recorded ones: the model
    reads their descriptions as much as any message."""
    found = first_difference(recorded, received)
    if found:
        raise RequestDrift(f"turn {turn}: the tool schemas differ from the recording's: {described(found)}")


def _tool_message(message):
    """A tool message with its JSON content parsed and the machine fields left out."""
    try:
        content = json.loads(message["content"])
    except (KeyError, TypeError, ValueError, RecursionError):
        return message
    return {**message, "content": without_machine_fields(content)}


def without_machine_fields(result):
    if not isinstance(result, dict):
        return result
    return {key: value for key, value in result.items() if key not in MACHINE_FIELDS}


def first_difference(want, got, path=""):
    """(dotted path, recorded value, replayed value) of the first difference, or None."""
    if want == got:
        return None  # the common case, settled at C speed before any walk
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=str):
            found = first_difference(want.get(key), got.get(key), f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if want == got else (path or "(whole value)", want, got)


def shorten(value, around=0):
    """A value as it reads in a message: text quoted, anything else as JSON, both shortened to
    a window that starts a little before character `around` (where two values part)."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        text = "<unprintable>"
    start = max(0, min(around - 20, len(text) - SHOWN))
    text = ("..." if start else "") + text[start:start + SHOWN] + ("..." if start + SHOWN < len(text) else "")
    return repr(text) if isinstance(value, str) else text


def described(found):
    """A difference from first_difference in words: the field, then both values."""
    field, was, now = found
    here, there = both(was, now)
    return f"field {field!r} is {here} here, {there} in the recording"


def both(was, now):
    """Both values, shortened around the first character where they differ."""
    texts = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=repr) for v in (was, now)]
    parted = next((i for i, (a, b) in enumerate(zip(*texts)) if a != b), min(map(len, texts)))
    return shorten(now, parted), shorten(was, parted)


def outcome_differences(recording, events):
    """What a real replay must reproduce: the stop and each tool's result (the final tests'
    counts are verdict_differences')."""
    differences = []
    was, now = recording["events"][-1], events[-1]
    if was.get("reason") != now.get("reason"):
        error = f" ({now['error']})" if "error" in now else ""
        differences.append(f"stop reason: {was.get('reason')!r} in the recording, {now.get('reason')!r} "
                           f"here, after turn {now.get('turn')}{error}")
    recorded, replayed = _tool_outcomes(recording["events"]), _tool_outcomes(events)
    for (where, want), (_, got) in zip(recorded, replayed):
        found = first_difference(want, got)
        if found:  # any field of the result, less this machine's: the last turn's too
            field, was, now = found
            here, there = both(was, now)
            differences.append(f"{where}: {field} is {here} here, {there} in the recording")
    if len(recorded) != len(replayed):
        differences.append(f"tool results: {len(recorded)} in the recording, {len(replayed)} here")
    return differences


def verdict_differences(recording, final_tests, verdict):
    """What both replays must reproduce after the loop: the final tests' counts and the verdict.
    A recording whose saved verdict the replay does not reproduce (hand-edited to "repaired",
    say) differs, whatever its events."""
    differences = count_differences("final tests (the verdict's run)", recording["final_tests"], final_tests)
    if recording.get("verdict") != verdict:
        differences.append(f"verdict: {shorten(recording.get('verdict'))} in the recording, {shorten(verdict)} here")
    return differences


def count_differences(what, want, got):
    """Where two test runs' counts differ (recorded `want`, replayed `got`), each named `what`."""
    return [f"{what}: {count} {want.get(count)} in the recording, {got.get(count)} here"
            for count in COUNTS if want.get(count) != got.get(count)]


def _tool_outcomes(events):
    """(where, result less machine fields) per tool result."""
    return [(f"turn {e.get('turn')}, call {e.get('index')} ({e.get('name')})", without_machine_fields(e["result"]))
            for e in events if e["type"] == "tool_result"]


def event_differences(recorded, replayed):
    """A served replay must give the very same events (less machine fields): the first that differs."""
    for number, (want, got) in enumerate(zip(recorded, replayed), 1):
        want, got = _comparable(want), _comparable(got)
        found = first_difference(want, got) if want.get("type") == got.get("type") else (
            "type", want.get("type"), f"{got.get('type')} {got.get('reason', '')}".strip())
        if found:
            return [f"event {number} (turn {got.get('turn')}, {got.get('type')}): {described(found)}"]
    if len(recorded) != len(replayed):
        return [f"events: {len(recorded)} in the recording, {len(replayed)} here "
                f"(last here: {replayed[-1].get('type')} {replayed[-1].get('reason', '')})"]
    return []


def _comparable(event):
    if isinstance(event.get("result"), dict):
        return {**event, "result": without_machine_fields(event["result"])}
    return event
