"""Checking a run's settings once, before any request: every field of agent_loop.LoopSettings;
and BEFORE_FIELD, the one upgrade step for the fields an older recording predates.

What this file deliberately is not: where the settings or their defaults live (LoopSettings
in agent_loop.py holds both), or a parser of flags (command_line/shared_flags.py turns flags into settings).
"""
from loop.module_map import FORMS

MOST_CANDIDATES = 64  # more trajectories than any local server runs in an attempt's time
HINT_CHARS = 2000      # the answer hint is one instruction, not a second prompt
# A week: no run of a local model is worth waiting longer for. Bounded, so that a deadline is
# always a finite float (1e999 reads back from JSON as infinity, which JSON cannot write again).
MOST_SECONDS = 7 * 24 * 3600
ANSWER_BUDGETS = (200, 1_000_000)  # a whole-file answer: from a few lines to any file the tools edit


# The one upgrade step for older recordings (and evaluation folders, improvement records, settings
# files): a field added with a default that behaves differently from the loop before it, and the
# value that behaves as that loop did. A recording made before `unchanged_edits` existed counted a
# turn that only wrote code back unchanged as malformed; replayed under its own policy, it still
# stops where it stopped. A recording made before `check_first` ran the whole selection at each
# check. One made before `stop_repeats` let a loop run until its answer ran out; one made before
# `editable_hint` asked for definitions when any file, a test file too, was shown by them. Fields
# whose default is the old behaviour need no entry.
# `pytest_reading` missed a test name wider than the terminal and read pytest-cov's report as a test.
BEFORE_FIELD = {"unchanged_edits": "malformed", "check_first": False, "stop_repeats": 0, "editable_hint": False,
                "pytest_reading": 1}


def _count(value):
    """A whole number that is not a bool: True is an int in Python, but never a budget."""
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value, chars=80):
    """A wrong value as a problem names it: cut short, for a settings file may hold anything."""
    return repr(value)[:chars]


# The settings that are one word of two, and the ones that are true or false: checked alike.
WORDS = {"text_calls": ("nudge", "run"), "context": ("tools", "preload"), "text_edits": ("off", "run"),
         "unchanged_edits": ("apart", "malformed"), "localize": ("off", "tests"), "preload_scope": ("all", "focus")}
SWITCHES = ("check_edits", "check_first", "editable_hint")


def _one_word_each(s):
    """(fine, problem) for each of WORDS and SWITCHES."""
    words = [(getattr(s, name) in pair, f"{name} must be '{pair[0]}' or '{pair[1]}', not {_shown(getattr(s, name))}")
             for name, pair in WORDS.items()]
    switches = [(isinstance(getattr(s, name), bool), f"{name} must be true or false, not {_shown(getattr(s, name))}")
                for name in SWITCHES]
    return words + switches


def settings_problem(s, tool_names):
    """Why these settings cannot run, or None."""
    deadline_fine = s.deadline is None or (
        isinstance(s.deadline, (int, float)) and not isinstance(s.deadline, bool) and 0 < s.deadline <= MOST_SECONDS)
    # Names first: a list among them (JSON's nesting) cannot go in the set that finds repeats.
    offered_fine = (isinstance(s.offered_tools, tuple) and all(isinstance(name, str) for name in s.offered_tools)
                    and len(set(s.offered_tools)) == len(s.offered_tools)
                    and all(name in tool_names for name in s.offered_tools))
    checks = [
        (_count(s.max_turns) and s.max_turns >= 1, f"max_turns must be a positive int, not {_shown(s.max_turns)}"),
        (deadline_fine, f"deadline must be a number of seconds above 0 and at most {MOST_SECONDS:,} (a week), or None, "
                        f"not {_shown(s.deadline, 40)}"),
        (_count(s.verify_finish) and s.verify_finish >= 0, f"verify_finish must be an int >= 0, not {_shown(s.verify_finish)}"),
        (offered_fine, f"offered_tools must be allowlisted tool names ({', '.join(tool_names)}), each at "
                       f"most once, not {_shown(s.offered_tools, 200)}"),
        (isinstance(s.system, str) and s.system.strip() != "", "system must be a non-empty prompt"),
        (_count(s.candidates) and 1 <= s.candidates <= MOST_CANDIDATES,
         f"candidates must be an int from 1 to {MOST_CANDIDATES}, not {_shown(s.candidates)}"),
        (s.answer_hint is None or (isinstance(s.answer_hint, str) and 0 < len(s.answer_hint.strip()) <= HINT_CHARS),
         f"answer_hint must be None or a line of at most {HINT_CHARS} characters, not {_shown(s.answer_hint)}"),
        (s.answer_form in FORMS, f"answer_form must be one of {', '.join(FORMS)}, not {_shown(s.answer_form)}"),
        (_count(s.answer_budget) and ANSWER_BUDGETS[0] <= s.answer_budget <= ANSWER_BUDGETS[1],
         f"answer_budget must be an int of characters from {ANSWER_BUDGETS[0]:,} to {ANSWER_BUDGETS[1]:,}, "
         f"not {_shown(s.answer_budget)}"),
        (_count(s.stop_repeats) and s.stop_repeats >= 0, f"stop_repeats must be an int >= 0, not {_shown(s.stop_repeats)}"),
        (_count(s.pytest_reading) and s.pytest_reading in (1, 2),
         f"pytest_reading must be 1 or 2, not {_shown(s.pytest_reading)}"),
        (s.system_definitions is None or (isinstance(s.system_definitions, str) and s.system_definitions.strip() != ""),
         "system_definitions must be None or a non-empty prompt"),
        *_one_word_each(s),
    ]
    return next((problem for fine, problem in checks if not fine), None)
