"""The offline suite beyond the card's two test files (test_loop.py, test_recorded.py at the
root). What several test files share: helpers.py (the sample's repair, the loop runner, event
filters), processes.py (process-table and network probes), user_repos.py (small repositories
for fix.py), browser.py (chromium). wire_captures/ holds real server streams served byte for
byte. No test file imports another test file.

What this folder deliberately is not: a place for product code, or tests that need a model.
"""
