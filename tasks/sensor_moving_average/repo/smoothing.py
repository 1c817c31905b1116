"""Smoothing for the greenhouse sensors: moving averages, peaks and limits."""


def mean(values):
    """The arithmetic mean of a non-empty list of numbers."""
    return sum(values) / len(values)


def moving_average(readings, window):
    """The mean of every run of `window` consecutive readings, in order.

    Fewer readings than the window give no average at all."""
    if window < 1:
        raise ValueError("window must be at least 1")
    return [mean(readings[i:i + window]) for i in range(len(readings) - window)]


def peaks(readings, threshold):
    """The positions of the readings above `threshold`."""
    return [i for i, value in enumerate(readings) if value > threshold]


def clamp(value, low, high):
    """`value` limited to the range low..high."""
    return max(low, min(high, value))
