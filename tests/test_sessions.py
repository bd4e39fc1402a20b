"""The session store reads a session by SQL built once (ginleague/sessions.py), with Django's answers:
a signed-in visitor stays signed in, an expired or unknown session is none, and nothing is compiled."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone

from ginleague.sessions import SessionStore
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_session_is_read_as_django_reads_it():
    store = SessionStore()
    store["answer"] = 42
    store.create()
    assert SessionStore(session_key=store.session_key).load() == {"answer": 42}


def test_an_expired_or_unknown_session_is_none():
    store = SessionStore()
    store["answer"] = 42
    store.create()
    Session.objects.filter(session_key=store.session_key).update(expire_date=timezone.now() - datetime.timedelta(1))
    expired = SessionStore(session_key=store.session_key)
    assert expired.load() == {} and expired.session_key is None
    unknown = SessionStore(session_key="x" * 32)
    assert unknown.load() == {} and unknown.session_key is None


def test_a_signed_in_page_compiles_no_session_read(client, compiled):
    user = UserFactory(username="ann")
    user.set_password("a long pass phrase")
    user.save()
    client.force_login(user)
    assert client.get(reverse("account")).status_code == 200
    compiled.clear()
    page = client.get(reverse("account"))
    assert page.status_code == 200 and "ann" in page.content.decode()  # still signed in
    assert Session not in compiled


def test_a_request_sent_before_signing_in_does_not_sign_the_phone_out_again(client):
    """A page asked with the cookie of the session that signing in replaced (the service worker keeping pages
    while the player signs up) leaves the browser's new cookie alone; signing out still deletes it."""
    user = UserFactory(username="ann")
    user.set_password("a long pass phrase")
    user.save()
    client.get(reverse("login"))
    client.session.save()
    old_cookie = client.cookies["sessionid"].value
    assert client.post(reverse("login"), {"username": "ann", "password": "a long pass phrase"}).status_code == 302
    new_cookie = client.cookies["sessionid"].value
    assert new_cookie != old_cookie

    late = client.__class__()
    late.cookies["sessionid"] = old_cookie  # the request that left before the sign-in, answered after it
    answer = late.get(reverse("login"))
    assert "sessionid" not in answer.cookies  # no Set-Cookie: the browser keeps the signed-in session
    assert client.get(reverse("account")).status_code == 200  # still signed in

    signed_out = client.post(reverse("logout"))
    assert signed_out.cookies["sessionid"].value == ""  # sign-out deletes the cookie, as Django does
