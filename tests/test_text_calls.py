"""Tool calls written as text: a corpus of model replies, each beside the calls it holds.

Every row is (id, reply, expected calls as (name, arguments)). Read the rows as a catalogue of
the forms small models use; text_calls.py says how each is recognised.
"""
import time

import pytest

from loop.text_calls import find_text_calls
from loop.tool_checks import argument_problem


def schema(name, *params):
    """A flat, string-only function tool, shaped like the sample's."""
    return {"type": "function", "function": {"name": name, "description": f"the {name} tool",
            "parameters": {"type": "object", "required": list(params),
                           "properties": {p: {"type": "string", "description": p} for p in params}}}}


SCHEMAS = [schema("read_file", "path"), schema("replace_text", "old", "new"), schema("run_tests")]
READ = ("read_file", {"path": "path_rules.py"})
RUN = ("run_tests", {})
FIX = ("replace_text", {"old": 'path.split("/")', "new": 'path.replace(os.sep, "/").split("/")'})
PROSE = "Let me look at the code first.\n\n"

CORPUS = [
    # 1. Gemma 4 markup: bare keys, <|"|> as the string quote, wrapper <|tool_call>...<tool_call|>.
    ("gemma", '<|tool_call>call:read_file{path:<|"|>path_rules.py<|"|>}<tool_call|>', [READ]),
    ("gemma_in_prose", PROSE + '<|tool_call>call:read_file{path:<|"|>path_rules.py<|"|>}<tool_call|>\n'
     "Then I will fix it.", [READ]),
    ("gemma_two_keys", '<|tool_call>call:replace_text{old:<|"|>path.split("/")<|"|>,'
     'new:<|"|>path.replace(os.sep, "/").split("/")<|"|>}<tool_call|>', [FIX]),
    ("gemma_no_closer", '<|tool_call>call:run_tests{}', [RUN]),
    ("gemma_numbers_and_booleans", '<|tool_call>call:read_file{path:<|"|>a.py<|"|>,n:42,all:true}'
     "<tool_call|>", [("read_file", {"path": "a.py", "n": 42, "all": True})]),
    # 2. The same without the wrapper (Gemma behind vLLM): JSON quotes, <|"|> quotes, or none.
    ("gemma_bare", 'call:read_file{path:"path_rules.py"}', [READ]),
    ("gemma_bare_in_prose", PROSE + 'call:read_file{path:<|"|>path_rules.py<|"|>} and then tests.', [READ]),
    ("gemma_bare_unquoted", "call:read_file{path:path_rules.py}", [READ]),
    ("gemma_inside_a_word", 'I recall:read_file{path:"path_rules.py"} was slow.', []),
    # 3. A fenced tool_code block in Python call syntax; positionals follow the schema's order.
    ("tool_code", '```tool_code\nread_file(path="path_rules.py")\n```', [READ]),
    ("tool_code_in_prose", PROSE + "```tool_code\nprint(default_api.read_file('path_rules.py'))\n```\n"
     "I will wait for the result.", [READ]),
    ("tool_code_positional", """```tool_code\nreplace_text('path.split("/")', 'path.replace(os.sep, "/").split("/")')"""
     "\n```", [FIX]),
    # 4. Hermes / Qwen 2.5: JSON inside <tool_call> tags; arguments may be a JSON string.
    ("hermes", '<tool_call>\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n</tool_call>',
     [READ]),
    ("hermes_in_prose", PROSE + '<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>\nDone.', [RUN]),
    ("hermes_arguments_as_string",
     '<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"path_rules.py\\"}"}</tool_call>', [READ]),
    ("hermes_in_unlabelled_fence", '```\n<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>\n```',
     [RUN]),
    # 5. A fenced json block (or an unlabelled one): one object, a list, or several in a row.
    ("json_fence", '```json\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n```', [READ]),
    ("json_fence_in_prose", PROSE + '```json\n{"name": "read_file", "parameters": {"path": "path_rules.py"}}'
     "\n```\nThis will show me the file.", [READ]),
    ("unlabelled_fence", '```\n{"name": "run_tests", "arguments": {}}\n```', [RUN]),
    ("json_fence_list", '```json\n[{"name": "read_file", "arguments": {"path": "path_rules.py"}},\n'
     ' {"name": "run_tests", "arguments": {}}]\n```', [READ, RUN]),
    ("json_fence_objects_in_a_row", '```json\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n'
     '{"name": "run_tests"}\n```', [READ, RUN]),
    # The shape a small model wrote under fix.py (issue 22; that reply was not kept, so the rows
    # rebuild it as described): JSON objects one per line under a `# tools` comment line. The
    # Python calls under `# tools` lines are Qwen2.5-Coder-1.5B's own, kept in measurements/lift/.
    ("json_lines_under_tools_comment", "I will read the module, then run the tests.\n\n```json\n# tools\n"
     '{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n{"name": "run_tests", "arguments": {}}\n```',
     [READ, RUN]),
    ("json_lines_under_tools_comment_python_fence", '```python\n# tools\n{"name": "read_file", "arguments": '
     '{"path": "path_rules.py"}}\n# tools\n{"name": "run_tests", "arguments": {}}\n```', [READ, RUN]),
    ("json_lines_under_tools_comment_unlabelled", '```\n# tools\n{"name": "run_tests", "arguments": {}}  # then read\n'
     '{"name": "read_file", "parameters": {"path": "path_rules.py"}}\n```', [RUN, READ]),
    ("python_calls_under_tools_comments", '```python\n# tools\nread_file("path_rules.py")\n# tools\nrun_tests()\n```',
     [READ, RUN]),
    ("json_lines_broken_under_tools_comment", '```json\n# tools\n{"name": "read_file", "arguments": {"path": "x.py"\n```',
     [("read_file", '{"path": "x.py"')]),
    ("comment_then_prose_in_json_fence", '```json\n# Steps: read_file, then run_tests\nFirst I read it.\n```', []),
    # 6. The whole reply is one bare JSON object (qwen2.5-coder, llama3.1 via /v1).
    ("bare_json", '{"name": "read_file", "arguments": {"path": "path_rules.py"}}', [READ]),
    ("bare_json_then_prose", '{"name": "run_tests", "arguments": {}}\nThis runs the tests.', [RUN]),
    ("bare_json_parameters", '\n  {"name": "run_tests", "parameters": {}}  \n', [RUN]),
    # 7. qwen3-coder: XML-ish tags, one <parameter=...> per argument; values are strings.
    ("qwen3_coder", "<tool_call>\n<function=read_file>\n<parameter=path>\npath_rules.py\n</parameter>\n"
     "</function>\n</tool_call>", [READ]),
    ("qwen3_coder_no_opener", PROSE + '<function=replace_text>\n<parameter=old>\npath.split("/")\n</parameter>\n'
     '<parameter=new>\npath.replace(os.sep, "/").split("/")\n</parameter>\n</function>\n</tool_call>', [FIX]),
    ("qwen3_coder_no_parameters", "<function=run_tests>\n</function>", [RUN]),
    # A python fence counts only when every statement in it is a bare call of a known tool.
    ("python_fence_of_calls", PROSE + '```python\nread_file(path="path_rules.py")\nrun_tests()\n```',
     [READ, RUN]),
    ("python_fence_multiline_call", """```python\nreplace_text(\n    old='path.split("/")',\n"""
     """    new='path.replace(os.sep, "/").split("/")',\n)\n```""", [FIX]),
    ("python_fence_of_json", '```python\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n```',
     [READ]),
    ("python_sample_explained", "The bug is here:\n```python\ndef load():\n"
     '    return read_file(path="path_rules.py")\n```\nThe function reads the file.', []),
    ("python_sample_with_markup", '```python\nEXAMPLE = \'<tool_call>{"name": "run_tests"}</tool_call>\'\n```',
     []),
    # Several calls in one reply, in different forms, come back in order of appearance.
    ("mixed_forms", 'First:\n<|tool_call>call:read_file{path:<|"|>path_rules.py<|"|>}<tool_call|>\n'
     'then\n```json\n{"name": "run_tests", "arguments": {}}\n```', [READ, RUN]),
    ("two_hermes", '<tool_call>{"name": "read_file", "arguments": {"path": "path_rules.py"}}</tool_call>\n'
     '<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>', [READ, RUN]),
    # Broken JSON in a recognisable wrapper: the call, with its raw argument text to report.
    ("hermes_broken_json", '<tool_call>{"name": "read_file", "arguments": {"path": "x.py"</tool_call>',
     [("read_file", '{"path": "x.py"')]),
    ("hermes_missing_outer_brace", '<tool_call>{"name": "read_file", "arguments": {"path": "path_rules.py"}'
     "</tool_call>", [READ]),
    ("broken_json_no_name", '<tool_call>{"nme": "read_file", "arguments": {"path": </tool_call>', []),
    ("tool_code_variable", "```tool_code\nread_file(path=name) # é\n```", [("read_file", "path=name")]),
    ("tool_code_broken", '```tool_code\nread_file(path="path_rules.py"\n```',
     [("read_file", 'path="path_rules.py"')]),
    # Not calls: unknown tools, mentions, explanations, schema echoes, claims, nothing at all.
    ("unknown_tool", '<tool_call>{"name": "delete_repo", "arguments": {}}</tool_call> and read_file later', []),
    ("unknown_tool_beside_known", 'call:shell{cmd:"rm -rf /"} call:read_file{path:"path_rules.py"}', [READ]),
    ("inline_backticks", 'You can call `read_file(path="path_rules.py")` to see the file.', []),
    # Markup quoted in inline code is prose about a call; outside it, or in a fence, it counts.
    ("inline_backticks_qwen3", "Next time write `<function=read_file><parameter=path>path_rules.py</parameter>"
     "</function>` instead.", []),
    ("inline_backticks_gemma", 'The model wrote `call:read_file{path:"path_rules.py"}` in its reply.', []),
    ("inline_double_backticks_hermes", 'The format is ``<tool_call>{"name": "run_tests"}</tool_call>``.', []),
    ("call_after_inline_code", 'I will use `read_file` now: call:read_file{path:"path_rules.py"}', [READ]),
    ("unclosed_backtick_then_a_call", "Don`t worry.\n\ncall:read_file{path:\"path_rules.py\"}", [READ]),
    ("backticks_inside_a_call", 'call:replace_text{old:<|"|>a `b<|"|>,new:<|"|>c` d<|"|>} and `x`',
     [("replace_text", {"old": "a `b", "new": "c` d"})]),
    ("hermes_in_xml_fence", '```xml\n<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>\n```', [RUN]),
    ("prose_mention", 'I would use read_file(path="path_rules.py") and then run_tests().', []),
    # Seen from Qwen2.5-Coder-1.5B on llama.cpp here (temperature 0): calls wrapped in the
    # <tools> tag of its own prompt, inside python fences, as steps of a plan.
    ("qwen15_tools_tag_in_python_fences", 'Here is the plan:\n\n1. **Read the file**:\n   ```python\n   <tools>\n'
     '   {"name": "read_file", "arguments": {"path": "path_rules.py"}}\n   </tools>\n   ```\n\n2. **Run the tests**:\n'
     '   ```python\n   <tools>\n   {"name": "run_tests", "arguments": {}}\n   </tools>\n   ```\n',
     [("read_file", {"path": "path_rules.py"}), ("run_tests", {})]),
    ("schema_echo_tools_tag", '<tools>\n{"type": "function", "function": {"name": "read_file", "parameters": '
     '{"type": "object", "properties": {"path": {"type": "string"}}}}}\n</tools>', []),
    ("schema_echo_json", '```json\n{"type": "function", "function": {"name": "run_tests", '
     '"description": "Run the tests", "parameters": {"type": "object", "properties": {}}}}\n```', []),
    ("schema_echo_as_parameters", '{"name": "read_file", "parameters": {"type": "object", '
     '"properties": {"path": {"type": "string"}}, "required": ["path"]}}', []),
    ("claim_only", "I fixed the function and all tests pass.", []),
    ("bash_fence", '```bash\nread_file(path="path_rules.py")\n```', []),
    ("empty", "", []),
    ("whitespace", "  \n\t \n", []),
]


