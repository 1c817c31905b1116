"""TUTORIAL.md stays true: every name, quoted block, command and recording claim it makes is checked.

The conventions the tutorial follows, and that these checks rely on:

- `file.py:name` (or `file.py:Class.method`) in backticks names a function or class that
  `file.py` defines; `test_file.py::test_name` (or `tests/test_file.py::test_name`) names a test
  function (parametrized tests by their base name); a bare `path/file.py` in backticks is a file
  that exists.
- Every fenced block has a language: python, text, json or sh. The line before a fence (blank
  lines skipped) may be a header, "From `SOURCE`:".
  - python: SOURCE is a .py file and the block occurs in it verbatim, as consecutive lines,
    indentation included. A python block without such a header is an error.
  - text after "From `python replay.py --served recordings/NAME.json`:" (NAME may be in a
    subfolder, `recordings/superseded/NAME.json`): what that command
    prints (run here in process, no subprocess). Runs of lines between `[...]` markers occur
    consecutively and in order. A text block without a header is a drawing and is left alone.
  - json after "From `recordings/NAME.json`:": an object whose keys and values all appear in one
    chunk of that recording.
  - sh: each line (comments aside) is a command README.md shows or the suite runs, with
    `.venv/bin/python` read as `python` and FILE standing for an existing file, or a command of
    an entry point in PARSED whose own argument parser accepts it (`python improve.py ...`).
    `python -m pytest -q` may name test files, `file::test` and `-k TEST` (they must exist).
- Inline `python ...` commands in prose follow the same rule.
- Every `recordings/NAME.json` (subfolders too) and every live_qwen15_* name exists (in
  `recordings/` or a subfolder). A phrase
  "`recordings/NAME.json` (stop `REASON`, verdict `VERDICT`)" matches that recording, and so
  does every row of a table with "stop" and "verdict" columns (its other columns too).
- The plain claims about the live model (CLAIMS) hold for every live recording.
- Every count of recordings the prose states ("Eight live recordings", "Three of those", "of 19
  runs recorded") is one COUNTS knows, and it is the count the shipped recordings give.

The last tests break a copy of the tutorial on purpose, one way per check, to show each check
can fail.
"""
import ast
import contextlib
import functools
import importlib
import io
import json
import re
import shlex
from pathlib import Path
from unittest import mock

import pytest

import replay
from settings.named import fields_of

HERE = Path(__file__).resolve().parent.parent  # the project root
# The levers of the README's first measurement, as settings/levers.json holds them.
LEVERS = fields_of(json.loads((HERE / "settings" / "levers.json").read_text()))
TUTORIAL = HERE / "TUTORIAL.md"
README = HERE / "README.md"
LANGUAGES = {"python", "text", "json", "sh"}
FENCE = re.compile(r"(`{3,})([\w-]*)\s*")
HEADER = re.compile(r"From `([^`]+)`:")
SERVED = re.compile(r"python replay\.py --served (recordings/[\w./-]+\.json)")
SKIPPED = "[...]"
REF = re.compile(r"([\w./-]+\.py):([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)")
TEST_REF = re.compile(r"((?:tests/)?test_\w+\.py)::(\w+)")
FILE_REF = re.compile(r"[\w./-]+\.py")
RECORDING = re.compile(r"recordings/([\w./-]+\.json)")
LIVE_NAME = re.compile(r"\blive_qwen15_\w+")
STOP_CLAIM = re.compile(r"`recordings/([\w./-]+\.json)`\s+\(stop\s+`(\w+)`,\s+verdict\s+`([\w ]+)`\)")
PROGRAMS = {"python", "python3", "apt-get", "ollama", "llama-server", "vllm"}
# Commands the suite runs that the README does not spell out (test_recorded.py calls
# replay.main(["--served", path]) and replay.main([path])).
SUITE_RUNS = ["python replay.py --served FILE", "python replay.py FILE"]
LIVE = sorted(HERE.glob("recordings/**/live_qwen15_*.json"))
# Entry points whose commands the tutorial may show beyond README.md's: a command counts when the
# entry point's own parser accepts its flags (module, function returning or raising SystemExit).
PARSED = {"improve.py": ("improve", "parse_args"), "fix.py": ("fixing.flags", "parse_args")}


