"""How many requests at once a model server serves best: generated tokens per second, summed
over 1, 2 and 4 requests sent together (llama-server's parallel slots, `-np`).

A search runs its candidates side by side only if the server gains by it: on a GPU, batching
several sequences costs little more than one; on two CPU cores, each request may simply get a
share of the same arithmetic. `python bench.py --server URL --model NAME` prints the figures
this measures, as ratios to one request at a time, so `--parallel` can be set from a number.

What this file deliberately is not: a load test. It sends a handful of short requests (a
server with fewer slots than requests queues the rest, which the figures then show).
"""
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

PROMPT = ("Write a Python module with five small functions for parsing and validating dates, "
          "each with a docstring and three doctest examples.")


def generated_per_second(base_url, model, at_once, tokens=128, timeout=900.0):
    """(generated tokens per second, summed over `at_once` requests sent together; seconds)."""
    def one(seed):
        reply = httpx.post(f"{base_url.rstrip('/')}/chat/completions", timeout=timeout, json={
            "model": model, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": tokens,
            "temperature": 0.7, "seed": seed, "stream": False})
        reply.raise_for_status()
        return reply.json()["usage"]["completion_tokens"]
    started = time.perf_counter()
    with ThreadPoolExecutor(at_once) as pool:
        generated = sum(pool.map(one, range(100, 100 + at_once)))
    seconds = time.perf_counter() - started
    return generated / seconds, seconds


def slot_ratios(base_url, model, counts=(1, 2, 4), say=print):
    """Measure each count once (after a warm-up request), print a line each, return {n: tokens/s}."""
    generated_per_second(base_url, model, 1, tokens=8)  # load the weights, fill the caches
    rates = {}
    for n in counts:
        rates[n], seconds = generated_per_second(base_url, model, n)
        say(f"  {n} at once: {rates[n]:.1f} generated tokens/s in all ({seconds:.0f} s), "
            f"{rates[n] / rates[counts[0]]:.2f}x one at a time")
    return rates
