"""Write the scripted recordings in recordings/ with the real recorder and a fake server.

    python -m testing.make_recordings                 # lists what it would write
    python -m testing.make_recordings --write         # re-records every scripted recording
    python -m testing.make_recordings --write NAME    # just one

For each behaviour below, fake_ollama.py serves a hand-written chunk script over Ollama's
real wire protocol and `record_run.py --scripted --about TEXT` records it, exactly as it would
record a live model. Every file it writes says `source: "scripted"` and what it captures.

What this file deliberately is not: a way to make live recordings. Those come only from
`python record_run.py` against a real Ollama server.
"""
import subprocess
import sys
from pathlib import Path

from command_line.printer import OneLineParser, run_cli
from testing.fake_ollama import Drop, FakeOllama
from testing.scripted import call, calls, done, text, thinking
from workspace.task_catalog import load_task, solution_edits

HERE = Path(__file__).resolve().parent.parent  # the project root
(_FIX,) = solution_edits(load_task())
FIX_OLD = _FIX["old"]
FIX = call("replace_text", old=FIX_OLD, new=_FIX["new"])
READ_CODE = call("read_file", path="path_rules.py")
READ_TESTS = call("read_file", path="tests/test_path_rules.py")
RUN = call("run_tests")
# What a real 1.5B model did here: an edit of text that is not in the file, then the tests.
STUCK_EDIT = call("replace_text", old="old_text", new="new_text")
# What it did most, shown the failure and the file: the file back, unchanged, as its "fix".
UNCHANGED_FILE = text("Here's the modified code for `path_rules.py`:\n\n```python\n"
                      + (HERE / "sample_repo/path_rules.py").read_text(encoding="utf-8") + "```")

