"""The session store reads a session by SQL built once (ginleague/sessions.py), with Django's answers:
a signed-in visitor stays signed in, an expired or unknown session is none, and nothing is compiled."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.sessions.models import Session
from django.db.models.sql.compiler import SQLCompiler
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


def test_a_signed_in_page_compiles_no_session_read(client, monkeypatch):
    user = UserFactory(username="ann")
    user.set_password("a long pass phrase")
    user.save()
    client.force_login(user)
    assert client.get(reverse("account")).status_code == 200
    compiled = []
    as_sql = SQLCompiler.as_sql

    def counted(self, *args, **kwargs):
        compiled.append(self.query.model)
        return as_sql(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    page = client.get(reverse("account"))
    assert page.status_code == 200 and "ann" in page.content.decode()  # still signed in
    assert Session not in compiled
