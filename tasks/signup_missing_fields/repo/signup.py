"""Sign-up form checks: which required fields are missing, and whether the e-mail looks right."""
import re

REQUIRED = ("name", "email", "password", "country")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
MIN_PASSWORD = 10


def missing_fields(form):
    """The required fields that are absent or blank, in the order of REQUIRED."""
    missing = []
    for field in REQUIRED:
        if not str(form.get(field) or "").strip():
            missing.append(field)
        return missing


def email_problem(address):
    """Why `address` cannot be an e-mail address, or None when it looks like one."""
    if not EMAIL.fullmatch(address.strip()):
        return f"{address.strip()!r} is not an e-mail address"
    return None


def problems(form):
    """Every message to show under the form: missing fields first, then the e-mail and password."""
    found = [f"{field} is required" for field in missing_fields(form)]
    if form.get("email") and email_problem(form["email"]):
        found.append(email_problem(form["email"]))
    if form.get("password") and len(form["password"]) < MIN_PASSWORD:
        found.append(f"the password needs at least {MIN_PASSWORD} characters")
    return found
