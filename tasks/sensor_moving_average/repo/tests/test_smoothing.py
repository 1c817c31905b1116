import pytest

from smoothing import clamp, mean, moving_average, peaks


def test_mean():
    assert mean([20, 21, 25]) == 22


def test_three_reading_average_covers_every_window():
    assert moving_average([20, 21, 22, 23, 24], 3) == [21, 22, 23]


def test_as_many_readings_as_the_window_give_one_average():
    assert moving_average([18, 20, 22], 3) == [20]


def test_window_of_one_keeps_every_reading():
    assert moving_average([5, 7, 9], 1) == [5, 7, 9]


def test_too_few_readings_give_no_average():
    assert moving_average([20, 21], 3) == []


def test_window_must_be_positive():
    with pytest.raises(ValueError):
        moving_average([1, 2, 3], 0)


def test_peaks_and_clamp():
    assert peaks([20, 31, 25, 33], 30) == [1, 3]
    assert clamp(42, 0, 40) == 40 and clamp(-3, 0, 40) == 0 and clamp(12, 0, 40) == 12
