from statlite import mean, spread


def test_mean_of_two_numbers():
    assert mean([2, 4]) == 3


def test_mean_of_one_number_is_that_number():
    assert mean([5]) == 5


def test_spread():
    assert spread([3, 9, 4]) == 6
