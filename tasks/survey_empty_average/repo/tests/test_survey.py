from survey import average_score, distribution, summary, valid_scores


def test_blanks_and_typos_are_dropped():
    assert valid_scores([5, None, "4", 3, 9, 0, 1]) == [5, 3, 1]


def test_average_of_the_valid_scores():
    assert average_score([5, 4, 4, None]) == 4.33


def test_distribution_counts_every_score():
    assert distribution([5, 5, 3, "x"]) == {1: 0, 2: 0, 3: 1, 4: 0, 5: 2}


def test_summary_line():
    assert summary("Delivery speed", [4, 5]) == "Delivery speed: 4.50 (2 answered)"


def test_a_question_nobody_answered_has_no_average():
    assert average_score([]) is None


def test_a_question_nobody_answered_is_reported():
    assert summary("New packaging", [None, ""]) == "New packaging: no answers yet (0 answered)"
