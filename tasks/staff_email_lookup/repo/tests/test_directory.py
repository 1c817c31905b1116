from directory import Person, find_by_email, search, team_members

ALICE = Person("Alice Smith", "alice.smith@example.com", "finance")
BOB = Person("Bob Jones", "Bob.Jones@Example.com", "support")
CHEN = Person("Chen Li", "chen.li@example.com", "support")
STAFF = [ALICE, BOB, CHEN]


def test_an_address_typed_as_stored():
    assert find_by_email(STAFF, " alice.smith@example.com ") == ALICE


def test_an_unknown_address():
    assert find_by_email(STAFF, "nobody@example.com") is None


def test_an_address_typed_with_capitals():
    assert find_by_email(STAFF, "Alice.Smith@Example.com") == ALICE


def test_an_address_stored_with_capitals():
    assert find_by_email(STAFF, "bob.jones@example.com") == BOB


def test_search_and_teams():
    assert search(STAFF, "li") == [ALICE, CHEN]
    assert team_members(STAFF, "support") == ["Bob Jones", "Chen Li"]
