"""A finished league result is never erased by a player (#38): an organiser who did not play may void it,
with a reason that stays in the fixture's history."""

import pytest
from rest_framework.test import APIClient

from scoring.league import services as league
from scoring.models import FactChange, Fixture, Game, LeagueStatus
from scoring.selectors import todo_for
from tests.league_setup import make_club, start_and_finish

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def finished(cast):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn])
    # Quinn starts the fixture; Pat wins it (on Quinn's phone): the result waits for Pat's confirmation.
    return start_and_finish(season.fixtures.get(), pat, started_by=cast.rival)


def test_the_loser_who_started_a_finished_league_game_cannot_delete_it():
    cast = make_club()
    game = finished(cast)
    assert [g.pk for g in todo_for(cast.player).to_confirm] == [game.pk]

    refused = api(cast.rival).delete(f"/api/games/{game.pk}/")
    assert refused.status_code == 403
    assert "A finished league game is never deleted" in refused.json()["message"]
    assert Game.objects.filter(pk=game.pk).exists() and FactChange.objects.filter(game=game).count() == 0
    assert [g.pk for g in todo_for(cast.player).to_confirm] == [game.pk]
    # Nor the winner, nor an organiser who played.
    assert api(cast.player).delete(f"/api/games/{game.pk}/").status_code == 403


def test_a_confirmed_results_refusal_says_the_real_reason_to_its_creator():
    cast = make_club()
    game = finished(cast)
    league.game_confirm(game=game, confirmed_by=cast.owner)
    refused = api(cast.rival).delete(f"/api/games/{game.pk}/")
    assert refused.status_code == 403
    message = refused.json()["message"]
    assert "This result is confirmed" in message and "creator" not in message


def test_an_organiser_who_did_not_play_voids_a_finished_result_with_a_reason_kept_in_the_fixtures_history():
    cast = make_club()
    game = finished(cast)
    fixture = Fixture.objects.get(game=game)

    no_reason = api(cast.admin).delete(f"/api/games/{game.pk}/")
    assert no_reason.status_code == 400 and no_reason.json()["field"] == "reason"
    assert Game.objects.filter(pk=game.pk).exists()

    voided = api(cast.admin).delete(f"/api/games/{game.pk}/", {"reason": "Played with a 51-card deck"}, format="json")
    assert voided.status_code == 204, voided.content
    assert not Game.objects.filter(pk=game.pk).exists()
    lines = FactChange.objects.filter(fixture=fixture).order_by("at", "pk")
    assert [line.action for line in lines][-1] == "voided"
    assert lines.last().comment == "Played with a 51-card deck" and lines.last().actor == cast.admin
    history = api(cast.player).get(f"/api/fixtures/{fixture.pk}/history/").json()
    assert history[-1]["comment"] == "Played with a 51-card deck"
    assert todo_for(cast.player).to_confirm == []

    # The fixture is open again; its next game shows the earlier history.
    again = league.fixture_start(fixture=fixture, started_by=cast.player)
    trail = api(cast.player).get(f"/api/games/{again.pk}/audit/").json()["results"]
    assert any(line["comment"] == "Played with a 51-card deck" for line in trail)


def test_an_organiser_who_played_does_not_void_their_own_result():
    cast = make_club()
    pat, admin = cast.player_of(cast.player), cast.player_of(cast.admin)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, admin])
    game = start_and_finish(season.fixtures.get(), pat, started_by=cast.player)
    refused = api(cast.admin).delete(f"/api/games/{game.pk}/", {"reason": "I lost"}, format="json")
    assert refused.status_code == 403
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING
