"""Odd numbers and ids people send are refused naming the field, never a 500 (#38 item 5).

"²".isdigit() is True but int("²") fails; a table number above 32767 does not fit its column
(smallint on PostgreSQL). ginleague/numbers.py reads them all.
"""

import pytest
from django.test import Client
from django.urls import reverse

from players import clubs
from scoring.league import night
from scoring.league import services as league
from scoring.models import SeasonFormat, SwissEntry
from tests.factories import UserFactory, make_game
from tests.league_setup import make_club
from tests.test_api_league import api_client
from tests.test_cards_facts import DEFENDER, KNOCKER

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiet_client():
    return Client(raise_request_exception=False)


def test_a_live_stream_of_game_superscript_two_is_a_400_naming_the_game(quiet_client):
    answer = quiet_client.get(reverse("live_events") + "?game=²")
    assert answer.status_code == 400
    assert "Game: A whole number from 1 to" in answer.content.decode()


def test_the_card_grid_correcting_superscript_two_is_a_400_naming_the_hand(quiet_client):
    ann = UserFactory(username="ann")
    game = make_game(created_by=ann)
    quiet_client.force_login(ann)
    data = {"ending": "knock", "by": game.player_one.pk, "entry": "cards", "expected_number": 1, "correcting": "²"}
    data["cards_one"], data["cards_two"] = list(KNOCKER), list(DEFENDER)
    answer = quiet_client.post(reverse("hand_cards", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    assert answer.status_code == 400
    assert "Hand: A whole number from 1 to" in answer.content.decode()
    # A deadwood box typed as "²" beside the cards is no figure to compare: the grid answers as usual.
    data.pop("correcting")
    data["defender_deadwood"] = "²"
    assert quiet_client.post(reverse("hand_cards", args=[game.pk]), data, HTTP_HX_REQUEST="true").status_code == 200


def _night(cast):
    season = league.season_create(
        club=cast.club, name="Friday night", format=SeasonFormat.SWISS, created_by=cast.owner, players=[]
    )
    player = cast.player_of(cast.player)
    night.check_in(season=season, player=player, checked_in_by=cast.owner)
    return season, player


@pytest.mark.parametrize("table", ["²", "99999", "0", "-1", "x"])
def test_a_fixed_table_that_cannot_be_one_is_refused_on_the_night_page_and_the_api(quiet_client, table):
    cast = make_club()
    season, player = _night(cast)
    url = reverse("league:night_check_in", args=[cast.club.slug, season.pk])
    quiet_client.force_login(cast.owner)
    answer = quiet_client.post(url, {"player": player.pk, "here": "1", "fixed_table": table}, follow=True)
    assert answer.status_code == 200
    assert "Fixed table: A whole number from 1 to 32767." in answer.content.decode()
    sent = table if not table.lstrip("-").isascii() or not table.lstrip("-").isdigit() else int(table)
    api = api_client(cast.owner).post(
        f"/api/seasons/{season.pk}/check-in/", {"player": player.pk, "fixed_table": sent}, format="json"
    )
    assert api.status_code == 400 and "fixed_table" in api.json(), api.content
    assert SwissEntry.objects.get(player=player).fixed_table is None


def test_the_largest_table_a_column_holds_is_kept():
    cast = make_club()
    season, player = _night(cast)
    night.check_in(season=season, player=player, checked_in_by=cast.owner, fixed_table="32767")
    assert SwissEntry.objects.get(player=player).fixed_table == 32767


@pytest.mark.parametrize("sent", ["abc", "²", "", "99999999999999999999999"])
def test_a_check_in_of_player_abc_is_a_400_naming_the_player(quiet_client, sent):
    cast = make_club()
    season, _player = _night(cast)
    quiet_client.force_login(cast.owner)
    url = reverse("league:night_check_in", args=[cast.club.slug, season.pk])
    answer = quiet_client.post(url, {"player": sent, "here": "1"})
    assert answer.status_code == 400
    assert "Player: A whole number from 1 to" in answer.content.decode()


def test_a_guest_of_another_club_is_still_a_404():
    cast = make_club()
    season, _player = _night(cast)
    other = make_club(name="Other Gin")
    stranger = clubs.member_add_guest(club=other.club, name="Stranger", added_by=other.owner).player
    client = Client(raise_request_exception=False)
    client.force_login(cast.owner)
    url = reverse("league:night_check_in", args=[cast.club.slug, season.pk])
    assert client.post(url, {"player": stranger.pk, "here": "1"}).status_code == 404
