"""The terminal printer: streamed text stays together, everything else is one line."""
import io

from command_line.printer import Printer


def show(events, **options):
    out = io.StringIO()  # not a terminal: no colour codes
    printer = Printer(out=out, **options)
    for event in events:
        printer(event)
    return out.getvalue()


EVENTS = [
    {"type": "model_start", "turn": 1},
    {"type": "thinking_delta", "turn": 1, "text": "Check "},
    {"type": "thinking_delta", "turn": 1, "text": "first."},
    {"type": "text_delta", "turn": 1, "text": "Running "},
    {"type": "text_delta", "turn": 1, "text": "tests."},
    {"type": "tool_start", "turn": 1, "index": 0, "name": "run_tests", "arguments": {}},
    {"type": "tool_result", "turn": 1, "index": 0, "name": "run_tests", "result": {
        "exit_code": 2, "output": "...", "passed": 0, "failed": 0, "errors": 1, "timed_out": False, "sandbox": "none"}},
    {"type": "tool_start", "turn": 1, "index": 1, "name": "nope", "arguments": "x"},
    {"type": "tool_result", "turn": 1, "index": 1, "name": "nope", "result": {"error": "unknown tool 'nope'"}},
    {"type": "stopped", "turn": 1, "reason": "model_error", "error": "ModelUnavailable: gone"},
]


def test_thinking_is_hidden_unless_asked_and_text_streams_on_one_line():
    assert show(EVENTS).splitlines() == [
        "--- turn 1 ---",
        "Running tests.",
        "> run_tests()",
        "< run_tests: exit_code 2, 0 passed, 0 failed, 1 errors [sandbox: none]",
        "> nope('x')",
        "< nope: error: unknown tool 'nope'",
        "stopped: model_error after turn 1 (ModelUnavailable: gone)",
    ]


def test_shown_thinking_gets_its_own_line_and_no_colour_codes_off_a_terminal():
    lines = show(EVENTS, show_thinking=True).splitlines()
    assert lines[1:3] == ["Check first.", "Running tests."]
    assert "\x1b" not in "".join(lines)


def test_what_a_message_showed_by_definitions_is_one_line():
    event = {"type": "definitions_shown", "turn": 1, "path": "pkg/ledger.py", "lines": 601, "why": "focus",
             "definitions": ["Account7.rate2", "total\x1b[2J"], "outlined": 140}
    assert show([event]).splitlines() == [
        "= shown by definitions: pkg/ledger.py (601 lines): whole: Account7.rate2, total\\x1b[2J [focus]; outline: 140 more"]
