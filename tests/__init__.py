"""The offline suite beyond the card's two test files (test_loop.py, test_recorded.py at the
root). helpers.py holds what several test files share; wire_captures/ holds real server
streams served byte for byte. No test file imports another test file.

What this folder deliberately is not: a place for product code, or tests that need a model.
"""
