"""Customer survey results: scores from 1 to 5 per question, and their summaries."""
from collections import Counter


def valid_scores(answers):
    """The answers that are whole scores from 1 to 5; blanks and typos are dropped."""
    return [a for a in answers if isinstance(a, int) and not isinstance(a, bool) and 1 <= a <= 5]


def average_score(answers):
    """The mean of the valid scores, rounded to two decimals; None when there is none."""
    scores = valid_scores(answers)
    return round(sum(scores) / len(scores), 2)


def distribution(answers):
    """How many valid answers gave each score, for every score from 1 to 5."""
    counts = Counter(valid_scores(answers))
    return {score: counts[score] for score in range(1, 6)}


def summary(question, answers):
    """One line of the weekly report: the question, its average and how many answered."""
    average = average_score(answers)
    shown = "no answers yet" if average is None else f"{average:.2f}"
    return f"{question}: {shown} ({len(valid_scores(answers))} answered)"