def _native_calls(recording):
    return any(isinstance(chunk, dict) and isinstance(chunk.get("message"), dict)
               and chunk["message"].get("tool_calls")
               for turn in recording["turns"] for chunk in turn["chunks"])


# Plain sentences about the live model, and what each one means in the recordings.
def _levers_off(recordings):
    return [r for r in recordings if r["settings"].get("context", "tools") == "tools"
            and r["settings"].get("text_edits", "off") == "off"]


# Each claim is checked on the recordings it speaks of: all of them, the sample's, or those
# made with the levers off.
CLAIMS = {
    "never made a native tool call": lambda recordings: not any(map(_native_calls, recordings)),
    "never repaired the sample": lambda recordings: all(
        r["verdict"] != "repaired" for r in recordings if r.get("task_name", "path_rules") == "path_rules"),
    "with the levers off, the check never fired": lambda recordings: not any(
        e.get("by_harness") for r in _levers_off(recordings) for e in r["events"]),
}
# Counts the tutorial states about the shipped recordings: a phrase of the flattened, lower-case
# prose with {n} where the count stands, and the true count. Every such count must be here: a
# number of recordings (or runs, or "N of those") anywhere else in the prose is a problem.
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                "fifteen sixteen seventeen eighteen nineteen twenty").split()
COUNT = r"(\d+|" + "|".join(NUMBER_WORDS) + r")"
UNCHECKED = re.compile(rf"\b{COUNT} (?:(?:live|other|more|shipped) )?(?:recordings|runs recorded)\b"
                       rf"|\b{COUNT} of (?:those|them)\b")


def _live(folder=None):
    return [recording(path.relative_to(HERE / "recordings").as_posix()) for path in LIVE
            if folder is None or path.parent.name == folder]


@functools.cache  # read once: every check of the counts (and every doctored copy) asks again
def _measured_with_levers():
    return tuple(json.loads(path.read_text(encoding="utf-8"))
                 for path in sorted(HERE.glob("measurements/record-levers/*.json")))


@functools.cache
def _changed_by_a_format_error_limit_of_two():
    """Exercise 2: the live recordings `python replay.py --served` no longer replays as recorded."""
    from loop import turn_policy
    with mock.patch.object(turn_policy, "FORMAT_ERROR_LIMIT", 2):
        return sum(bool(replay.replay(path, served=True)["differences"]) for path in LIVE
                   if path.parent.name == "recordings")


COUNTS = {
    r"{n} live recordings come from": lambda: len(LIVE),
    r"{n} were made with the levers off": lambda: len(_levers_off(_live())),
    r"{n} of those are in `recordings/`": lambda: len(_levers_off(_live("recordings"))),
    r"{n} are in `recordings/superseded/`": lambda: len(_live("superseded")),
    r"this change made {n} live recordings untrue": lambda: len(_live("superseded")),
    r"{n} of them asked for `--verify-finish 2`": lambda: sum(
        r["settings"]["verify_finish"] == 2 for r in _levers_off(_live())),
    r"the other {n} recordings ran with every lever on": lambda: sum(
        all(r["settings"].get(key) == value for key, value in LEVERS.items()) for r in _live()),
    r"of {n} runs recorded this way": lambda: len(_measured_with_levers()),
    r"\(the readme counts them\), {n} repaired": lambda: sum(r["verdict"] == "repaired" for r in _measured_with_levers()),
    r"{n} live recordings change too": _changed_by_a_format_error_limit_of_two,
    r"why those {n}\?": _changed_by_a_format_error_limit_of_two,
}


