"""Search against the servers a command line names (being absorbed into attempt/):

- live.py: a search against the servers a command line names (record_run.py, fix.py).
"""
