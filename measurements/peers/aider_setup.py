"""How aider is run for the measurement: its command line, its settings files, its environment,
and the tripwire that catches any request it makes outside the model server.

Aider reaches nothing but the model server: its model settings and metadata are given as files
(else it fetches litellm's price list from GitHub), litellm's own copy of that list is the local
one (LITELLM_LOCAL_MODEL_COST_MAP), update checks, analytics, URL scraping and suggested shell
commands are off, HOME is a throwaway folder, nothing of this process's environment is passed
on, and every proxy variable points at a loopback tripwire that refuses and notes any other
request (from any client that honours those variables, as requests, httpx and urllib do; a raw
socket would pass it by). Without all that, aider 0.86 asks pypi.org and raw.githubusercontent.com
at start, and litellm asks raw.githubusercontent.com when it is imported.

What this file deliberately is not: the measurement (aider_tasks.py runs and judges it on the 24
tasks, measurements/fix-libraries/aider_bugs.py on the library bugs) or an import of aider,
which runs only as a subprocess from its own environment.
"""
import json
import os
import socket
import subprocess
import threading
from urllib.parse import urlsplit

# The same goal the harness's system prompt states, after the same ticket.
GOAL = "Repair the code so that the repository's tests pass. Edit only {files}; never edit the tests."
# Switches that keep aider local and non-interactive, and its output complete (--verbose shows
# every request); the README says why each is there. LOCAL_FLAGS are every measurement's;
# FIXED_FLAGS are the 24 tasks' (whole files, no git, so no repository map, auto-test).
LOCAL_FLAGS = ("--no-auto-lint", "--no-suggest-shell-commands", "--no-detect-urls", "--no-check-update",
               "--no-show-release-notes", "--no-show-model-warnings", "--analytics-disable", "--no-analytics",
               "--disable-playwright", "--no-browser", "--no-notifications", "--no-restore-chat-history",
               "--env-file", os.devnull, "--no-pretty", "--no-stream", "--no-fancy-input", "--yes-always",
               "--encoding", "utf-8", "--verbose")
FIXED_FLAGS = ("--edit-format", "whole", "--no-git", "--map-tokens", "0", "--auto-test", *LOCAL_FLAGS)


class Tripwire:
    """A proxy on loopback that forwards nothing: it notes each request's first line and refuses
    it, so a stray call to the internet fails at once, instead of waiting on a timeout, and shows."""

    def __init__(self):
        self.seen, self.server = [], socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return  # closed
            with connection:
                try:
                    connection.settimeout(5)
                    self.seen.append(connection.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")[:200])
                    connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass


def aider_files(folder, args, seed, edit_format="whole"):
    """Aider's model settings (JSON is YAML too) and metadata, written where it will read them."""
    model = f"openai/{args.model}"
    settings = [{"name": model, "edit_format": edit_format, "use_temperature": args.temperature,
                 # max_retries 0: else the OpenAI client under litellm resends a timed-out request
                 # twice, silently (seen: 3 requests where aider's log shows one retry).
                 "extra_params": {"seed": seed, "max_tokens": args.max_tokens, "max_retries": 0}}]
    metadata = {model: {"max_input_tokens": args.context, "max_output_tokens": args.max_tokens,
                        "max_tokens": args.context, "input_cost_per_token": 0, "output_cost_per_token": 0,
                        "litellm_provider": "openai", "mode": "chat"}}
    (folder / "settings.yml").write_text(json.dumps(settings, indent=1))
    (folder / "metadata.json").write_text(json.dumps(metadata, indent=1))
    return folder / "settings.yml", folder / "metadata.json"


def aider_command(args, task, test_cmd, folder, keep, seed):
    """Aider's argv for one attempt: the editable files in its chat, the other readable ones
    read-only, the ticket and the goal as its one message; its own records go to `keep`."""
    settings, metadata = aider_files(folder, args, seed)
    read_only = [path for path in task.readable if path not in task.editable]
    return [args.aider, "--model", f"openai/{args.model}", "--model-settings-file", str(settings),
            "--model-metadata-file", str(metadata), "--timeout", str(args.request_timeout), *FIXED_FLAGS,
            "--test-cmd", test_cmd, "--analytics-log", str(keep / "aider.analytics.jsonl"),
            "--chat-history-file", str(keep / "aider.chat.history.md"),
            "--input-history-file", str(keep / "aider.input.history"),
            "--llm-history-file", str(keep / "aider.llm.history"),
            *(["--max-chat-history-tokens", str(args.context)] if args.no_history_summary else []),
            *[flag for path in read_only for flag in ("--read", path)],
            *[flag for path in task.editable for flag in ("--file", path)],
            "--message", f"{task.ticket}\n\n{GOAL.format(files=', '.join(task.editable))}"]


def aider_env(args, home, tripwire):
    """Nothing inherited (no keys, no AIDER_* settings): the model server direct, all else to the tripwire."""
    direct = ",".join(dict.fromkeys(["127.0.0.1", "localhost", urlsplit(args.base_url).hostname or "localhost"]))
    proxies = {name: tripwire.url for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")}
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb",
            "SHELL": "/bin/sh", "OPENAI_API_BASE": args.base_url, "OPENAI_API_KEY": "not-needed",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True", **proxies, **{k.lower(): v for k, v in proxies.items()},
            "NO_PROXY": direct, "no_proxy": direct}


def run_aider(argv, cwd, env, timeout, log):
    """(exit code, timed out): aider in its own process group, killed whole at the deadline."""
    with open(log, "wb") as output:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return process.wait(timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            return process.wait(), True
        except KeyboardInterrupt:  # its own session gets no Ctrl-C: end it with us
            os.killpg(process.pid, 9)
            process.wait()
            raise
