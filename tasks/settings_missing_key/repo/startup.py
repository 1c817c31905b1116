"""Start-up: read the settings and report a problem with them as one line for the operator."""
from settings import ConfigError, get_int, parse, require


def load(text):
    """The settings the server needs: database URL, port and number of workers."""
    values = parse(text)
    return {"database_url": require(values, "database_url"),
            "port": get_int(values, "port", 8000),
            "workers": get_int(values, "workers", 2)}


def start(text):
    """(exit code, message): 0 and where it listens, or 2 and what is wrong with the settings."""
    try:
        config = load(text)
    except ConfigError as error:
        return 2, f"settings problem: {error}"
    return 0, f"listening on port {config['port']} with {config['workers']} workers"
