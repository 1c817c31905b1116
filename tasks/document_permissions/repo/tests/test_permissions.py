from permissions import Document, User, can_delete, can_edit, can_view

MARIA, OLEG = User("maria"), User("oleg")
ADMIN = User("root", is_admin=True)
REPORT = Document("maria", shared_with=("oleg",))


def test_owner_shared_and_admin_may_view():
    assert can_view(MARIA, REPORT) and can_view(OLEG, REPORT) and can_view(ADMIN, REPORT)
    assert not can_view(User("zed"), REPORT)
    assert not can_view(User("maria", suspended=True), REPORT)


def test_a_reader_may_not_edit():
    assert not can_edit(OLEG, REPORT)


def test_a_locked_document_is_not_edited():
    locked = Document("maria", locked=True)
    assert not can_edit(MARIA, locked) and not can_edit(ADMIN, locked)


def test_the_owner_may_edit():
    assert can_edit(MARIA, REPORT)


def test_an_admin_may_edit():
    assert can_edit(ADMIN, REPORT)


def test_only_admins_delete():
    assert can_delete(ADMIN, REPORT) and not can_delete(MARIA, REPORT)
    assert not can_delete(ADMIN, Document("maria", locked=True))
