"""A search in the report: the candidates of each attempt, why one was chosen, and the curve.

`render_candidates(attempt, where)` is a table of the attempt's candidates (seed, server, how
each run stopped, its own tests, the lines it changed, which one the tests chose) with the
search's reason; the chosen run's transcript and diff follow in the attempt's section as for
a single run. `render_coverage(summary)` draws pass@1 of the search against its number of
candidates, as an inline SVG (no script, no fetch), when the evaluation ran every candidate.

What this file deliberately is not: the choice (attempt/choosing.py makes it) or the estimate
(evaluation/coverage.py); it shows what they recorded.
"""
from evaluation.html_parts import diff_block, e
from workspace.verdict import changed_lines

WIDTH, HEIGHT, PAD = 420, 220, 40  # the chart's size in pixels, and the room for its axes


def render_candidates(attempt, where):
    """The candidates table, or "" for an attempt that was a single run."""
    records = attempt.get("candidates") if isinstance(attempt.get("candidates"), list) else None
    search = attempt.get("search") if isinstance(attempt.get("search"), dict) else {}
    if not records:
        return ""
    rows = "".join(_row(c, where) for c in records if isinstance(c, dict))
    ran = f"{len(records)} of {e(search.get('candidates'))} candidates ran"
    every = " (every candidate, to measure coverage)" if search.get("all_candidates") else ""
    return (f"<h3>Search</h3><p>{ran}{every}. {e(search.get('why'))}.</p>"
            "<table><tr><th>candidate</th><th>seed</th><th>server</th><th>stopped</th><th>its tests</th>"
            f"<th>changed lines</th><th>verdict</th><th>chosen</th></tr>{rows}</table>")


def _row(candidate, where):
    tests = candidate.get("tests") if isinstance(candidate.get("tests"), dict) else {}
    stop = candidate.get("stop") if isinstance(candidate.get("stop"), dict) else {}
    outcome = (f"exit {e(tests.get('exit_code'))}: {e(tests.get('passed'))} passed, {e(tests.get('failed'))} failed"
               if tests else "none (lost to its server)")
    diff = str(candidate.get("diff") or "")
    shown = f"<details><summary>{changed_lines(diff)}</summary>{diff_block(diff, where)}</details>" if diff else "0"
    chosen = '<td class="ok">✓</td>' if candidate.get("chosen") is True else "<td></td>"
    return (f"<tr><td>{e(candidate.get('index'))}</td><td>{e(candidate.get('seed'))}</td>"
            f"<td>{e(candidate.get('server'))}</td><td>{e(stop.get('reason'))}</td><td>{outcome}</td>"
            f"<td>{shown}</td><td>{e(candidate.get('verdict', ''))}</td>{chosen}</tr>")


def render_coverage(summary):
    """pass@1 against the number of candidates, or "" when the evaluation has no such curve."""
    search = summary.get("search") if isinstance(summary.get("search"), dict) else {}
    curve = search.get("pass_at_n") if isinstance(search.get("pass_at_n"), dict) else {}
    points = sorted((int(n), rate) for n, rate in curve.items() if str(n).isdigit()
                    and isinstance(rate, (int, float)) and not isinstance(rate, bool) and 0 <= rate <= 1)
    if not points:
        return ""
    most = points[-1][0]
    xy = [(PAD + (WIDTH - 2 * PAD) * (i / max(len(points) - 1, 1)), HEIGHT - PAD - (HEIGHT - 2 * PAD) * rate)
          for i, (_, rate) in enumerate(points)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    marks = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3"/><text x="{x:.1f}" y="{y - 8:.1f}" '
                    f'text-anchor="middle" font-size="11">{rate:.2f}</text>'
                    f'<text x="{x:.1f}" y="{HEIGHT - PAD + 16}" text-anchor="middle" font-size="11">{n}</text>'
                    for (x, y), (n, rate) in zip(xy, points))
    axes = (f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#999"/>'
            f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#999"/>'
            f'<text x="{WIDTH / 2}" y="{HEIGHT - 6}" text-anchor="middle" font-size="12">candidates per task (its attempts pooled)</text>'
            f'<text x="12" y="{HEIGHT / 2}" font-size="12" transform="rotate(-90 12 {HEIGHT / 2})" '
            f'text-anchor="middle">pass@1</text>')
    table = "".join(f"<tr><td>{n}</td><td>{rate:.2f}</td></tr>" for n, rate in points)
    return (f"<h2>Pass rate against candidates (up to {most})</h2>"
            f'<svg role="img" aria-label="pass@1 against candidates" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}">{axes}<polyline points="{line}" fill="none" stroke="#2e7d32"/>'
            f'{marks}</svg><table><tr><th>candidates</th><th>pass@1</th></tr>{table}</table>'
            "<p>Estimated from every candidate of every attempt (the unbiased estimator over the "
            "candidates that the independent verdict judged repaired).</p>\n")
