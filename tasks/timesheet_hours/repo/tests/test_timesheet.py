import pytest

from timesheet import overtime, shift_hours, week_hours


def test_a_day_shift():
    assert shift_hours("2024-03-04 08:00", "2024-03-04 16:30") == 8.5


def test_a_night_shift_past_midnight():
    assert shift_hours("2024-03-04 22:00", "2024-03-05 06:00") == 8.0


def test_clocking_out_before_clocking_in_is_refused():
    with pytest.raises(ValueError, match="before clock-in"):
        shift_hours("2024-03-04 10:00", "2024-03-04 09:00")


def test_a_weekend_on_call_shift_counts_every_hour():
    assert shift_hours("2024-03-09 08:00", "2024-03-10 10:00") == 26.0


def test_week_with_on_call_and_overtime():
    week = [("2024-03-04 08:00", "2024-03-04 16:00"), ("2024-03-09 08:00", "2024-03-10 10:00"),
            ("2024-03-11 09:00", "2024-03-11 17:15")]
    assert week_hours(week) == 42.25
    assert overtime(week_hours(week)) == 2.25


def test_no_overtime_under_contract():
    assert overtime(37.5) == 0.0
