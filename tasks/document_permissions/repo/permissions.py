"""Who may do what with a shared document."""
from dataclasses import dataclass


@dataclass(frozen=True)
class User:
    name: str
    is_admin: bool = False
    suspended: bool = False


@dataclass(frozen=True)
class Document:
    owner: str
    shared_with: tuple = ()
    locked: bool = False


def can_view(user, document):
    """The owner, anyone the document is shared with, and admins may view; no suspended user."""
    if user.suspended:
        return False
    return user.is_admin or user.name == document.owner or user.name in document.shared_with


def can_edit(user, document):
    """The owner or an admin may edit, unless the document is locked or the user suspended."""
    if user.suspended or document.locked:
        return False
    return user.is_admin and user.name == document.owner


def can_delete(user, document):
    """Only an admin may delete, and only a document that is not locked."""
    return user.is_admin and not user.suspended and not document.locked
