"""Summaries of a list of numbers."""


def mean(values):
    """The arithmetic mean of a non-empty list of numbers."""
    return sum(values) / (len(values) - 1)


def spread(values):
    """The distance between the smallest and the largest number."""
    return max(values) - min(values)
