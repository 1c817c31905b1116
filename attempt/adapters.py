"""A model choice made real: the adapter it names, each run's chat, and the servers asked before a run.

`make_model(choice, url, seed)` builds the chat callable a models.choice.ModelChoice names (a
LocalModel or an OpenAIModel) on `url` (default: its first server), sent `seed` when one is
given (a search's candidate, an evaluation's attempt), without a deadline yet: a run's
deadline goes to `model.with_deadline(seconds)` when the run starts. `check_servers(choice)`
asks every server the choice names whether it serves the model, before any work: all at once,
each within CHECK_SECONDS, so a server that takes a connection and never answers holds no
command for the minutes a model's reply may take. `run_chat(choice, task, settings, number, url)`
is the chat of run `number` of a choice: its adapter, sent its own seed, or the turns a built-in
scripted model plays for that run (it has no server).

What this file deliberately is not: an adapter, or the choice itself (models/choice.py), or a
scripted model (models/ holds the built-in ones).
"""
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx

from command_line.printer import clean
from local_model import DEFAULT_MODEL, OPTIONS, TIMEOUT, LocalModel, ModelUnavailable
from models.scripted_attempts import attempt_script
from models.scripted_model import scripted_attempt
from models.scripted_turns import ScriptedTurns

SCRIPTED = {"name": "scripted", "digest": None}  # what a built-in scripted model says of itself
# The start check lists models or shows one: a working server answers in well under a second,
# even while it generates for someone else. The run's own read timeout (minutes: a slow model's
# first token) is no bound for it, and neither is --deadline, which counts from the run's start.
CHECK_SECONDS = 10.0
# The scripted models built in, by name: (about, turns) of run `number` (from 1) of a task.
BUILT_IN = {"attempts": lambda task, settings, number: attempt_script(task, number),
            "small-model": lambda task, settings, number: scripted_attempt(task, settings)}


def make_model(choice, url=None, seed=None, timeout=TIMEOUT):
    """The chat callable `choice` names, on `url` (default: its first server)."""
    url = url or choice.urls[0]
    if choice.api == "openai":
        from openai_model import OpenAIModel  # imported only when asked for: it is the slowest import here
        return OpenAIModel(choice.name, url, options=choice.options(seed), timeout=timeout)
    return LocalModel(choice.name or DEFAULT_MODEL, url, think=choice.think, options=choice.options(seed),
                      timeout=timeout)


def seed_for(choice, number):
    """The seed of run `number` (from 1) of several of one choice: --seed (or the adapters'
    default) for the first, one more for each next. One seed for all would make N candidates of
    one prompt near-repeats, and a search or pass@k would count the same answer again."""
    return (OPTIONS["seed"] if choice.seed is None else choice.seed) + number - 1


def run_chat(choice, task, settings, number, url):
    """(chat, seed, about) of run `number` (from 1) of `choice` on `url`: the adapter, sent that
    run's seed, or a built-in scripted model's turns for it (no seed; `about` says what it plays)."""
    if choice.api == "scripted":
        about, turns = BUILT_IN[choice.name](task, settings, number)
        return ScriptedTurns(*turns), None, about
    return make_model(choice, url, seed_for(choice, number)), seed_for(choice, number), choice.about


def sends_greedily(choice):
    """Is every run of `choice` sampled at temperature 0 (its --temperature, else the adapters' default)?"""
    return choice.api != "scripted" and not (OPTIONS["temperature"] if choice.temperature is None
                                             else choice.temperature)


def check_servers(choice, warn=None):
    """(the choice less the servers that do not serve the model, what the first that does says
    of it: {"name", "digest"}). One that does not is named in one line (`warn`, default: stderr)
    and left out; ModelUnavailable when none does (the first one's words)."""
    if choice.api == "scripted":
        return choice, dict(SCRIPTED)
    warn = warn or (lambda line: print(f"warning: {clean(line)}", file=sys.stderr))
    pool = ThreadPoolExecutor(len(choice.urls), thread_name_prefix="check")
    try:  # all at once: N silent servers cost one bound, not N
        answers = list(pool.map(lambda url: _check(choice, url), choice.urls))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # a Ctrl-C does not wait for the others
    found, errors = None, {}
    for url, answer in zip(choice.urls, answers):
        if isinstance(answer, ModelUnavailable):
            errors[url] = answer
            if len(choice.urls) > 1:
                warn(f"server {url} is left out of this run: {answer}")
            continue
        found = found or answer
    if found is None:
        raise next(iter(errors.values()))
    for url in errors:
        choice = choice.without(url)
    return choice, {"name": found["name"], "digest": choice.digest or found["digest"]}


def _check(choice, url):
    """What the server at `url` says of the model, or its ModelUnavailable, within CHECK_SECONDS."""
    try:
        return make_model(choice, url, timeout=httpx.Timeout(CHECK_SECONDS)).check()
    except ModelUnavailable as error:
        return error
