"""Timesheets: shifts clocked in and out, and the hours they add up to."""
from datetime import datetime

FORMAT = "%Y-%m-%d %H:%M"


def parse_time(text):
    """A clock time as the terminal writes it, e.g. '2024-03-01 08:30'."""
    return datetime.strptime(text.strip(), FORMAT)


def shift_hours(clock_in, clock_out):
    """Hours worked between two clock times, as a float."""
    start, end = parse_time(clock_in), parse_time(clock_out)
    if end < start:
        raise ValueError(f"clock-out {clock_out} is before clock-in {clock_in}")
    return (end - start).seconds / 3600


def week_hours(shifts):
    """Total hours of (clock_in, clock_out) shifts, rounded to two decimals."""
    return round(sum(shift_hours(start, end) for start, end in shifts), 2)


def overtime(hours, contract_hours=40):
    """Hours above the contract, never negative."""
    return max(0.0, hours - contract_hours)
