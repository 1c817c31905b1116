"""The pieces every HTML report is made of: escaping, cutting, code blocks, diffs, the page.

evaluate.py's report (report.py) and improve.py's report build their pages from these, so
both escape, cut and colour the same way. Everything a model, a server or a recording controls
passes `e` or `block` (control characters neutralised by printer.clean, then html.escape)
before it reaches a page. A page has inline CSS only and a Content-Security-Policy that forbids
scripts and every fetch, so even a missed escape could neither run nor phone home.

Sizes are bounded: a block is cut at BLOCK_CHARS characters, with a note that names the file
holding the whole text, so a model that writes a megabyte makes a page of kilobytes.

What this file deliberately is not: a template engine; no function here knows what an attempt is.
"""
import difflib
import hashlib
import html
from urllib.parse import quote

from command_line.printer import clean

BLOCK_CHARS = 5_000  # a block of text (output, arguments, a turn's text, a diff) is cut here
NAME_CHARS = 400     # an inline value (a name, a stop reason, an error line) is cut here
VERDICT_COLOURS = {"repaired": "#2e7d32", "not repaired": "#c62828",
                   "tests were modified": "#6a1b9a", "infra failure": "#9e9e9e"}
CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;
margin:1.5em auto;padding:0 1em;color:#222;background:#fff}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:#f6f6f6;padding:.5em;margin:.3em 0;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .6em;text-align:left}
.cell,.badge{display:inline-block;min-width:2em;margin:1px;padding:.25em .4em;text-align:center;
color:#fff;text-decoration:none;border-radius:3px;background:#555}.cell small{display:block;font-size:11px}
.flag{background:#ffd54f;color:#222;border-radius:2px;padding:0 .2em}
section{border-top:2px solid #ccc;margin-top:2em}.running{background:#fff3cd;padding:.4em .6em}
.facts{display:flex;gap:2em;align-items:flex-start}.ok{color:#2e7d32}.no{color:#c62828}
.say{white-space:pre-wrap;margin:.3em 0}.tool{margin:.4em 0 .4em 1em}.tool p{margin:.2em 0}
.tag{font-size:12px;background:#eee;color:#222;padding:0 .3em}.cut{font-size:12px;color:#8a5a00}
.nudge{color:#8a5a00}.error{color:#c62828}.contradicted{color:#fff;background:#c62828;padding:0 .3em}
.add{color:#1b5e20;background:#e8f5e9}.del{color:#b71c1c;background:#ffebee}.hunk{color:#6a1b9a}
.code{border-left:3px solid #90a4ae}.files{display:grid;grid-template-columns:1fr 1fr;gap:.5em}
""" + "".join(f'[data-verdict="{v}"]{{background:{c}}}' for v, c in VERDICT_COLOURS.items())
# Inline styles only; no scripts, images, fonts or fetches of any kind. A meta refresh is a
# navigation, not a fetch: the policy lets it reload the page (tests/test_report.py checks it).
CSP = "default-src 'none'; style-src 'unsafe-inline'"
REFRESH_SECONDS = 10


def render_page(title, body_html, running=False):
    """A whole page around `body_html` (already safe HTML); `title` is text. While a run goes
    on (`running`), the page reloads itself every REFRESH_SECONDS to show new attempts."""
    refresh = f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">' if running else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">{refresh}'
            f'<meta name="viewport" content="width=device-width">'
            f"<title>{e(title, lines=False)}</title><style>{CSS}</style></head><body>\n"
            f"{body_html}</body></html>\n")


def e(value, lines=True, limit=NAME_CHARS):
    """`value` as inert HTML text: control characters and lone surrogates shown as escapes,
    cut at `limit` characters (None: not cut; `block` cuts long text and says where the rest is)."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}… ({len(text) - limit} more characters)"
    return html.escape(clean(text, keep_newlines=lines))


def anchor(name):
    """A fragment id: percent-encoded, so it is ASCII and inert; a long name is shortened and
    keeps a hash of the whole, so two ids stay apart."""
    text = str(name)
    encoded = quote(text[:80], safe="", errors="surrogatepass")
    if len(text) <= 80:
        return encoded
    return f"{encoded}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def cut(text, where, what="characters", limit=BLOCK_CHARS):
    """(`text` cut at `limit`, the note saying what was cut and where the whole is, as HTML)."""
    text = str(text)
    if len(text) <= limit:
        return text, ""
    return text[:limit], (f'<p class="cut">… {len(text) - limit:,} more {what} cut here; '
                          f"the whole text is in {e(where)}</p>")


def block(text, where, css=""):
    """Text in a monospace block, cut, then escaped."""
    shown, note = cut(text, where)
    opening = f'<pre class="{css}">' if css else "<pre>"
    return f"{opening}{e(shown, limit=None)}</pre>{note}"


def prose(text, where):
    """A model's text: paragraphs as written, and each ``` fenced block in a monospace block
    (a fence left open runs to the end, as a Markdown viewer shows it)."""
    shown, note = cut(text, where)
    parts, current, in_code = [], [], False
    for line in shown.split("\n"):
        if line.lstrip().startswith("```"):
            parts.append((in_code, current))
            current, in_code = [], not in_code
        else:
            current.append(line)
    parts.append((in_code, current))
    return "".join(_part(code, lines) for code, lines in parts if any(line.strip() for line in lines)) + note


def _part(code, lines):
    """One stretch of a model's text: a code block, or a paragraph."""
    text = "\n".join(lines)
    if code:
        return f'<pre class="code">{e(text, limit=None)}</pre>'
    return f'<p class="say">{e(text.strip(chr(10)), limit=None)}</p>'


def diff_block(diff, where, headers=True):
    """A unified diff, cut, with added, removed and hunk lines coloured. `headers`: the diff has
    file headers (`--- a/path`, `+++ b/path`, as verdict.py writes them), shown uncoloured."""
    shown, note = cut(diff, where)
    lines = []
    for line in shown.splitlines():
        kind = ("hunk" if line.startswith("@@") else "" if headers and line.startswith(("--- a/", "+++ b/")) else
                "add" if line.startswith("+") else "del" if line.startswith("-") else "")
        lines.append(f'<span class="{kind}">{e(line, limit=None)}</span>' if kind else e(line, limit=None))
    return '<pre class="diff">' + "\n".join(lines) + f"</pre>{note}"


def edit_block(old, new, where):
    """What a replace_text call asked for, as a coloured unified diff of `old` against `new`,
    every line of both shown (an edit is a snippet: all of it is context worth seeing). Each
    side is cut first, so a megabyte of `old` costs a diff of a few thousand characters."""
    (old, old_cut), (new, new_cut) = cut(old, where, "characters of old"), cut(new, where, "characters of new")
    before, after = old.split("\n"), new.split("\n")
    lines = difflib.unified_diff(before, after, lineterm="", n=len(before) + len(after))
    # With all lines as context there is one hunk: its three header lines say nothing here.
    # No hunk at all: old == new (an edit the tool refuses), shown as unchanged lines.
    shown = list(lines)[3:] or [" " + line for line in before]
    return diff_block("\n".join(shown), where, headers=False) + old_cut + new_cut
