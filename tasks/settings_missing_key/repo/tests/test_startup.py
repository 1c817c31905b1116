from startup import start

GOOD = "database_url = postgres://db/shop\nport = 9000\n"


def test_good_settings_start_the_server():
    assert start(GOOD) == (0, "listening on port 9000 with 2 workers")


def test_a_bad_port_is_one_line_for_the_operator():
    code, message = start(GOOD.replace("9000", "ninety"))
    assert code == 2 and message.startswith("settings problem: port must be a whole number")


def test_a_missing_database_url_is_one_line_for_the_operator():
    code, message = start("port = 9000\n")
    assert code == 2
    assert message.startswith("settings problem:") and "database_url" in message


def test_an_empty_database_url_is_one_line_for_the_operator():
    code, message = start("database_url =\n")
    assert code == 2 and "database_url" in message
