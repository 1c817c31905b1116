"""evaluate.py: tasks × attempts through the real tools and pytest, graded, summarised,
resumed, with infra failures counted apart; and the figures it reports."""
import json
import shutil
from pathlib import Path

import pytest

import evaluate
from evaluation.grades import claim, grade, markdown_table, pass_at_k, summary_of
from runs.recording_file import load
from tests.helpers import EVALUATE_FLAGS
from tests.network import closed_port
from workspace.task_catalog import load_task

HERE = Path(__file__).resolve().parent.parent  # the project root


@pytest.mark.parametrize("n, c, k, expected", [
    (5, 2, 1, 0.4), (5, 2, 2, 0.7), (5, 0, 3, 0.0), (5, 5, 1, 1.0), (3, 1, 5, 1.0), (2, 0, 5, 0.0), (0, 0, 1, None),
])
def test_pass_at_k_is_the_unbiased_estimator(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected) if expected is not None else pass_at_k(n, c, k) is None


def test_grades_come_from_the_events_not_from_what_the_model_said():
    sample = load_task()
    good, liar = load(HERE / "recordings/fix_in_one_edit.json"), load(HERE / "recordings/claims_pass_tests_fail.json")
    assert grade(good, sample) == {"read_failing_test": True, "ran_tests_before_edit": True, "edited": True,
                                   "tests_unchanged": True, "only_editable_changed": True, "verdict": "repaired"}
    assert grade(liar, sample) == {"read_failing_test": False, "ran_tests_before_edit": False, "edited": True,
                                   "tests_unchanged": True, "only_editable_changed": True, "verdict": "not repaired"}
    assert claim(liar) == {"text": "Fixed: Windows paths are handled and all tests pass now.",
                           "claims_success": True, "contradicted": True}
    assert claim(good)["claims_success"] is True and claim(good)["contradicted"] is False
    assert claim(load(HERE / "recordings/unknown_tool.json"))["claims_success"] is False


def test_summary_counts_infra_failures_apart_and_well_formed_turns_from_nudges():
    attempts = [{**load(HERE / "recordings" / f"{name}.json"), "attempt_id": f"path_rules-{k}", "seconds": 2.0}
                for k, name in enumerate(["fix_in_one_edit", "format_errors", "text_call_nudged"], 1)]
    attempts.append({"attempt_id": "path_rules-4", "task_name": "path_rules", "infra_failure": "server gone"})
    summary = summary_of(attempts, 4, {"name": "m", "digest": None}, "abc", False)
    assert summary["tasks"]["path_rules"] == {"attempts": 3, "repaired": 1, "pass@1": pytest.approx(1 / 3),
                                              "pass@k": 1.0}
    assert summary["infra_failures"] == 1 and summary["seconds_per_attempt"] == 2.0
    assert summary["stop_reasons"] == {"assistant_finished": 2, "format_errors": 1}
    assert "| path_rules | 3 | 1 | 0.33 | 1.00 |" in markdown_table(summary)
    assert markdown_table({**summary, "k": 1}).splitlines()[0] == "| task | attempts | repaired | pass@1 |"
    # 5 + 3 + 3 turns; malformed: 3 in format_errors (two nudged, the third stopped), 1 in text_call_nudged
    assert summary["well_formed_turns"] == pytest.approx(1 - 4 / 11, abs=1e-4)


def run_evaluation(tmp_path, *flags):
    return evaluate.main(["--out", str(tmp_path / "out"), *flags])


