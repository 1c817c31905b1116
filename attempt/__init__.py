"""One attempt at a task: a single run, or a search of several candidates chosen by the tests.
In reading order:

- run.py: `Attempt`, the frozen value of one attempt (task, settings, model and its servers,
  folder, sandbox mode, all-candidates), and `run_attempt`: start once, run one candidate or N,
  choose, judge, and label the recording once. record_run.py, fix.py and evaluation/job.py call it.
- start.py: where every run of the attempt starts: one copy, its tests run once, the ranking once.
- side_by_side.py: `run_search`: N runs of the loop, each on its own copy with its own seed, as
  many at once as the servers take; the first that passes calls the others off.
- choosing.py: which candidate the tests choose (passing, only editable files changed, the
  fewest changed lines), or which came closest.
- servers.py: the model servers' slots, shared by threads and worker processes; a server that
  fails is named once and sent no more work.
- adapters.py: a model choice made real: the adapter it names, each run's seed, and the servers
  asked before any work.
- replaying.py: a recorded attempt played again: a single run as a search of one, every candidate
  of a search, and the choice re-made.
- throughput.py: what parallel requests gain on a model server (`bench.py --server`).

What this folder deliberately is not: the loop (each candidate is one ordinary run of
agent_loop.agent_events), a judge (the tests choose; workspace/verdict.py judges the choice), or
a command line (record_run.py, fix.py and evaluation/ call it; command_line/ shows it).
"""
