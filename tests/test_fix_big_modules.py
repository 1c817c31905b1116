"""fix.py on a library that keeps its code in a big module (issue 38): a 150 KB module the failing
tests use is chosen as editable before a small script no test uses, repaired by a replace_text
call or a one-function block with the rest of its bytes kept, and never shown whole; a module
over the limit, a binary file, a file that is not UTF-8 and a link are each named with why they
were left out, on the terminal and in the recording. The big files are made here, never committed."""
import json

import fix
import replay
from fixing.sorted_files import sorted_files
from fixing.task import READ_BUDGET, choose_files
from testing.scripted import call, done, text
from tests.user_repos import CLAMP, CLAMP_FIXED, big_library, big_module, make_project, tree_state
from workspace.file_limits import MAX_FILE_BYTES, READ_CHARS

CORE = big_module(150_000)
FIX_CLAMP = call("replace_text", path="biglib/core.py", old="min(value, high - 1)", new="min(value, high)")


def run_fix(fake, repo, tmp_path, *flags):
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake.url, "--output", str(output),
                     "--scripted", "--about", "a big module", "--settings", "levers", *flags])
    return code, output


def test_the_big_module_the_tests_use_is_editable_first_and_repaired_byte_for_byte(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "biglib", big_library(CORE))
    read = call("read_file", path="biglib/core.py")
    fake_ollama.play([done(tool_calls=[read])], [done(tool_calls=[FIX_CLAMP])], [text("Fixed clamp."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "editable: biglib/core.py, benchmarks/bench_sum.py" in printed  # the module first, not the script
    assert (repo / "biglib/core.py").read_text() == CORE.replace(CLAMP, CLAMP_FIXED)  # every other byte kept
    recording = json.loads(output.read_text())
    assert recording["verdict"] == "repaired" and recording["task_spec"]["editable"][0] == "biglib/core.py"
    # read_file shows a slice, and says so; the first message names the module and leaves it out;
    # the module's last lines (past the slice) never reach the model: it is never shown whole.
    shown = next(e["result"] for e in recording["events"] if e["type"] == "tool_result" and e["name"] == "read_file")
    assert len(shown["text"]) <= READ_CHARS and CORE.startswith(shown["text"])
    assert shown["truncated"] and f"of {len(CORE):,} characters" in shown["note"]
    assert "context: left out (the model may read them; --readable GLOB shows files first): biglib/core.py" in printed
    assert CLAMP.splitlines()[1] not in json.dumps(fake_ollama.requests)


def test_a_one_function_block_repairs_the_big_module(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "biglib", big_library(CORE))
    before = tree_state(repo)
    answer = f"clamp cuts one too low.\n\nbiglib/core.py\n```python\n{CLAMP_FIXED}```\n"
    fake_ollama.play([text(answer), done()], [text("Fixed clamp."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path)
    assert code == fix.NOT_APPLIED  # no terminal and no --yes: offered, not applied
    assert json.loads(output.read_text())["verdict"] == "repaired" and tree_state(repo) == before
    patch = output.with_suffix(".patch").read_text()
    assert "-    return max(low, min(value, high - 1))\n+    return max(low, min(value, high))\n" in patch
    assert patch.count("\n-") == 1 and patch.count("\n+") == 2  # the ---/+++ headers' lines aside: one line
    for served in (False, True):  # served: the recorded first message, read through ServedTools' slice
        assert replay.replay(output, served=served)["differences"] == []


def test_a_module_bigger_than_the_read_budget_is_chosen_before_a_small_script(tmp_path):
    files = big_library(big_module(READ_BUDGET + 50_000))
    tree = make_project(tmp_path / "biglib", files, git=False)
    chosen = choose_files(sorted_files(tree, sorted(files), {"tests/test_core.py"}, used=["biglib/core.py"],
                                       failing=["tests/test_core.py"]))
    # It costs the budget what read_file shows of it at most, so the rest still fits beside it.
    assert chosen.editable == ["biglib/core.py", "benchmarks/bench_sum.py"] and chosen.left_out == []
    assert chosen.readable == ["biglib/core.py", "tests/test_core.py", "benchmarks/bench_sum.py"]


def test_a_module_over_the_limit_is_refused_in_one_line_that_names_it(fake_ollama, tmp_path, capsys):
    # Mostly one string: cheap for the tests to import, five times what the model may edit.
    huge = 'TABLE = """\n' + ("x" * 99 + "\n") * 50_000 + '"""\n\n\n' + CLAMP
    files = {p: t for p, t in big_library(huge).items() if not p.startswith("benchmarks/")}
    repo = make_project(tmp_path / "biglib", files)
    code, _ = run_fix(fake_ollama, repo, tmp_path)
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("error: nothing to edit in ") and "biglib/core.py (5,000," in err, err
    assert f"over the limit of {MAX_FILE_BYTES:,} bytes" in err and "--editable" in err, err
    assert fake_ollama.requests == []


def test_binary_files_links_and_text_that_is_not_utf8_are_named_and_recorded(fake_ollama, tmp_path, capsys):
    files = {**big_library(CORE), "biglib/table.bin": b"\x00\x01\x02", "biglib/legacy.py": b"NAME = 'caf\xe9'\n"}
    repo = make_project(tmp_path / "biglib", files, links={"biglib/compat.py": "core.py"})
    fake_ollama.play([text("I cannot tell."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--readable", "biglib/*")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED, printed
    left_out = ["biglib/table.bin (binary)", "biglib/compat.py (a link)", "biglib/legacy.py (not UTF-8)"]
    assert f"note: left out, not text the model can read and edit: {', '.join(sorted(left_out))}" in printed
    assert sorted(json.loads(output.read_text())["task_spec"]["left_out"]) == sorted(left_out)


def test_the_definition_a_traceback_blames_past_the_read_slice_is_shown_to_the_model(fake_ollama, tmp_path):
    # Shown by definitions (small-model-explain): the preload reads the whole module, not read_file's slice.
    raising = "def clamp(value, low, high):\n    return max(low, min(value, hihg))\n"
    core = big_module(150_000).replace(CLAMP, raising)
    repo = make_project(tmp_path / "biglib", big_library(core))
    fake_ollama.play([text("I cannot tell."), done()])
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--settings", "small-model-explain", "--candidates", "1",
                      "--max-turns", "1")
    first = fake_ollama.requests[0]["messages"][1]["content"]
    assert code == fix.NOT_APPLIED and len(first) < 20_000
    assert "lines 10146-10147\ndef clamp(value, low, high):\n    return max(low, min(value, hihg))\n```" in first


def test_fix_defaults_show_the_big_module_by_definitions_and_a_function_alone_repairs_it(fake_ollama, tmp_path,
                                                                                        capsys):
    """fix.py's own defaults (no --settings: small-model-explain, localization, answer_form auto):
    the terminal says the module is shown by definitions, the first message holds the faulty
    function whole and never the module, and an answer of that function alone repairs it, the
    other 150 KB byte for byte."""
    repo = make_project(tmp_path / "biglib", big_library(CORE))
    answer = f"clamp cuts one too low.\n\nbiglib/core.py\n```python\n{CLAMP_FIXED}```\n"
    fake_ollama.play([text(answer), done()])
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake_ollama.url, "--output", str(output), "--scripted",
                     "--candidates", "1", "--yes"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    context = [line for line in printed.splitlines() if line.startswith("context: ")]
    assert "; by definitions: biglib/core.py" in context[0] and "biglib/core.py" not in "".join(context[1:])
    assert (repo / "biglib/core.py").read_text() == CORE.replace(CLAMP, CLAMP_FIXED)
    first = fake_ollama.requests[0]["messages"][1]["content"]
    assert CLAMP in first and "return value * 100\n" not in first and len(first) < 20_000  # outlined, not whole
    assert json.loads(output.read_text())["verdict"] == "repaired"
