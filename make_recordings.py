"""Write the scripted recordings in recordings/ with the real recorder and a fake server.

    python make_recordings.py

For each behaviour below, fake_ollama.py serves a hand-written chunk script over Ollama's
real wire protocol and `record_run.py --scripted ABOUT` records it, exactly as it would
record a live model. Every file it writes says `source: "scripted"` and what it captures.

What this file deliberately is not: a way to make live recordings. Those come only from
`python record_run.py` against a real Ollama server.
"""
import subprocess
import sys
from pathlib import Path

from fake_ollama import FakeOllama
from scripted import call, calls, done, text, thinking

HERE = Path(__file__).parent
FIX_OLD = 'parts = path.split("/")'
FIX = call("replace_text", old=FIX_OLD, new='parts = path.replace("\\\\", "/").split("/")')
READ_CODE = call("read_file", path="path_rules.py")
READ_TESTS = call("read_file", path="tests/test_path_rules.py")
RUN = call("run_tests")

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
        "a call to a tool that is not allowlisted gets an error result, and the model goes on", [], [
            [done(tool_calls=[call("run_shell", command="pytest -q")])],
            [text("That tool does not exist; running the tests instead."), done(tool_calls=[RUN])],
            [text("One test fails: test_accepts_windows_separators."), done()],
        ]),
    "syntax_error_recovery": (
        "an edit that breaks the syntax; the model reads the collection error and repairs it", [], [
            [done(tool_calls=[call("replace_text", old=FIX_OLD,
                                   new='parts = path.replace("\\\\", "/").split("/"')])],
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
}


def main():
    for name, (about, flags, turns) in SCRIPTS.items():
        output = HERE / "recordings" / f"{name}.json"
        with FakeOllama(*turns) as server:
            command = [sys.executable, str(HERE / "record_run.py"), "--host", server.url,
                       "--scripted", about, "--output", str(output), *flags]
            finished = subprocess.run(command, capture_output=True, text=True)
        print(f"{name}: exit {finished.returncode}, {finished.stdout.strip().splitlines()[-2:]}")
        if finished.returncode != 0 or server.turns:
            print(finished.stdout, finished.stderr, f"unplayed turns: {len(server.turns)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