def test_a_scripted_evaluation_runs_grades_summarises_reports_and_resumes(evaluated, tmp_path, capsys):
    """One evaluation end to end (2 tasks x 2 attempts: the shared `evaluated`, made once for the
    whole suite), then resumed on a copy of its folder."""
    shared, printed = evaluated
    out = shutil.copytree(shared, tmp_path / "out")
    # every attempt ran, was graded, and printed its line
    assert sorted(p.name for p in (out / "attempts").iterdir()) == [
        "pagination_last_page-1.json", "pagination_last_page-2.json", "path_rules-1.json", "path_rules-2.json"]
    liar = load(out / "attempts/path_rules-2.json")
    assert liar["claim"]["contradicted"] is True and liar["grades"]["verdict"] == "not repaired"
    two_edits = load(out / "attempts/pagination_last_page-1.json")
    assert two_edits["verdict"] == "repaired" and two_edits["changed_files"] == ["export.py", "pagination.py"]
    assert printed.count(" s  (") == 4 and "(claim contradicted)" in printed
    # the summary, the printed table and the report
    summary = json.loads((out / "summary.json").read_text())
    assert summary["k"] == 2 and summary["infra_failures"] == 0
    assert summary["tasks"]["path_rules"] == {"attempts": 2, "repaired": 1, "pass@1": 0.5, "pass@k": 1.0}
    assert summary["tasks"]["pagination_last_page"]["repaired"] == 1  # two edits repair it, one does not
    assert summary["model"] == {"name": "scripted", "digest": None} and len(summary["commit"]) == 40
    assert "| path_rules | 2 | 1 | 0.50 | 1.00 |" in printed
    assert (out / "report.html").read_text().count('class="cell') == 4
    # run again: resumed, nothing redone
    stamps = {p: p.stat().st_mtime_ns for p in (out / "attempts").iterdir()}
    assert run_evaluation(tmp_path, *EVALUATE_FLAGS) == 0
    again = capsys.readouterr().out
    assert "4 already finished" in again and "0 to run" in again
    assert {p: p.stat().st_mtime_ns for p in (out / "attempts").iterdir()} == stamps
    # the same folder with other settings is refused
    assert run_evaluation(tmp_path, *EVALUATE_FLAGS, "--max-turns", "3") == 1
    assert "holds an evaluation with other settings" in capsys.readouterr().err


def test_a_server_that_is_down_at_the_start_is_one_line_and_nothing_runs(tmp_path, capsys):
    assert run_evaluation(tmp_path, "--host", f"http://127.0.0.1:{closed_port()}") == 1
    err = capsys.readouterr().err
    assert err.startswith("error: Ollama is not reachable") and err.count("\n") == 1
    # Nothing written, so the corrected command can use the same --out.
    assert not (tmp_path / "out").exists()


def test_an_attempt_lost_to_the_server_is_an_infra_failure_and_is_retried_on_resume(fake_openai, tmp_path, capsys):
    """Through an OpenAI-compatible server: the second attempt finds the server with nothing to say."""
    from testing.fake_openai import text as sse_text
    digest = "sha256:" + "cd" * 32
    flags = ("--api", "openai", "--base-url", fake_openai.url, "--model", "qwen2.5-coder-1.5b", "--model-digest", digest,
             "--tasks", "path_rules", "--attempts", "2")
    fake_openai.play(sse_text("I fixed it."))
    assert run_evaluation(tmp_path, *flags) == 1  # an attempt was lost: not a finished evaluation
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert summary["infra_failures"] == 1 and summary["overall"]["attempts"] == 1
    assert summary["model"] == {"name": "qwen2.5-coder-1.5b", "digest": digest}
    printed = capsys.readouterr()
    assert "infra failure" in printed.out
    assert printed.err == ("error: 1 attempt(s) were lost to the server or the harness, not graded; "
                           "run the same command again to retry them\n")
    attempt = load(tmp_path / "out/attempts/path_rules-1.json")
    assert attempt["server"] == {"api": "openai", "url": fake_openai.url} and attempt["source"] == "live"
    assert attempt["claim"]["contradicted"] is True and attempt["settings"]["options"]["max_tokens"] == 2048
    fake_openai.play(sse_text("Done."))
    assert run_evaluation(tmp_path, *flags) == 0
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert summary["infra_failures"] == 0 and summary["overall"]["attempts"] == 2
    assert "1 already finished" in capsys.readouterr().out
