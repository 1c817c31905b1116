from signup import email_problem, missing_fields, problems

FORM = {"name": "Ana Silva", "email": "ana@example.pt", "password": "correct horse", "country": "PT"}


def test_a_complete_form_misses_nothing():
    assert missing_fields(FORM) == []
    assert problems(FORM) == []


def test_a_blank_name_is_missing():
    assert missing_fields({**FORM, "name": "  "}) == ["name"]


def test_missing_password_and_country():
    assert missing_fields({"name": "Ana Silva", "email": "ana@example.pt"}) == ["password", "country"]


def test_an_empty_form_misses_every_field():
    assert missing_fields({}) == ["name", "email", "password", "country"]


def test_email_problem():
    assert email_problem("ana@example.pt") is None
    assert email_problem("ana.example.pt") == "'ana.example.pt' is not an e-mail address"


def test_problems_lists_everything():
    form = {"name": "Ana", "email": "ana@", "password": "short"}
    assert problems(form) == ["country is required", "'ana@' is not an e-mail address",
                              "the password needs at least 10 characters"]