# Table columns and how to read each one from a recording.
COLUMNS = {
    "stop": lambda r: r["stop"]["reason"],
    "verdict": lambda r: r["verdict"],
    "turns": lambda r: str(len(r["turns"])),
    "text_calls": lambda r: r["settings"]["text_calls"],
    "verify_finish": lambda r: str(r["settings"]["verify_finish"]),
    "seed": lambda r: str(r["settings"]["options"]["seed"]),
    "temperature": lambda r: float(r["settings"]["options"]["temperature"]),
    "task": lambda r: r["task_name"],
}


# --- reading the tutorial ---------------------------------------------------------------------

def parse(text):
    """(prose, blocks): the text with every fenced block blanked out (line numbers kept), and the
    blocks as dicts {"lang", "lines", "source" (from a From header, or None), "line"}."""
    lines, blocks, found = text.splitlines(), [], []
    prose = list(lines)
    i = 0
    while i < len(lines):
        opened = FENCE.fullmatch(lines[i])
        if not opened:
            i += 1
            continue
        ticks, lang = opened.groups()
        end = next((j for j in range(i + 1, len(lines)) if re.fullmatch(f"`{{{len(ticks)},}}\\s*", lines[j])),
                   None)
        if end is None:
            found.append(f"line {i + 1}: a fence that is never closed")
            end = len(lines)
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        header = HEADER.fullmatch(before)
        blocks.append({"lang": lang, "lines": lines[i + 1:end], "line": i + 1,
                       "source": header.group(1) if header else None})
        prose[i:end + 1] = [""] * (min(end + 1, len(lines)) - i)
        i = end + 1
    return "\n".join(prose), blocks, found


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def spans(prose):
    """(line, text) of every inline code span, paired left to right."""
    return [(line_of(prose, m.start()), " ".join(m.group(1).split())) for m in re.finditer(r"`([^`]+)`", prose)]


# --- the facts the checks compare against -----------------------------------------------------

