"""The improvement's report: one self-contained page (placeholder until the report parts land)."""
import html
import json

from workspace.files import write_atomic


def write_improvement_report(out, record, running=False):
    body = html.escape(json.dumps({k: v for k, v in record.items() if not k.startswith("_")}, indent=1))
    write_atomic(out / "report.html", f"<!DOCTYPE html><html><body><pre>{body}</pre></body></html>\n")
