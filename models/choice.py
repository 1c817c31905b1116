"""The model a command line chose, as one small typed value: which adapter, which model, on which
servers, sent which options.

`ModelChoice` is built once, when the flags are parsed (command_line/shared_flags.py), and checked when it is
made: a bad combination is one ValueError. It then goes wherever a model is needed (record_run.py,
fix.py, a search's candidates, evaluate.py's worker processes: it pickles, as plain values do)
instead of the parsed flags, and `attempt.adapters.make_model(choice, url, seed)` builds the adapter.

`api` is "ollama", "openai", or "scripted": a scripted model built in, with no server (`name`
says which: "attempts", evaluate.py's shipped scripted attempts, or "small-model", improve.py's
scripted small model, both in this folder). `scripted` says that the model is scripted, not a
real one, whatever plays it (a built-in one, or a loopback fake server that `urls` names): every
recording of it says `source: "scripted"`, and `about` what it plays.

What this file deliberately is not: an adapter (local_model.py and openai_model.py are, and own
their defaults: an option left None is the adapter's) or a check that a server answers
(attempt/adapters.py asks the servers).
"""
from dataclasses import dataclass, field, fields, replace

APIS = ("ollama", "openai", "scripted")
BUILT_IN = ("attempts", "small-model")  # the scripted models that need no server


def option():
    """A field that is a model option: one for each option an adapter takes (local_model.OPTIONS,
    openai_model.OPTIONS), in Ollama's names; None leaves it to the adapter's default."""
    return field(default=None, metadata={"option": True})


@dataclass(frozen=True)
class ModelChoice:
    api: str = "ollama"
    name: str = None          # the model's name (None: the adapter's default)
    urls: tuple = ()          # the servers, in order (none for a built-in scripted model)
    temperature: float = option()
    seed: int = option()      # a search's candidate i gets seed + i - 1 (None: the adapter's seed)
    num_ctx: int = option()
    num_predict: int = option()
    think: bool = True
    digest: str = None        # the model file's sha256, when the server does not report one
    parallel: int = None      # requests at once on each server (None: one, or one per job)
    scripted: bool = False    # a scripted model, not a real one: recordings say source "scripted"
    about: str = None         # what the scripted model plays

    def __post_init__(self):
        object.__setattr__(self, "urls", tuple(self.urls))
        problem = choice_problem(self)
        if problem:
            raise ValueError(problem)

    def options(self, seed=None):
        """The options given (the rest are the adapter's defaults), with `seed` when one is given."""
        given = {key: getattr(self, key) for key in OPTION_NAMES if getattr(self, key) is not None}
        return {**given, "seed": seed} if seed is not None else given

    def without(self, url):
        """The same choice without the server at `url` (one that does not serve the model)."""
        return replace(self, urls=tuple(u for u in self.urls if u != url))

    def identity(self, all_candidates=False):
        """What makes two evaluations comparable, besides the loop's settings: the model and the
        options it is run with (not its URL: a server may move to another port)."""
        search = {"all_candidates": True} if all_candidates else {}  # a coverage run counts apart
        if self.api == "scripted":
            return {"api": "scripted", **search}
        options = {key: getattr(self, key) for key in OPTION_NAMES}
        labelled = {"scripted": True} if self.scripted else {}
        return {"api": self.api, "model": self.name, "think": self.think, "options": options, **labelled, **search}

    @property
    def source(self):
        """What a recording of this model says it is: "scripted", or "live" (a real model)."""
        return "scripted" if self.scripted else "live"

    def server(self, url):
        """What a recording says of the server that answered."""
        return {"api": self.api, "url": url if self.urls else None}


OPTION_NAMES = tuple(f.name for f in fields(ModelChoice) if f.metadata.get("option"))


def choice_problem(choice):
    """Why `choice` is no model a run can use, in the words of the flags that make one; or None."""
    if choice.api not in APIS:
        return f"--api is one of {', '.join(APIS[:2])}, not {choice.api!r}"
    if choice.api == "scripted":
        if choice.name not in BUILT_IN or not choice.scripted or choice.urls:
            return f"a built-in scripted model is one of {', '.join(BUILT_IN)}, scripted, with no server"
    elif choice.api == "openai" and not (choice.urls and choice.name):
        return "--api openai needs --base-url URL and --model NAME"
    elif not choice.urls:
        return "a model needs a server: pass --host URL"
    if not all(isinstance(url, str) and url for url in choice.urls):
        return f"a server is a URL, not {next(u for u in choice.urls if not (isinstance(u, str) and u))!r}"
    if len(set(choice.urls)) != len(choice.urls):
        return "a server is named twice; pass each --base-url (or --host) once, and --parallel for its slots"
    if choice.about is not None and not choice.scripted:
        return "--about says what a scripted model plays: it goes with --scripted"
    wrong = [key for key, fits in CHECKS.items() if getattr(choice, key) is not None and not fits(getattr(choice, key))]
    return f"{wrong[0]} must be {WORDS[wrong[0]]}, not {getattr(choice, wrong[0])!r}" if wrong else None


def _count(value, least=1):
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


# The options and counts a choice may hold, when given (a bool is never a count).
CHECKS = {"temperature": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf"),
          "seed": lambda v: _count(v, 0), "num_ctx": _count, "num_predict": _count, "parallel": _count,
          "think": lambda v: isinstance(v, bool), "scripted": lambda v: isinstance(v, bool),
          "name": lambda v: isinstance(v, str) and v != "", "digest": lambda v: isinstance(v, str),
          "about": lambda v: isinstance(v, str)}
WORDS = {"temperature": "a number of at least 0", "seed": "a whole number of at least 0",
         "num_ctx": "a positive whole number", "num_predict": "a positive whole number",
         "parallel": "a positive whole number", "think": "true or false", "scripted": "true or false",
         "name": "a model's name", "digest": "text", "about": "text"}
