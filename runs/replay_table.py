"""A replay printed: each recording's transcript and how it compares, then one closing table.

`print_replay(path, result, served)` prints one replayed recording as replay.py shows it (its
events as the live run printed them, each candidate of a search, the verdict, and every way
the replay differs) and returns its row of the closing table; `closing_table(paths, rows)` is
that table, each recording named by the fewest trailing parts of its path that tell it apart.
Everything a recording holds passes through `clean` (command_line/printer.py) before it is printed.

What this file deliberately is not: a replay (replay.py replays) or a comparison
(runs/replay_check.py names the differences this prints).
"""
from pathlib import Path

from command_line.attempt_view import candidate_line
from command_line.printer import Printer, clean, columns, result_line

TABLE = ("recording", "source", "stop", "verdict", "same?")  # the closing table's columns


def print_replay(path, result, served):
    """Print one replayed recording; return its row (less its name) of the closing table."""
    recording = result["recording"]
    label = recording.get("about") or recording["model"]["name"]
    print(f"=== {path} ({recording['source']}: {clean(str(label))})")
    show = Printer()
    for event in result["events"]:
        show(event)
    for candidate in recording.get("candidates", []):  # a search: the shown run above, each candidate here
        print(candidate_line(candidate))
    if served:  # no pytest ran: the verdict shown is the recording's, and is said to be
        print(f"verdict: {clean(recording['verdict'])} (as recorded; no pytest ran in a served replay)")
    else:
        print(f"verdict: {clean(result['verdict'])} (independent pytest: {result_line(result['final_tests'])})")
    if result["differences"]:
        print("DIFFERS from the recording:\n" + "\n".join(f"  - {clean(d)}" for d in result["differences"]) + "\n")
    else:
        print("matches the recording\n")
    stops = recording["events"][-1]["reason"], result["events"][-1]["reason"]
    return [recording["source"], _then(*stops), _then(recording["verdict"], result["verdict"]),
            "NO" if result["differences"] else "yes"]


def closing_table(paths, rows):
    """The closing table's lines: one row per recording, named apart (file names are kept whole)."""
    return columns(TABLE, [[_table_name(path, paths), *row] for path, row in zip(paths, rows)], widest=72)


def _table_name(path, paths):
    """A recording's name in the table: the fewest trailing parts of its path that no other
    recording shares (an evaluation names its attempts task-k.json in every folder, so
    `lift/defaults/attempts/path_rules-1.json` where the bare name would be ambiguous)."""
    parts = Path(path).parts
    for size in range(1, len(parts) + 1):
        suffix = parts[-size:]
        if sum(Path(other).parts[-size:] == suffix for other in paths) == 1:
            return str(Path(*suffix))
    return str(path)


def _then(recorded, replayed):
    """One cell: the recorded value, and the replayed one after an arrow when they differ."""
    return recorded if recorded == replayed else f"{recorded} -> {replayed}"
