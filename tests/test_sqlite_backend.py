"""SQLite: each statement's placeholders are converted once per process (ginleague/sqlite3), with Django's answers."""

from __future__ import annotations

import pytest
from django.db import connection

from ginleague.sqlite3.base import qmark_form

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite backend's own conversion"),
]


def test_a_statement_is_converted_once_and_as_django_converts_it():
    statement = "SELECT '100%%', %s, %s || '%%s'"  # a literal percent, two values, an escaped placeholder
    with connection.cursor() as cursor:
        cursor.execute(statement, [1, "x"])
        assert cursor.fetchone() == ("100%", 1, "x%s")
        converted = qmark_form.cache_info().hits
        cursor.execute(statement, [2, "y"])
        assert cursor.fetchone() == ("100%", 2, "y%s")
    assert qmark_form.cache_info().hits == converted + 1


def test_named_parameters_are_djangos():
    with connection.cursor() as cursor:
        cursor.execute("SELECT %(a)s, %(b)s", {"a": 1, "b": "two"})
        assert cursor.fetchone() == (1, "two")
