"""Every page's fixed cost stays small: "Needs you" and the home page's list build no SQL per request.

Building a join's queryset and compiling it cost the ORM more than running it: every signed-in page
paid ~13 ms for "Needs you" before showing anything (issue 40). Their statements are built once per
database (scoring/prepared.py); these tests count the compilations, not the time, and check that each
viewer still gets their own answer from the shared statement.
"""

from __future__ import annotations

import datetime

import pytest
from django.db.models.sql.compiler import SQLCompiler
from django.urls import reverse

from scoring.league import services as league
from scoring.selectors import own_games, todo_for
from tests.factories import make_game
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def compilations(monkeypatch):
    """How many statements the ORM compiles (as_sql of a query's compiler) from now on."""
    count = {"n": 0}
    as_sql = SQLCompiler.as_sql

    def counted(self, *args, **kwargs):
        count["n"] += 1
        return as_sql(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    return count


def test_needs_you_compiles_no_sql_once_built(compilations):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    todo_for(cast.owner)  # built (or already built by another test)
    compilations["n"] = 0
    rival, player = todo_for(cast.rival), todo_for(cast.player)
    assert compilations["n"] == 0
    # One statement, each viewer's own answer: Quinn confirms what Pat recorded; Pat waits.
    assert [g.pk for g in rival.to_confirm] == [game.pk] and rival.count == 1
    assert player.count == 0 and rival.to_confirm[0].season.club.pk == cast.club.pk  # joins loaded


def test_needs_you_follows_the_day_it_is_asked_on(compilations):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    today = datetime.date.today()
    league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn], starts_on=today,
        ends_on=today + datetime.timedelta(days=30), created_by=cast.owner,
    )  # fmt: skip
    todo_for(cast.player)
    compilations["n"] = 0
    assert todo_for(cast.player, today=today).due == []  # due in 30 days: not yet
    later = todo_for(cast.player, today=today + datetime.timedelta(days=25))
    assert len(later.due) == 1 and not later.due[0].overdue
    assert todo_for(cast.player, today=today + datetime.timedelta(days=31)).due[0].overdue
    assert compilations["n"] == 0


def test_the_home_page_list_compiles_only_its_prefetch(client, compilations):
    cast = make_club()
    mine = make_game(player_one=cast.player_of(cast.player), created_by=cast.player)
    theirs = make_game(player_one=cast.player_of(cast.rival), created_by=cast.rival)
    own_games(cast.owner)
    compilations["n"] = 0
    assert [game.pk for game in own_games(cast.player)] == [mine.pk]
    assert [game.pk for game in own_games(cast.rival)] == [theirs.pk]
    assert compilations["n"] == 2  # each list's scores (prefetched), nothing else
    cast.player.set_password("a long pass phrase")
    cast.player.save()
    client.force_login(cast.player)
    page = client.get(reverse("home")).content.decode()
    assert reverse("game", args=[mine.pk]) in page and reverse("game", args=[theirs.pk]) not in page
