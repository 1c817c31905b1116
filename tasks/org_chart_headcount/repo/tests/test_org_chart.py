from org_chart import Person, chain_of_command, find, headcount


def company():
    platform = Person("priya", "platform lead", [Person("omar", "engineer"), Person("lena", "engineer")])
    sales = Person("sam", "sales lead", [Person("tom", "account manager")])
    return Person("ceo", "chief executive", [platform, sales, Person("ivy", "assistant")])


def test_find_someone_deep_in_the_chart():
    assert find(company(), "lena").title == "engineer"
    assert find(company(), "nobody") is None


def test_chain_of_command():
    assert chain_of_command(company(), "omar") == ["ceo", "priya", "omar"]
    assert chain_of_command(company(), "nobody") == []


def test_someone_with_no_reports_counts_themselves():
    assert headcount(Person("ivy", "assistant")) == 1


def test_a_team_counts_its_lead_and_members():
    assert headcount(find(company(), "priya")) == 3


def test_the_whole_company():
    assert headcount(company()) == 7
