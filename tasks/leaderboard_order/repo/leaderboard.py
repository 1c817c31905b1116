"""The weekly quiz leaderboard: points per player, ranked."""
from collections import defaultdict


def points_by_player(results):
    """Total points per player from (player, points) results."""
    totals = defaultdict(int)
    for player, points in results:
        totals[player] += points
    return dict(totals)


def ranking(results):
    """(player, points) pairs, most points first; players with equal points by name, A to Z."""
    totals = points_by_player(results)
    return sorted(totals.items(), key=lambda pair: (pair[1], pair[0]))


def top(results, count=3):
    """The first `count` places of the ranking."""
    return ranking(results)[:count]


def podium(results):
    """'1. name (points)' lines for the top three."""
    return "\n".join(f"{place}. {name} ({points})" for place, (name, points) in enumerate(top(results), start=1))