SCRIPTS = {
    "fix_in_one_edit": (
        "a successful repair: read, test, one edit, test again, then a short summary", [], [
            [thinking("Read the code and the failing test first."), calls(READ_CODE), calls(READ_TESTS), done()],
            [calls(RUN), done()],
            [thinking("Only '/' is split, so 'src\\\\app.py' is one part."),
             text("Backslashes are never split; I will normalise them first."), done(tool_calls=[FIX])],
            [calls(RUN), done()],
            [text("path_rules.py now turns backslashes into forward slashes "), text("before splitting; "),
             text("all four tests pass."), done()],
        ]),
    "max_turns_one": (
        "a run bounded by --max-turns 1: the first turn's call runs, no second request is made",
        ["--max-turns", "1"], [
            [text("Let me read the code."), done(tool_calls=[READ_CODE])],
        ]),
    "unfinished_stream": (
        "a stream that ends without done:true: an incomplete turn whose tool call never runs", [], [
            [text("I will run "), text("the tests."), calls(RUN)],
        ]),
    "length_stop": (
        "done_reason 'length' (num_predict reached): an incomplete turn, nothing runs", [], [
            [thinking("The test uses Windows separators, so "), text("First I will"), done(reason="length")],
        ]),
    "unknown_tool": (
        "a call to a tool that is not allowlisted is refused with an error result and a nudge; the model goes on",
        [], [
            [done(tool_calls=[call("run_shell", command="pytest -q")])],
            [text("That tool does not exist; running the tests instead."), done(tool_calls=[RUN])],
            [text("One test fails: test_accepts_windows_separators."), done()],
        ]),
    "syntax_error_recovery": (
        "an edit that breaks the syntax; the model reads the collection error and repairs it", [], [
            [done(tool_calls=[call("replace_text", old=FIX_OLD, new=_FIX["new"][:-1])])],
            [done(tool_calls=[RUN])],
            [text("I left a parenthesis open."),
             done(tool_calls=[call("replace_text", old='.split("/"\n', new='.split("/")\n')])],
            [done(tool_calls=[RUN])],
            [text("Fixed: backslashes are normalised and all tests pass."), done()],
        ]),
    "claims_pass_tests_fail": (
        "the final message claims success but the independent pytest run still fails", [], [
            [calls(READ_CODE), done()],
            [done(tool_calls=[call("replace_text", old="in order, with forward slashes.",
                                   new="in order, with forward slashes (Windows paths too).")])],
            [text("Fixed: Windows paths are handled and all tests pass now."), done()],
        ]),
    "text_call_nudged": (
        "a tool call written as a fenced json block is not run (text_calls=nudge): the model is told, "
        "then calls natively", [], [
            [text("I will read the file first.\n```json\n"),
             text('{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n```'), done()],
            [done(tool_calls=[READ_CODE])],
            [text("python_sources splits only on '/'."), done()],
        ]),
    "text_call_run": (
        "tool calls written as text are recovered and run (--text-calls run): a Hermes block, "
        "then Gemma 4 markup", ["--text-calls", "run"], [
            [text('<tool_call>\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n</tool_call>'),
             done()],
            [text("<|tool_call>call:run_tests{}<tool_call|>"), done()],
            [text("One test fails on Windows separators."), done()],
        ]),
    "format_errors": (
        "three malformed turns in a row (empty, a call written as text, an unknown tool) stop the run",
        [], [
            [done()],
            [text("```tool_code\nrun_tests()\n```"), done()],
            [done(tool_calls=[call("shell", command="ls")])],
        ]),
    "unchanged_edits": (
        "the file written back unchanged three times (--text-edits run): each answer is refused as "
        "a no-op, counted apart from malformed turns, and the third stops the run", ["--text-edits", "run"], [
            [UNCHANGED_FILE, done()],
            [UNCHANGED_FILE, done()],
            [UNCHANGED_FILE, done()],
        ]),
    "no_progress": (
        "the loop a real 1.5B model fell into: the same failing edit and test run, warned once, then stopped",
        [], [
            [done(tool_calls=[STUCK_EDIT, RUN])],
            [done(tool_calls=[STUCK_EDIT, RUN])],
            [done(tool_calls=[STUCK_EDIT, RUN])],
            [done(tool_calls=[STUCK_EDIT])],
        ]),
    "finish_checked": (
        "--verify-finish 1: a false claim of success is checked, the failing tests are handed back, "
        "and the model repairs the code", ["--verify-finish", "1"], [
            [text("I fixed the function; all tests pass."), done()],
            [done(tool_calls=[FIX])],
            [done(tool_calls=[RUN])],
            [text("Backslashes are normalised before splitting; all four tests pass."), done()],
        ]),
    "exits_early_not_repaired": (
        "an edit that makes pytest exit 0 before running any test: run_tests says exit_code 0, "
        "the verdict counts 0 of 4 tests passed and says not repaired", [], [
            [done(tool_calls=[call("replace_text", old='"""Choose which',
                                   new='import os\nos._exit(0)\n"""Choose which')])],
            [done(tool_calls=[RUN])],
            [text("run_tests exits with code 0: everything passes."), done()],
        ]),
    "model_error": (
        "the server drops the connection mid-stream: the run stops with model_error, and a served "
        "replay gives the very same error", [], [
            [done(tool_calls=[READ_CODE])],
            [text("Only '/' is split; I will "), Drop()],
        ]),
}


def main(argv=None):
    parser = OneLineParser(description="Re-record the scripted recordings in recordings/ (each overwritten).")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"which (default: all): {', '.join(SCRIPTS)}")
    parser.add_argument("--write", action="store_true", help="really write them; without it, list what would be written")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(SCRIPTS))
    if unknown:
        parser.error(f"no scripted recording named {', '.join(unknown)}")
    chosen = {name: SCRIPTS[name] for name in args.names or SCRIPTS}
    if not args.write:
        print("\n".join(f"would write recordings/{name}.json: {about}" for name, (about, _, _) in chosen.items()))
        print("(pass --write to write them)")
        return 0
    for name, (about, flags, turns) in chosen.items():
        output = HERE / "recordings" / f"{name}.json"
        with FakeOllama(*turns) as server:
            command = [sys.executable, "-B", str(HERE / "record_run.py"), "--host", server.url,
                       "--scripted", "--about", about, "--output", str(output), *flags]
            finished = subprocess.run(command, capture_output=True, text=True)
        print(f"{name}: exit {finished.returncode}, {finished.stdout.strip().splitlines()[-2:]}")
        if finished.returncode != 0 or server.turns:
            print(finished.stdout, finished.stderr, f"unplayed turns: {len(server.turns)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    run_cli(main)
