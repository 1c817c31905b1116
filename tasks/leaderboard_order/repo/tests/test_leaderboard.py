from leaderboard import podium, points_by_player, ranking, top

WEEK = [("ben", 12), ("dana", 2), ("ada", 9), ("ben", 19), ("carl", 14), ("ada", 5), ("eve", 7)]


def test_points_are_added_up_per_player():
    assert points_by_player(WEEK) == {"ben": 31, "dana": 2, "ada": 14, "carl": 14, "eve": 7}


def test_no_results_no_ranking():
    assert ranking([]) == []


def test_most_points_first():
    assert [name for name, _ in ranking(WEEK)] == ["ben", "ada", "carl", "eve", "dana"]


def test_equal_points_in_alphabetical_order():
    assert ranking([("zoe", 5), ("amy", 5), ("kim", 8)]) == [("kim", 8), ("amy", 5), ("zoe", 5)]


def test_top_three():
    assert top(WEEK) == [("ben", 31), ("ada", 14), ("carl", 14)]


def test_podium_text():
    assert podium(WEEK) == "1. ben (31)\n2. ada (14)\n3. carl (14)"
