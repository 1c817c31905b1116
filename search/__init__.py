"""Search: several candidate runs for one attempt, side by side, chosen by the tests. In reading order:

- candidates.py: `run_search`: N runs of the loop, each on its own copy with its own seed, as
  many at once as the servers take; the first that passes calls the others off.
- choice.py: which candidate the tests choose (passing, only editable files changed, the
  fewest changed lines), or which came closest.
- servers.py: the model servers' slots, shared by threads and worker processes; a server that
  fails is named once and sent no more work.
- replay.py: a recorded search played again, every candidate, and the choice re-made.
- coverage.py: how the pass rate grows with N, estimated from runs that let every candidate run.
- live.py: a search against the servers a command line names (record_run.py, fix.py).
- throughput.py: what parallel requests gain on a model server (`bench.py --server`).

What this folder deliberately is not: the loop (each candidate is one ordinary run of
agent_loop.agent_events) or a judge (the tests choose; workspace/verdict.py judges the choice).
"""
