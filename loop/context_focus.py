"""What a focused first message shows (`preload_scope="focus"`): the code the ranking points into, alone.

Under `preload_scope="all"` the first message shows the readable files while its budget lasts.
On a real library that is 14,000 to 16,600 characters (measured on eight library bugs, issue 34):
the faulty module by definitions, then other modules' outlines, small files whole, two lists of
thirty file names. A 1.5B model on a CPU reads all of it (four candidates' prompts took most of a
turn's five to ten minutes), and every definition it is shown reads to it as a hint. So when the
ranking (localizing/) points into a file that is shown by definitions, "focus" shows:

- only the files the ranking points into, in its order;
- in them, the best few ranked definitions whole (`best_few`): at most FOCUS_MOST, each scoring
  at least FOCUS_SHARE of the best one's score;
- the ticket, with one line naming the files shown instead of every readable and editable file.

Anywhere else (no ranking, or every file it points into is short enough to be answered whole)
"focus" is "all": the 24 shipped tasks' small files get exactly the first message they got.

What this file deliberately is not: a ranker (localizing/ranks), or a renderer of a file by
definitions (context_defs.py): it only chooses which files and definitions the message holds.
"""
from loop.context_files import read_text

FOCUS_MOST = 3     # definitions shown whole: the faulty one was first on 7 of 8 library bugs, top 3 on 23 of 24 tasks
FOCUS_SHARE = 0.5  # a definition scoring under half the best one's score is a guess, not evidence


def best_few(focus):
    """The first FOCUS_MOST ranked definitions (best first, as given) that score at least
    FOCUS_SHARE of the best score; an item without a numeric score is kept (it came unscored)."""
    best = max((item["score"] for item in focus if _score(item) is not None), default=None)
    kept = [item for item in focus if best is None or _score(item) is None or item["score"] >= FOCUS_SHARE * best]
    return kept[:FOCUS_MOST]


def focused_paths(paths, read, answering):
    """The files a focused first message shows, in the ranking's order, or None for every file:
    `paths` are those the message would show, `read` the tools' reader (a file is read only
    under "focus", and only if the ranking points into it)."""
    if answering is None or answering.scope != "focus":
        return None
    wanted = [path for path in answering.focus_paths() if path in paths]
    texts = [read_text(read, path)[0] for path in wanted]
    if not any(isinstance(text, str) and answering.by_definitions(text) for text in texts):
        return None
    return wanted


def focused_prompt(task, prompt, shown):
    """The ticket with one line naming the files shown, when `prompt` is the task's own (its
    ticket and two lists of every file); a prompt the caller wrote is kept as it is."""
    ticket, own = getattr(task, "ticket", None), getattr(task, "prompt", None)
    if not isinstance(ticket, str) or not callable(own) or prompt != own():
        return prompt
    editable = [path for path in getattr(task, "editable", ()) if isinstance(path, str)]
    others = len([path for path in editable if path not in shown])
    line = f"The code the failing tests run is shown below: {', '.join(shown)}."
    if others:
        line += f" ({others} other file{'s' * (others > 1)} you could edit {'are' if others > 1 else 'is'} not shown.)"
    return f"{ticket}\n\n{line}"


def _score(item):
    score = item.get("score")
    return score if isinstance(score, (int, float)) and not isinstance(score, bool) else None
