"""Fixtures with due dates, and seasons that close: locked results, a champion, an archive."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from scoring import permissions, services
from scoring.league import services as league
from scoring.models import Fixture, SeasonFormat
from tests.league_setup import gin, make_club, play, start_and_finish
from tests.test_api_league import api_client

pytestmark = pytest.mark.django_db


def _season(cast, *, starts_on=None, ends_on=None, format=SeasonFormat.SINGLE):
    entrants = [cast.player_of(user) for user in (cast.owner, cast.player, cast.rival)] + [cast.guest]
    return league.season_create(
        club=cast.club,
        name="Spring",
        players=entrants,
        format=format,
        starts_on=starts_on,
        ends_on=ends_on,
        created_by=cast.owner,
    )


def test_due_dates_are_spread_over_the_season_and_the_last_round_is_due_when_it_ends():
    cast = make_club()
    season = _season(cast, starts_on=datetime.date(2026, 3, 1), ends_on=datetime.date(2026, 3, 31))
    due = {f.round: f.due_on for f in season.fixtures.all()}
    assert due == {1: datetime.date(2026, 3, 11), 2: datetime.date(2026, 3, 21), 3: datetime.date(2026, 3, 31)}
    assert league.due_dates(2, None, datetime.date(2026, 5, 1)) == [datetime.date(2026, 5, 1)] * 2
    assert league.due_dates(2, datetime.date(2026, 5, 1), None) == [None, None]


def test_a_rounds_due_date_can_be_changed_but_not_past_the_season_end():
    cast = make_club()
    season = _season(cast, starts_on=datetime.date(2026, 3, 1), ends_on=datetime.date(2026, 3, 31))
    assert league.fixtures_set_due(season=season, round=2, due_on=datetime.date(2026, 3, 25)) == 2
    assert set(Fixture.objects.filter(season=season, round=2).values_list("due_on", flat=True)) == {
        datetime.date(2026, 3, 25)
    }
    with pytest.raises(ValidationError) as refused:
        league.fixtures_set_due(season=season, round=2, due_on=datetime.date(2026, 4, 2))
    assert "due_on" in refused.value.message_dict


def test_closing_names_the_champion_and_locks_every_result():
    cast = make_club()
    season = _season(cast)
    owner, pat, quinn = (cast.player_of(u) for u in (cast.owner, cast.player, cast.rival))
    fixtures = list(season.fixtures.select_related("home", "away").order_by("round", "pk"))
    confirmed = []
    for fixture in fixtures:
        pair = {fixture.home, fixture.away}
        if pat in pair:  # Pat wins every game of hers
            confirmed.append(start_and_finish(fixture, pat, started_by=cast.owner, confirm_by=cast.admin))
    provisional = next(f for f in fixtures if pat not in {f.home, f.away} and quinn in {f.home, f.away})
    open_game = start_and_finish(provisional, quinn, started_by=cast.owner)
    in_play = league.fixture_start(
        fixture=next(f for f in fixtures if {f.home, f.away} == {owner, cast.guest}), started_by=cast.owner
    )

    closed = league.season_close(season=season, closed_by=cast.owner)
    assert closed.closed_at is not None and closed.champion == pat

    game = confirmed[0]
    with pytest.raises(ValidationError, match="closed"), transaction.atomic():  # hand_record has no savepoint
        services.hand_record(game=in_play, recorded_by=cast.owner, **gin(owner))
    with pytest.raises(ValidationError, match="closed"):
        services.hand_edit(hand=game.hands.get(), edited_by=cast.owner, reason="late", **gin(pat, 70))
    with pytest.raises(ValidationError, match="closed"):
        services.hand_remove(hand=game.hands.get(), removed_by=cast.owner)
    with pytest.raises(ValidationError, match="closed"):
        league.game_confirm(game=open_game, confirmed_by=cast.owner)
    with pytest.raises(ValidationError, match="closed"):
        league.game_dispute(game=open_game, disputed_by=cast.player, comment="no")
    remaining = Fixture.objects.filter(season=season, game__isnull=True).first()
    with pytest.raises(ValidationError, match="closed"):
        league.fixture_start(fixture=remaining, started_by=cast.owner)
    with pytest.raises(ValidationError, match="closed"):
        league.season_close(season=season, closed_by=cast.owner)
    # Nobody may change anything, not even the club's owner; pages and API ask the same question.
    game.refresh_from_db()
    assert not permissions.can_edit_game(cast.owner, game)
    assert not permissions.can_confirm(cast.owner, open_game, cast.club)
    assert game.hands.get().defender_deadwood == 80


def test_a_shared_top_names_no_champion():
    cast = make_club()
    season = _season(cast)
    league.season_close(season=season, closed_by=cast.owner)
    season.refresh_from_db()
    assert season.closed_at is not None and season.champion is None


def test_the_api_refuses_writes_to_a_closed_seasons_games_saying_why():
    cast = make_club()
    season = _season(cast)
    pat = cast.player_of(cast.player)
    fixture = season.fixtures.filter(home=pat).first() or season.fixtures.filter(away=pat).first()
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    league.season_close(season=season, closed_by=cast.owner)

    client = api_client(cast.player)
    response = client.post(
        f"/api/games/{game.pk}/hands/", {"ending": "gin", "by": pat.pk, "defender_deadwood": 30}, format="json"
    )
    assert response.status_code == 403
    assert "season is closed" in response.json()["message"]
    rival = api_client(cast.rival if game.player_two.user_id == cast.rival.pk else cast.owner)
    response = rival.post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert response.status_code in (400, 403)
    assert "closed" in response.json()["message"]
    # Reading stays open: closed seasons are an archive.
    assert api_client(cast.player).get(f"/api/games/{game.pk}/").status_code == 200
