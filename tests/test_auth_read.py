"""The request's account is read by a statement built once (ginleague/auth.py), with Django's answers: a
signed-in visitor stays signed in, and is signed out when the password changes elsewhere, the account is
deactivated or its backend is no longer configured; a session signed under an old secret key survives the
key's rotation (SECRET_KEY_FALLBACKS)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def signed_in(username="ann") -> tuple[Client, object]:
    user = UserFactory(username=username)
    user.set_password("a long pass phrase")
    user.save()
    client = Client()
    client.force_login(user)
    return client, user


def is_signed_in(client) -> bool:
    page = client.get(reverse("account"))  # sign-in only: anyone else is sent to the sign-in page
    return page.status_code == 200


def test_the_account_is_read_as_the_orm_reads_it_and_compiled_once(compiled):
    client, user = signed_in()
    assert is_signed_in(client)
    compiled.clear()
    response = client.get(reverse("account"))
    assert response.status_code == 200 and get_user_model() not in compiled
    read = response.wsgi_request.user
    stored = get_user_model().objects.get(pk=user.pk)
    assert [(field.name, getattr(read, field.attname)) for field in stored._meta.concrete_fields] == [
        (field.name, getattr(stored, field.attname)) for field in stored._meta.concrete_fields
    ]
    assert read.last_login.tzinfo is not None and read.is_active is True  # converted as the ORM converts


def test_a_password_changed_elsewhere_signs_the_other_sessions_out():
    phone, user = signed_in()
    laptop = Client()
    laptop.force_login(user)
    user.set_password("another long pass phrase")
    user.save()
    assert not is_signed_in(phone) and not is_signed_in(laptop)
    assert "_auth_user_id" not in phone.session  # flushed, as Django does


def test_a_deactivated_account_is_signed_out():
    client, user = signed_in()
    assert is_signed_in(client)
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    assert not is_signed_in(client)


def test_a_session_of_a_backend_no_longer_configured_is_signed_out(settings):
    client, _ = signed_in()
    settings.AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend"]
    assert not is_signed_in(client)


def test_a_session_survives_the_secret_keys_rotation(settings):
    client, _ = signed_in()
    old_key, old_session = settings.SECRET_KEY, client.cookies[settings.SESSION_COOKIE_NAME].value
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "a new secret key " * 4, [old_key]
    assert is_signed_in(client)
    assert client.cookies[settings.SESSION_COOKIE_NAME].value != old_session  # cycled onto the new key's hash
    settings.SECRET_KEY_FALLBACKS = []
    assert is_signed_in(client)
    settings.SECRET_KEY = "yet another secret key " * 4  # no fallback for this one
    assert not is_signed_in(client)


def test_a_session_naming_no_account_is_anonymous():
    client, user = signed_in()
    get_user_model().objects.filter(pk=user.pk).delete()
    assert not is_signed_in(client)
    session = client.session
    session["_auth_user_id"] = str(2**63)  # past any id column
    session.save()
    assert not is_signed_in(client)


def test_pages_show_the_account_the_view_read_itself():
    """Templates get the account the view read (ginleague.auth.read_user), not its lazy wrapper: the same account,
    its name in the chrome; signed out, anonymous."""
    client, user = signed_in("cleo")
    page = client.get(reverse("home"))
    shown = page.context["user"]
    assert type(shown) is get_user_model() and shown.pk == user.pk
    assert 'data-user="cleo"' in page.content.decode()
    anonymous = Client().get(reverse("league:clubs"))
    assert not anonymous.context["user"].is_authenticated and 'data-user=""' in anonymous.content.decode()


def test_the_kept_session_hash_is_the_accounts_own(settings):
    """The session's hash is kept per stored password hash and SECRET_KEY (ginleague.auth._session_auth_hash):
    always what Django's get_session_auth_hash() says, through a password change and a new key."""
    from ginleague.auth import _session_auth_hash

    _, user = signed_in()
    for change in ("none", "password", "key"):
        if change == "password":
            user.set_password("another long pass phrase")
        elif change == "key":
            settings.SECRET_KEY = "a new secret key " * 4
        assert _session_auth_hash(user) == _session_auth_hash(user) == user.get_session_auth_hash()
