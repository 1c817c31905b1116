"""The company's org chart: who reports to whom, and how many people each manager leads."""
from dataclasses import dataclass, field


@dataclass
class Person:
    name: str
    title: str
    reports: list = field(default_factory=list)


def headcount(person):
    """How many people are in `person`'s part of the chart, `person` included."""
    if not person.reports:
        return 0
    return 1 + sum(headcount(report) for report in person.reports)


def find(person, name):
    """The person called `name` in `person`'s part of the chart, or None."""
    if person.name == name:
        return person
    for report in person.reports:
        found = find(report, name)
        if found is not None:
            return found
    return None


def chain_of_command(person, name):
    """Names from `person` down to `name`, both included; [] when `name` is not below."""
    if person.name == name:
        return [person.name]
    for report in person.reports:
        chain = chain_of_command(report, name)
        if chain:
            return [person.name] + chain
    return []
