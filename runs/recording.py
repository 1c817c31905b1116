"""The recording format ("coding-loop-recording/1"): capture a run (recording_file.py saves and loads it).

`run_recorded` drives the loop on a fresh copy of a task's repository with the real tools,
keeps every request (copied at call time), every chunk, every event and the timings, and
runs the tests before the loop and the independent verdict after it (verdict.py): a single
run's body. attempt/run.py calls it with a live model and labels the body (`recording_of`);
`record_loop` is one run without a verdict (a search's candidate, or a run played again by
attempt/replaying.py).
Writing, keeping and loading the file is recording_file.py's.

What this file deliberately is not: a model adapter (no SDK here) or a test oracle.
"""
import datetime
import time

from agent_loop import SYSTEM, LoopSettings, agent_events, close_quietly
from localizing.ranking import focus_of, when_asked
from command_line import ctrl_c
from runs.recording_file import plain_copy
from workspace.files import snapshot
from workspace.passing import start_run
from workspace.task_catalog import SAMPLE_TASK, fresh_copy, load_task
from workspace.verdict import judge, verdict  # noqa: F401 - `recording.verdict` is the contract's name




class Recorder:
    """Wraps a chat callable and keeps each request, its chunks, any error and its time.
    It never raises on its own account: recording must not change a run's outcome."""

    def __init__(self, chat):
        self.chat = chat
        self.turns = []
        self.model_s = []

    def __call__(self, messages, tool_schemas):
        # Copied now: the loop's list keeps growing after this request was sent.
        turn = {"request": {"messages": plain_copy(messages)}, "chunks": []}
        self.turns.append(turn)
        return self._stream(turn, messages, tool_schemas)

    def _stream(self, turn, messages, tool_schemas):
        started = time.perf_counter()
        stream = None
        try:
            stream = self.chat(messages, tool_schemas)
            for chunk in stream:
                turn["chunks"].append(plain_copy(chunk))
                yield chunk
        except Exception as error:
            turn["error"] = f"{type(error).__name__}: {error}"  # replayed as the same failure
            raise
        finally:
            close_quietly(stream)  # a failing close is not the recorder's to report
            self.model_s.append(round(time.perf_counter() - started, 4))


def sample_hashes(root=None):
    """sha256 of every file of the sample (or of a task's repository or a copy at `root`)."""
    return snapshot(root or load_task(SAMPLE_TASK).repo, skip_caches=True)


def fresh_sample(folder):
    """Copy the sample into `folder`/repo and return the copy's path."""
    return fresh_copy(load_task(SAMPLE_TASK), folder)


def run_recorded(chat, tools, settings=None, *, prompt=None, on_event=None, start_tests=None, localization=None):
    """Run the loop on `tools.root` (a fresh copy) with `settings` (a LoopSettings) and return
    the recording's body: everything but its label (attempt/run.py:recording_of).
    `localization`: what localizing/ranking.py found (None: found here when the settings ask)."""
    settings = settings or LoopSettings()
    sample = sample_hashes(tools.root)
    prompt = tools.task.prompt() if prompt is None else prompt
    started = time.perf_counter()
    start_tests = start_tests or start_run(tools)
    localization = localization if localization is not None else when_asked(settings, tools, start_tests)
    start_s = round(time.perf_counter() - started, 4)
    try:
        run = record_loop(chat, tools, settings, prompt, start_tests, on_event=on_event, focus=focus_of(localization))
    except ctrl_c.Interrupted as stop:
        head = body_head(tools, settings, prompt, sample=sample, start_tests=start_tests, localization=localization)
        raise ctrl_c.Interrupted(interrupted_body(stop.partial, head)) from None
    started = time.perf_counter()
    judged = judge(tools, start_tests)
    head = body_head(tools, settings, prompt, sample=sample, start_tests=start_tests, localization=localization)
    return {**head, **judged,
            "turns": run["turns"], "events": run["events"], "stop": run["stop"],
            "timings": {**run["timings"], "start_tests_s": start_s,
                        "verdict_s": round(time.perf_counter() - started, 4)}}


def record_loop(chat, tools, settings, prompt, start_tests, *, on_event=None, cancel=None, focus=None):
    """One run of the loop, recorded: {"turns", "events", "stop", "timings"}. No verdict: a search
    runs this once per candidate and judges only the one it chooses."""
    if hasattr(chat, "with_deadline"):  # a model adapter: the run starts now, and its requests end with it
        chat = chat.with_deadline(settings.deadline)
    recorder, events, tool_s = Recorder(chat), [], []
    run = agent_events(recorder, tools, prompt, settings, start_tests=start_tests, focus=focus, cancel=cancel)
    try:
        for event in run:
            ctrl_c.check()  # a Ctrl-C dropped during a test run's fork stops the run here (closing its stream)
            if event["type"] == "tool_start":
                tool_started = time.perf_counter()
            elif event["type"] == "tool_result":
                tool_s.append(round(time.perf_counter() - tool_started, 4))
            events.append(event)
            if on_event:
                on_event(event)
    except KeyboardInterrupt:  # what the run did so far goes with the stop, to be kept
        run.close()  # its stream closes now, not when the traceback is dropped
        turn = sum(1 for event in events if event["type"] == "model_start")
        raise ctrl_c.Interrupted({"turns": recorder.turns, "events": events,
                           "stop": {"type": "stopped", "turn": turn, "reason": "interrupted"},
                           "timings": {"model_s": recorder.model_s, "tool_s": tool_s}}) from None
    return {"turns": recorder.turns, "events": events, "stop": events[-1],
            "timings": {"model_s": recorder.model_s, "tool_s": tool_s}}


def interrupted_body(partial, head):
    """A partial recording body: `head` (body_head's), what ran, `"interrupted": true`. It has no
    verdict (nothing was judged), so runs/recording_check.py refuses to replay it."""
    return {**head, **partial, "interrupted": True}


def body_head(tools, settings, prompt, *, sample, start_tests, localization=None):
    """What a recording's body says before the run: when, which task and prompt, the system
    prompt and tools as sent, the settings, the sample's hashes, the starting tests and, when
    the settings asked for it, the localization (a replay hands its `ranked` back as `focus`)."""
    return {
        "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "task_name": tools.task.name, "task": prompt, "system": settings.system,
        "tools": [s for s in tools.schemas if s["function"]["name"] in settings.offered_tools],  # as sent
        "settings": settings.recorded(), "sample": sample, "sandbox": tools.sandbox, "start_tests": start_tests,
        **({"localization": localization} if localization is not None else {}),
    }


def loop_settings(recording):
    """The LoopSettings a recording was made with (its system prompt included), for a replay.
    Wall-clock time is not part of what a replay reproduces, so the deadline is left out."""
    recorded = {"system": recording.get("system", SYSTEM), **recording["settings"]}
    return LoopSettings.from_recorded(recorded, deadline=None)
