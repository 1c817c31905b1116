"""Choose which changed files a CI job should lint: the Python sources under src/."""


def python_sources(changed_paths):
    """Return the changed .py files under src/, in order, with forward slashes."""
    sources = []
    for path in changed_paths:
        parts = path.split("/")
        if parts[0] == "src" and parts[-1].endswith(".py"):
            sources.append("/".join(parts))
    return sources
