"""A search against the model servers the command line names: what record_run.py and fix.py share.

`search_live(args, task, settings, start_tests, folder, say=...)` spreads `settings.candidates`
runs over the servers of `--base-url`/`--host` (each given once or more), at most `--parallel`
at once on each, sends candidate i the seed `--seed` + i - 1, prints one line per candidate as
it ends, and returns (the recording body, the model of the run shown at the top, its tools), or
(None, None, None) when every server failed before one candidate could start.

What this file deliberately is not: evaluate.py's search (evaluation/attempt.py gives each
attempt its own seeds and shares the servers between worker processes), or the search itself.
"""
from local_model import OPTIONS
from runs.flags import make_model, server_urls
from runs.printer import candidate_line
from search.candidates import run_search
from search.servers import Servers


def search_live(args, task, settings, start_tests, folder, *, sandbox_mode="auto", say=print):
    servers = Servers(server_urls(args), args.parallel or 1, folder / "servers")
    first = OPTIONS["seed"] if args.seed is None else args.seed
    say(f"searching: {settings.candidates} candidates (seeds {first} to {first + settings.candidates - 1}), "
        f"{args.parallel or 1} at once on each of {len(servers.urls)} server(s)")
    body, tools = run_search(task, settings, lambda i, url: (make_model(args, url, first + i - 1), first + i - 1),
                             servers, folder=folder / "search", start_tests=start_tests,
                             all_candidates=getattr(args, "all_candidates", False), sandbox_mode=sandbox_mode,
                             on_candidate=lambda candidate: say(candidate_line(candidate)))
    if body is None:
        return None, None, None
    shown = next(c for c in body["candidates"] if c["index"] == body["search"]["shown"])
    say(f"search: {body['search']['why']}")
    return body, make_model(args, shown["server"], shown["seed"]), tools