@functools.cache
def definitions(path):
    """Names a module defines: functions and classes, and Class.method."""
    tree = ast.parse((HERE / path).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {f"{node.name}.{item.name}" for item in node.body
                      if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return frozenset(names)


@functools.cache
def source_lines(path):
    return tuple((HERE / path).read_text(encoding="utf-8").splitlines())


@functools.cache
def recording(name):
    return json.loads((HERE / "recordings" / name).read_text(encoding="utf-8"))


@functools.cache
def served_transcript(path):
    """What `python replay.py --served PATH` prints, run in this process: (exit code, lines)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        code = replay.main(["--served", str(HERE / path)])
    return code, tuple(printed.getvalue().splitlines())


def command_words(command):
    """A command as words: no trailing comment or `&`, `.venv/bin/python` read as `python`."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    while words and words[-1] == "&":
        words.pop()
    if words and words[0] == ".venv/bin/python":
        words[0] = "python"
    return words


@functools.cache
def allowed_commands():
    """Command templates: every command in README.md's code (split at &&), every inline
    `python ...` it shows, and SUITE_RUNS."""
    text = README.read_text(encoding="utf-8")
    found, prose, in_fence = list(SUITE_RUNS), [], False
    for line in text.splitlines():
        fence = FENCE.fullmatch(line.strip())
        in_fence = in_fence != bool(fence)
        if fence or in_fence or line.startswith("    "):  # code: fenced or indented
            found += line.split("&&")
        else:
            prose.append(line)
    found += [span for _, span in spans("\n".join(prose)) if span.startswith(("python ", ".venv/bin/python "))]
    templates = {tuple(command_words(command)) for command in found}
    return frozenset(t for t in templates if t and t[0] in PROGRAMS)


def is_file(word):
    return word == "FILE" or (HERE / word).is_file()


def fits(template, words):
    if template[-2:] == ("[FILE", "...]"):
        fixed = template[:-2]
        return fits(fixed, words[:len(fixed)]) and all(map(is_file, words[len(fixed):]))
    return len(template) == len(words) and all(
        t == w or (t == "FILE" and is_file(w)) for t, w in zip(template, words))


def defined_tests(path):
    return {name.split(".")[-1] for name in definitions(path) if name.split(".")[-1].startswith("test_")}


def pytest_problem(words):
    """Why `python -m pytest -q ...` names something that does not exist, or None."""
    files, selected, rest = [], [], list(words)
    while rest:
        word = rest.pop(0)
        if word in ("-q", "-x"):
            continue
        if word in ("-p", "-n", "-k") and rest:
            value = rest.pop(0)
            if word == "-k":
                selected.append(value)
            elif (word, value) not in (("-p", "no:cacheprovider"),) and not (word == "-n" and value.isdigit()):
                return f"pytest option {word} {value} is not one the tutorial may show"
            continue
        file, _, test = word.partition("::")
        if not re.fullmatch(r"(tests/)?test_\w+\.py", file) or not (HERE / file).is_file():
            return f"pytest is given {word!r}, which is no test file here"
        files.append(file)
        if test:
            selected.append(test)
    known = set().union(*(defined_tests(f) for f in files or [p.name for p in HERE.glob("test_*.py")]))
    missing = [name for name in selected if name not in known]
    return f"no test named {missing[0]!r}" if missing else None


def parser_accepts(words):
    """Whether `python SCRIPT ...` is an entry point in PARSED whose own parser takes these flags."""
    if len(words) < 2 or words[0] != "python" or words[1] not in PARSED:
        return False
    module, function = PARSED[words[1]]
    parse = getattr(importlib.import_module(module), function)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            parse(words[2:])
    except SystemExit:
        return False
    return True


def command_problem(command):
    words = command_words(command)
    if words[:3] == ["python", "-m", "pytest"] and "-q" in words:
        return pytest_problem(words[3:])
    if any(fits(template, tuple(words)) for template in allowed_commands()) or parser_accepts(words):
        return None
    return f"command {command!r} is neither in README.md nor run by the suite, nor taken by its own parser"


# --- the checks --------------------------------------------------------------------------------

def block_problems(blocks):
    problems = []
    for block in blocks:
        where, lang, source, body = f"line {block['line']}", block["lang"], block["source"], block["lines"]
        if lang not in LANGUAGES:
            problems.append(f"{where}: a fence with language {lang!r}; use one of {sorted(LANGUAGES)}")
        elif lang == "python":
            problems += excerpt_problems(where, source, body)
        elif lang == "text" and source:
            problems += transcript_problems(where, source, body)
        elif lang == "json":
            problems += chunk_problems(where, source, body)
        elif lang == "sh":
            problems += [f"{where}: {p}" for line in body if command_words(line)
                         for p in [command_problem(line)] if p]
    return problems


def excerpt_problems(where, source, body):
    if not source or not source.endswith(".py"):
        return [f"{where}: python code without a 'From `file.py`:' line before it"]
    if not (HERE / source).is_file():
        return [f"{where}: quotes {source}, which does not exist"]
    lines = source_lines(source)
    if not body:
        return [f"{where}: an empty excerpt of {source}"]
    if any(lines[k:k + len(body)] == tuple(body) for k in range(len(lines) - len(body) + 1)):
        return []
    starts = [k for k, line in enumerate(lines) if line == body[0]]
    if not starts:
        return [f"{where}: excerpt of {source} starts with a line {source} does not have: {body[0]!r}"]
    k = starts[0]
    differs = next(i for i, line in enumerate(body) if k + i >= len(lines) or lines[k + i] != line)
    return [f"{where}: excerpt of {source} differs from the source at its line {differs + 1}: "
            f"{body[differs]!r} here, {lines[k + differs] if k + differs < len(lines) else '(end of file)'!r} there"]


def transcript_problems(where, source, body):
    served = SERVED.fullmatch(source)
    if not served or not (HERE / served.group(1)).is_file():
        return [f"{where}: a text block after From `{source}`, which is no served replay of a recording"]
    code, printed = served_transcript(served.group(1))
    problems = [] if code == 0 else [f"{where}: {source} exits {code}: the recording no longer replays"]
    groups, group = [], []
    for line in body + [SKIPPED]:
        if line == SKIPPED:
            groups, group = groups + ([group] if group else []), []
        else:
            group.append(line)
    at = 0
    for group in groups:
        found = next((k for k in range(at, len(printed) - len(group) + 1)
                      if printed[k:k + len(group)] == tuple(group)), None)
        if found is None:
            return problems + [f"{where}: {source} does not print these lines (in this order): {group[0]!r}..."]
        at = found + len(group)
    return problems


def chunk_problems(where, source, body):
    try:
        quoted = json.loads("\n".join(body))
    except ValueError as error:
        return [f"{where}: the json block does not parse: {error}"]
    if source is None:
        return []
    named = RECORDING.fullmatch(source)
    if not named or not (HERE / source).is_file():
        return [f"{where}: a json block after From `{source}`, which is no recording here"]
    chunks = [c for turn in recording(named.group(1))["turns"] for c in turn["chunks"] if isinstance(c, dict)]
    if isinstance(quoted, dict) and any(all(key in c and c[key] == value for key, value in quoted.items())
                                        for c in chunks):
        return []
    return [f"{where}: no chunk of {source} holds the quoted keys and values"]


def prose_problems(prose):
    problems = []
    for line, span in spans(prose):
        where = f"line {line}"
        if span.startswith(("python ", ".venv/bin/python ")):
            problem = command_problem(span)
            problems += [f"{where}: {problem}"] if problem else []
        elif ref := REF.fullmatch(span):
            path, name = ref.groups()
            if not (HERE / path).is_file():
                problems.append(f"{where}: `{span}` names {path}, which does not exist")
            elif name not in definitions(path):
                problems.append(f"{where}: `{span}`: {path} defines no {name}")
        elif test := TEST_REF.fullmatch(span):
            path, name = test.groups()
            if not (HERE / path).is_file() or name not in defined_tests(path):
                problems.append(f"{where}: `{span}` is no test in this repository")
        elif FILE_REF.fullmatch(span) and not (HERE / span).is_file():
            problems.append(f"{where}: `{span}` is no file in this repository")
    return problems


def recording_problems(text, prose):
    problems = []
    for match in RECORDING.finditer(text):
        if not (HERE / "recordings" / match.group(1)).is_file():
            problems.append(f"line {line_of(text, match.start())}: recordings/{match.group(1)} does not exist")
    for match in LIVE_NAME.finditer(text):
        if not any(path.stem == match.group() for path in LIVE):
            problems.append(f"line {line_of(text, match.start())}: no recording named {match.group()}")
    for match in STOP_CLAIM.finditer(prose):
        name, stop, verdict = match.groups()
        if not (HERE / "recordings" / name).is_file():
            continue  # reported above
        actual = recording(name)["stop"]["reason"], recording(name)["verdict"]
        if (stop, verdict) != actual:
            problems.append(f"line {line_of(prose, match.start())}: recordings/{name} stops with {actual[0]!r} "
                            f"and is {actual[1]!r}, not {stop!r} and {verdict!r}")
    return problems + table_problems(prose)


def table_problems(prose):
    problems, rows = [], []
    for number, line in enumerate(prose.splitlines() + [""], 1):
        if line.startswith("|"):
            rows.append((number, [cell.strip() for cell in line.strip().strip("|").split("|")]))
            continue
        if rows and {"stop", "verdict"} <= set(rows[0][1]):
            header = rows[0][1]
            unknown = [column for column in header[1:] if column not in COLUMNS]
            if unknown:
                problems.append(f"line {rows[0][0]}: table column {unknown[0]!r} is not checked by test_tutorial.py")
            for at, cells in rows[2:]:
                name = cells[0].strip("`").removeprefix("recordings/").removesuffix(".json") + ".json"
                if not (HERE / "recordings" / name).is_file():
                    problems.append(f"line {at}: the table names {cells[0]}, which is no recording")
                    continue
                for column, cell in zip(header[1:], cells[1:]):
                    if column in COLUMNS:
                        actual, shown = COLUMNS[column](recording(name)), cell.strip("`")
                        same = _number(shown) == actual if isinstance(actual, float) else shown == actual
                        if not same:
                            problems.append(f"line {at}: {name}: {column} is {actual!r}, the table says {shown!r}")
        rows = []
    return problems


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def claim_problems(prose):
    flat = " ".join(prose.split()).lower()
    recordings = [recording(path.relative_to(HERE / "recordings").as_posix()) for path in LIVE]
    return [f"the tutorial says the live model {claim!r}, but a live recording shows otherwise"
            for claim, holds in CLAIMS.items() if claim in flat and not holds(recordings)]


def count_problems(prose):
    """Each count COUNTS knows that the prose states wrongly, and each count of recordings it
    states that COUNTS does not know."""
    flat, problems, checked = " ".join(prose.split()).lower(), [], []
    for phrase, truth in COUNTS.items():
        for match in re.finditer(phrase.replace("{n}", COUNT), flat):
            checked.append(match.span())
            stated = int(match.group(1)) if match.group(1).isdigit() else NUMBER_WORDS.index(match.group(1))
            if stated != truth():
                problems.append(f"the tutorial says {match.group()!r}; the recordings say {truth()}")
    for match in UNCHECKED.finditer(flat):
        if not any(start <= match.start() and match.end() <= end for start, end in checked):
            problems.append(f"the tutorial counts recordings in {flat[match.start():match.end() + 40]!r}, "
                            "which no test checks: add the phrase to COUNTS in tests/test_tutorial.py")
    return problems


def problems(text):
    """Everything in `text` (a tutorial) that is not true of this repository."""
    prose, blocks, found = parse(text)
    return (found + block_problems(blocks) + prose_problems(prose)
            + recording_problems(text, prose) + claim_problems(prose) + count_problems(prose))


def readme_problem(readme_text, lines=10):
    if any("](TUTORIAL.md)" in line for line in readme_text.splitlines()[:lines]):
        return None
    return f"README.md does not link TUTORIAL.md in its first {lines} lines"


# --- the tests ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tutorial():
    return TUTORIAL.read_text(encoding="utf-8")


def test_every_quoted_block_is_true(tutorial):
    prose, blocks, found = parse(tutorial)
    assert found + block_problems(blocks) == []
    assert any(block["lang"] == "python" for block in blocks) and any(block["source"] and block["lang"] == "text"
                                                                       for block in blocks)


def test_every_name_file_test_and_inline_command_exists(tutorial):
    assert prose_problems(parse(tutorial)[0]) == []


def test_every_recording_claim_matches_the_recording(tutorial):
    prose = parse(tutorial)[0]
    assert recording_problems(tutorial, prose) == []
    assert STOP_CLAIM.search(prose) and LIVE  # the conventions are in use


def test_the_plain_claims_about_the_live_model_hold_and_are_made(tutorial):
    prose = " ".join(parse(tutorial)[0].split()).lower()
    assert claim_problems(parse(tutorial)[0]) == []
    assert "never made a native tool call" in prose and "never repaired the sample" in prose


def test_every_count_of_the_shipped_recordings_holds_and_is_checked(tutorial):
    prose = parse(tutorial)[0]
    assert count_problems(prose) == []
    flat = " ".join(prose.split()).lower()
    unused = [phrase for phrase in COUNTS if not re.search(phrase.replace("{n}", COUNT), flat)]
    assert unused == [], "the tutorial no longer states these counts: take them out of COUNTS"


def test_the_readme_links_the_tutorial_in_its_first_lines():
    assert readme_problem(README.read_text(encoding="utf-8")) is None


def test_the_readme_check_can_fail():
    assert readme_problem("# coding-loop\n\nA harness.\n" + "\n" * 20 + "[TUTORIAL.md](TUTORIAL.md)\n")


def test_the_readme_commands_are_found():
    assert ("python", "replay.py") in allowed_commands()
    assert any(template[:4] == ("python", "-m", "pytest", "-q") for template in allowed_commands())
    assert ("python", "evaluate.py", "--scripted", "--jobs", "2") in allowed_commands()


# One doctored copy per check: (text to change, what to change it to, part of the expected problem).
DOCTORED = [
    ('yield _stopped(turn - 1, run.budget.reason())', 'yield _stopped(turn, run.budget.reason())', "differs from the source"),
    ("`loop/judge.py:judge_turn`", "`loop/judge.py:judge_turns`", "defines no judge_turns"),
    ("`workspace/sandbox.py:wrap`", "`workspace/sandbox_tools.py:wrap`", "does not exist"),
    ("test_length_stop_is_incomplete_and_runs_no_tool`", "test_length_stop_is_complete`", "is no test"),
    ("python replay.py --served recordings/length_stop.json\n", "python replay.py --fast recordings/length_stop.json\n",
     "neither in README.md nor run by the suite"),
    ("-k test_length_stop_is_incomplete_and_runs_no_tool\n", "-k test_length_stops\n", "no test named"),
    ("| 8 | `max_turns` |", "| 8 | `no_progress` |", "stop is 'max_turns'"),
    ("| 0.7 | 11 |", "| 0.7 | 7 |", "seed is '11'"),
    ("| 0.7 | 11 |", "| warm | 11 |", "temperature is 0.7"),
    ("\n## 10. Exercises", "\n````text\nnever closed\n\n## 10. Exercises", "never closed"),
    ("(stop `no_progress`, verdict", "(stop `max_turns`, verdict", "stops with 'no_progress'"),
    ("recordings/max_turns_one.json", "recordings/max_turn_one.json", "does not exist"),
    ("Fixed: Windows paths are handled", "Fixed: Windows paths are now handled", "does not print these lines"),
    ('"name": "run_tests", "arguments": {}}}]}}', '"name": "run_test", "arguments": {}}}]}}', "no chunk of"),
    ("\n## 10. Exercises", "\n```python\nprint('not from any file')\n```\n\n## 10. Exercises", "without a 'From"),
    ("\n## 10. Exercises", "\n```\nno language\n```\n\n## 10. Exercises", "a fence with language ''"),
    ("| turns | stop |", "| model | stop |", "column 'model' is not checked"),
    ("`live_qwen15_t0_nudge`", "`live_qwen15_t0_nudged`", "no recording named live_qwen15_t0_nudged"),
    ("`superseded/live_qwen15_t07_run`", "`superseded/live_qwen15_t07_ran`", "no recording named live_qwen15_t07_ran"),
    ("`tests/test_levers.py::test_an_edit_that_changes_nothing_is_refused`",
     "`tests/test_levers.py::test_an_edit_that_changes_nothing`", "is no test"),
    ("--jobs 1 --out /tmp/tut-imp\n", "--workers 1 --out /tmp/tut-imp\n", "nor taken by its own parser"),
    ("Three live recordings change too", "Two live recordings change too", "the recordings say 3"),
    ("Eight live recordings", "Nine live recordings", "the recordings say 8"),
    ("of 19\nruns recorded", "of 18\nruns recorded", "the recordings say 19"),
    ("\n## 10. Exercises", "\nFour recordings are new.\n\n## 10. Exercises", "which no test checks"),
]


@pytest.mark.parametrize("old, new, expected", DOCTORED, ids=[expected for _, _, expected in DOCTORED])
def test_each_check_catches_a_doctored_copy(tutorial, old, new, expected):
    assert old in tutorial, "the doctored text no longer occurs; pick another"
    found = problems(tutorial.replace(old, new, 1))
    assert any(expected in problem for problem in found), found


def test_a_false_claim_about_the_live_model_is_caught(monkeypatch, tutorial):
    monkeypatch.setitem(CLAIMS, "never made a native tool call", lambda recordings: False)
    assert any("never made a native tool call" in p for p in claim_problems(parse(tutorial)[0]))