def as_pairs(calls):
    return [(call["function"]["name"], call["function"]["arguments"]) for call in calls]


@pytest.mark.parametrize("reply, expected", [row[1:] for row in CORPUS], ids=[row[0] for row in CORPUS])
def test_corpus(reply, expected):
    assert as_pairs(find_text_calls(reply, SCHEMAS)) == expected


def test_the_corpus_ids_are_unique_and_cover_thirty_replies():
    ids = [row[0] for row in CORPUS]
    assert len(set(ids)) == len(ids) >= 30


def test_calls_come_back_in_ollamas_shape():
    """The same shape as a native call, so the loop can treat both alike."""
    assert find_text_calls('call:run_tests{}', SCHEMAS) == [{"function": {"name": "run_tests", "arguments": {}}}]


def test_only_the_given_tools_count():
    reply = '<tool_call>{"name": "read_file", "arguments": {"path": "path_rules.py"}}</tool_call>'
    assert find_text_calls(reply, []) == []
    assert find_text_calls(reply, [schema("run_tests")]) == []


@pytest.mark.parametrize("reply", [
    "```" * 40_000,                                              # fences that never open
    "``` " + " " * 100_000,                                      # an info string with no end
    "<tool_call>" * 10_000,                                      # openers that never close
    "<function=read_file" * 5_000,                               # names that never end
    "<|tool_call>call:read_file{path:<|\"|>" * 3_000,           # quotes that never close
    "call:read_file{" * 7_000,                                   # braces that never close
    '{"name": "read_file", "arguments": ' + "[" * 100_000,      # JSON nested too deep
    "```tool_code\nread_file(" + "(" * 100_000 + "\n```",        # Python nested too deep
    "read_file " * 10_000,                                       # the name, over and over
    "```python\n" + "run_tests()\n" * 8_000 + "```",             # many calls in one block
    "```tool_code\n" + "read_file(p)\n" * 8_000 + "```",         # many calls to report raw
    "```json\n" + '{"name": "run_tests"}' * 5_000 + "\n```",     # many JSON objects in a row
    "<function=read_file>" + "<parameter=x" * 15_000,           # qwen3 keys never closed (192 KB)
    "<function=read_file>" + "<parameter=" * 17_000,            # ...nor named
    "<function=read_file>" + "<parameter=x>" * 15_000,          # values never closed
    "<function=" * 10_000 + "read_file",                        # function names never closed
    '<tool_call>{"name": "read_file", "arguments": ' * 2_500,   # broken Hermes calls
    "<tools>" + "[" * 100_000 + "read_file",                    # a tools tag of nesting
    "```json\n" + "{" * 100_000 + "read_file\n```",             # braces that never close, fenced
    "{" * 100_000 + "read_file",                                # ...and bare
    "call:read_file{" + "a:b," * 25_000,                        # thousands of bare Gemma keys
    "call:" * 20_000 + "read_file",                             # Gemma openers without a name
    "`a``" * 25_000 + "<tool_call>read_file",                   # inline code that never closes
    "`x` " * 25_000 + "call:read_file{}",                       # thousands of inline code spans
    "```json\n" + "# tools\n" * 20_000 + "read_file\n```",      # comment lines with no call after them
    "```json\n#" + " read_file" * 10_000 + "\n```",              # one comment line of 100 KB
    "```python\n" + '# tools\n{"name": "run_tests"}\n' * 4_000 + "```",  # thousands of commented calls
])
def test_adversarial_100_kb_reply_returns_quickly(reply):
    """A wide bound: this catches a hang or quadratic backtracking, it does not time speed."""
    started = time.perf_counter()
    assert isinstance(find_text_calls(reply, SCHEMAS), list)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("reply, call", [
    ("```json\n" + '{"name": "run_tests"}' * 5_000 + "\n```", RUN),
    ("call:run_tests{} " * 5_000, RUN),
    ("```tool_code\n" + 'read_file("path_rules.py")\n' * 100 + "```", READ),
], ids=["json objects", "gemma calls", "tool_code calls"])
def test_a_reply_of_thousands_of_calls_gives_one_more_than_the_loop_runs(reply, call):
    """The loop runs 32 calls a turn and tells the model about the 33rd; the rest are not read."""
    from loop.turn_policy import MAX_CALLS_PER_TURN
    assert as_pairs(find_text_calls(reply, SCHEMAS)) == [call] * (MAX_CALLS_PER_TURN + 1)


