"""What aider's own logs say of one attempt, for aider_bugs.py's line: its repository map, its
estimate of a context past the model's, the token limits it hit, its first model error.

What this file deliberately is not: part of coding-loop, or a parser of aider's every message:
it reads the few lines aider 0.86.2 prints for these (its `--verbose` terminal output and
`--llm-history-file`).
"""
from pathlib import Path

# How aider's first request shows its repository map (aider/coders/base_prompts.py, repo_content_prefix).
MAP_PREFIX = "Here are summaries of some files present in my git repository."


def text_of(path):
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def limits(log):
    """Aider's own estimate of its first chat context when past the model's (its warning, before
    it sends anyway), and how often it hit a token limit (an answer cut, or a request refused)."""
    estimate = next((line for line in log.splitlines() if line.startswith("Your estimated chat context of ")), "")
    tokens = estimate.split(" of ", 1)[1].split(" tokens", 1)[0].replace(",", "") if estimate else ""
    lines = log.splitlines()
    error = next((i for i, line in enumerate(lines) if line.startswith("litellm.")), None)
    return {"context_estimate_over_limit": int(tokens) if tokens.isdigit() else None,
            "token_limit_hits": log.count("has hit a token limit!"),
            "first_model_error": " ".join(lines[error:error + 2]).strip()[:300] if error is not None else None}


def repo_map(log, requests):
    """What aider's log says of its repository map, and whether a request it sent held one."""
    said = next((line.strip() for line in log.splitlines() if line.startswith("Repo-map:")), None)
    return {"announced": said, "sent": MAP_PREFIX in requests,
            "sizes": [line.strip() for line in log.splitlines() if line.startswith("Repo-map: ") and "k-tokens" in line]}

