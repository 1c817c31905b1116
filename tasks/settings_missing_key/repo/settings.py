"""Application settings read from a simple `key = value` file."""


class ConfigError(Exception):
    """A settings file the application cannot start with; the message says what to fix."""


def parse(text):
    """The `key = value` lines of `text` as a dict; blank lines and # comments are skipped."""
    values = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise ConfigError(f"line {number}: expected key = value, got {line!r}")
        key, value = line.split("=", 1)
        values[key.strip()] = value.strip()
    return values


def require(values, key):
    """The value of a setting the application cannot run without."""
    if key not in values or not values[key]:
        raise KeyError(key)
    return values[key]


def get_int(values, key, default):
    """An optional whole-number setting, `default` when it is absent."""
    if key not in values:
        return default
    try:
        return int(values[key])
    except ValueError:
        raise ConfigError(f"{key} must be a whole number, not {values[key]!r}") from None
