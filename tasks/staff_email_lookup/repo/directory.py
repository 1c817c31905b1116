"""The staff directory: find colleagues by e-mail address, by name or by team."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    name: str
    email: str
    team: str


def find_by_email(people, address):
    """The person with this e-mail address, or None; as in any mail system, addresses are
    not case-sensitive and surrounding spaces do not count."""
    wanted = address.strip()
    for person in people:
        if person.email == wanted:
            return person
    return None


def search(people, text):
    """People whose name contains `text`, ignoring case, in directory order."""
    needle = text.strip().lower()
    return [person for person in people if needle in person.name.lower()]


def team_members(people, team):
    """The names of a team's members, alphabetical."""
    return sorted(person.name for person in people if person.team == team)
