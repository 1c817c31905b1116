import pytest

from settings import ConfigError, get_int, parse, require


def test_parse_skips_comments_and_blank_lines():
    assert parse("# server\n\nport = 8080\nname=shop = main\n") == {"port": "8080", "name": "shop = main"}


def test_a_line_without_equals_is_a_config_error():
    with pytest.raises(ConfigError, match="line 2"):
        parse("port = 1\nworkers 4\n")


def test_require_returns_the_value():
    assert require({"database_url": "postgres://db/shop"}, "database_url") == "postgres://db/shop"


def test_a_missing_required_setting_is_a_config_error():
    with pytest.raises(ConfigError, match="database_url"):
        require({"port": "8080"}, "database_url")


def test_get_int_default_and_bad_number():
    assert get_int({}, "workers", 2) == 2
    with pytest.raises(ConfigError, match="workers"):
        get_int({"workers": "four"}, "workers", 2)