@pytest.mark.parametrize("reply", [
    "call:read_file{path:<|\"|>\ud800<|\"|>}",                  # a lone surrogate in a value
    "```tool_code\nread_file(path='\udfff')\n```",              # ...where Python cannot parse it
    '<tool_call>{"name": "read_file", "arguments": "\\ud800"}</tool_call>',
    "```python\nread_file(path='x')\x00\n```",                  # a NUL byte in code
    '{"name": "read_file", "arguments": {"n": 1' + "0" * 5000 + "}}",  # an int too long to convert
    '{"name": ["read_file"], "arguments": {}} read_file',       # a name that is not a string
    "call:read_file{" + "}" * 50 + "<tool_call|>" * 50,
    "\x00read_file\x7f\u202e\ufeff",
])
def test_weird_text_never_raises(reply):
    assert isinstance(find_text_calls(reply, SCHEMAS), list)


def test_weird_types_never_raise():
    assert find_text_calls(None, SCHEMAS) == []
    assert find_text_calls("read_file", None) == []


def test_text_without_a_tool_name_is_skipped_before_any_parsing(monkeypatch):
    from loop import text_calls
    monkeypatch.setattr(text_calls, "_find", lambda *args: pytest.fail("parsed text with no tool name"))
    reply = '<tool_call>{"name": "write_file", "arguments": {}}</tool_call>\n```json\n{}\n```' * 50
    assert find_text_calls(reply, SCHEMAS) == []


@pytest.mark.parametrize("depth", [500, 1_200])
def test_arguments_nested_deeper_than_any_tool_takes_stay_text_and_are_refused_by_name(depth):
    """Readable or not by json (about 1,000 levels), no tool takes such arguments: the call keeps
    its raw text, never a structure that something later (the SDK, the recorder) chokes on."""
    arguments = '{"path": ' + "[" * depth + "]" * depth + "}"
    (call,) = find_text_calls('```json\n{"name": "read_file", "arguments": ' + arguments + "}\n```", SCHEMAS)
    assert isinstance(call["function"]["arguments"], str) and call["function"]["arguments"].startswith(arguments)
    assert argument_problem(SCHEMAS[0], call["function"]["arguments"]) == (
        "arguments for read_file nest more than 100 levels deep; a tool takes one flat JSON object of strings")
