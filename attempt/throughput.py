"""How many requests at once a model server serves best: generated tokens per second, summed
over 1, 2 and 4 requests sent together (llama-server's parallel slots, `-np`).

A search runs its candidates side by side only if the server gains by it: on a GPU, batching
several sequences costs little more than one; on two CPU cores, each request may simply get a
share of the same arithmetic. `python bench.py --server URL --model NAME` prints the figures
this measures, as ratios to one request at a time, so `--parallel` can be set from a number.
A server that is not there, or sends no token counts, is NotMeasured: one sentence, no figures.

What this file deliberately is not: a load test. It sends a handful of short requests (a
server with fewer slots than requests queues the rest, which the figures then show).
"""
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

PROMPT = ("Write a Python module with five small functions for parsing and validating dates, "
          "each with a docstring and three doctest examples.")


class NotMeasured(Exception):
    """The server could not be measured: one sentence saying why, and what to pass."""


def generated_per_second(base_url, model, at_once, tokens=128, timeout=900.0):
    """(generated tokens per second, summed over `at_once` requests sent together; seconds)."""
    started = time.perf_counter()
    with ThreadPoolExecutor(at_once) as pool:
        generated = sum(pool.map(lambda seed: _generated(base_url, model, seed, tokens, timeout),
                                 range(100, 100 + at_once)))
    seconds = time.perf_counter() - started
    return generated / seconds, seconds


def _generated(base_url, model, seed, tokens, timeout):
    """The tokens one request generated, as the server counted them; NotMeasured otherwise."""
    try:
        reply = httpx.post(f"{base_url.rstrip('/')}/chat/completions", timeout=timeout, json={
            "model": model, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": tokens,
            "temperature": 0.7, "seed": seed, "stream": False})
        reply.raise_for_status()
        count = reply.json()["usage"]["completion_tokens"]
    except httpx.HTTPStatusError as error:
        raise NotMeasured(f"{base_url} answered {error.response.status_code} to a chat request for {model!r}: "
                          "pass the served model as --model") from None
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        raise NotMeasured(f"no server answers at {base_url} ({type(error).__name__}): start one, or pass its "
                          "OpenAI-compatible URL (it usually ends in /v1) as --server") from None
    except (ValueError, KeyError, TypeError):  # not JSON, or no usage in it
        count = None
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise NotMeasured(f"{base_url} sent no count of generated tokens (usage.completion_tokens), "
                          "which the figures are made of: measure a server that counts them")
    return count


def slot_ratios(base_url, model, counts=(1, 2, 4), say=print):
    """Measure each count once (after a warm-up request), print a line each, return {n: tokens/s}."""
    generated_per_second(base_url, model, 1, tokens=8)  # load the weights, fill the caches
    rates = {}
    for n in counts:
        rates[n], seconds = generated_per_second(base_url, model, n)
        say(f"  {n} at once: {rates[n]:.1f} generated tokens/s in all ({seconds:.0f} s), "
            f"{rates[n] / rates[counts[0]]:.2f}x one at a time")
    return rates
