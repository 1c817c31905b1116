"""A search against the model servers a command line names: what record_run.py and fix.py share.

`search_live(choice, task, settings, start_tests, folder, localization=..., show=...)` spreads `settings.candidates`
runs over the servers of the models.choice.ModelChoice (`--base-url`/`--host`, each given once or
more), at most `choice.parallel` at once on each, sends candidate i the seed `--seed` + i - 1,
prints through the command_line.printer.Printer `show` a status while they run (command_line/progress.py: each
running candidate's turn, tokens and time; `show_model` streams one's text) and one line per
candidate as it ends (and one before them when every candidate is sampled at temperature 0: a
server that decodes greedily answers N alike), and returns (the recording body, the model of the run
shown at the top, its tools), or (None, None, None) when every server failed before one
candidate could start. A stop raises command_line.ctrl_c.Interrupted with what ran (attempt/side_by_side.py).

What this file deliberately is not: evaluate.py's search (evaluation/attempt.py gives each
attempt its own seeds and shares the servers between worker processes), or the search itself.
"""
from attempt.adapters import make_model, seed_for
from command_line.attempt_view import candidate_line
from command_line.progress import Progress
from attempt.side_by_side import run_search
from attempt.servers import Servers


def search_live(choice, task, settings, start_tests, folder, *, show, localization=None, sandbox_mode="auto",
                all_candidates=False, show_model=False):
    say = show.line
    servers = Servers(choice.urls, choice.parallel or 1, folder / "servers")
    first, last = seed_for(choice, 1), seed_for(choice, settings.candidates)
    say(f"searching: {settings.candidates} candidates (seeds {first} to {last}), "
        f"{choice.parallel or 1} at once on each of {len(servers.urls)} server(s)")
    if settings.candidates > 1 and not make_model(choice, servers.urls[0]).recorded()["options"].get("temperature"):
        say(f"note: all {settings.candidates} candidates are sampled at temperature 0, so a server that decodes "
            "greedily answers them alike whatever their seeds; the searches were measured at --temperature 0.7")
    with Progress(show, settings.candidates, max_turns=settings.max_turns, show_model=show_model) as progress:
        body, tools = run_search(task, settings, lambda i, url: (make_model(choice, url, seed_for(choice, i)),
                                                                 seed_for(choice, i)),
                                 servers, folder=folder / "search", start_tests=start_tests, localization=localization,
                                 all_candidates=all_candidates, sandbox_mode=sandbox_mode,
                                 on_candidate=lambda record: (progress.ended(record), say(candidate_line(record))), on_event=progress.event)
    if body is None:
        return None, None, None
    shown = next(c for c in body["candidates"] if c["index"] == body["search"]["shown"])
    say(f"search: {body['search']['why']}")
    return body, make_model(choice, shown["server"], shown["seed"]), tools
