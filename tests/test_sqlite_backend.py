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


def test_dates_times_and_booleans_come_back_as_python_values_without_the_drivers_detection(user):
    """The connection leaves the columns' declared types alone; every way the app reads a game still gets
    its dates, times and yes/no as Python values (the games list, the locked read every hand starts with)."""
    import datetime

    from django.db import transaction

    from scoring import selectors
    from tests.factories import PlayerFactory, make_game

    mine = PlayerFactory(user=user)
    gin = {"ending": "gin", "by": mine, "defender_deadwood": 60}
    game = make_game(player_one=mine, created_by=user, hands=[gin, gin])
    with connection.cursor() as cursor:  # the driver's own answer: text, as stored
        cursor.execute("SELECT created_at, over FROM scoring_game WHERE id = %s", [game.pk])
        assert cursor.fetchone() == (str(cursor.db.ops.adapt_datetimefield_value(game.created_at)), 1)
    stored = type(game).objects.get(pk=game.pk)
    assert isinstance(stored.created_at, datetime.datetime) and stored.over is True
    assert stored.finished_at == game.finished_at and stored.created_at == game.created_at
    listed = selectors.own_games(user)
    assert [(row.pk, row.over, row.created_at) for row in listed] == [(game.pk, True, game.created_at)]
    with transaction.atomic():
        locked = selectors.game_for_update(pk=game.pk)
    assert (locked.over, locked.finished_at, locked.created_at) == (True, game.finished_at, game.created_at)
    assert isinstance(locked.finished_at, datetime.datetime)
