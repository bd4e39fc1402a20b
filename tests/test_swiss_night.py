"""A Swiss night (issue 28): opening the night, check-in, pairing and publishing rounds."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from scoring.league import night
from scoring.league import services as league
from scoring.models import Season, SeasonFormat, SwissEntry
from tests.factories import PlayerFactory
from tests.league_setup import make_club
from tests.test_api_league import api_client

pytestmark = pytest.mark.django_db


def _night(cast, **kwargs):
    kwargs.setdefault("players", [])
    return league.season_create(
        club=cast.club, name="Friday night", format=SeasonFormat.SWISS, created_by=cast.owner, **kwargs
    )


# --- 1. opening the night -----------------------------------------------------------------------------


def test_a_swiss_night_opens_with_nobody_checked_in_yet_its_rounds_and_round_length():
    cast = make_club()
    night = _night(cast, swiss_rounds=4, round_minutes=40, rules={"preset": "standard", "target": 150})
    night.refresh_from_db()
    assert (night.format, night.swiss_rounds, night.round_minutes) == ("swiss", 4, 40)
    assert night.rules["target"] == 150
    assert not night.fixtures.exists()
    open_ended = _night(cast)
    assert (open_ended.swiss_rounds, open_ended.round_minutes) == (None, None)  # as many as started, to the target


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"swiss_rounds": 0}, "swiss_rounds"),
        ({"swiss_rounds": 40}, "swiss_rounds"),
        ({"round_minutes": 2}, "round_minutes"),
    ],
)
def test_a_swiss_nights_bad_rounds_or_length_is_refused_naming_the_field_and_nothing_is_saved(kwargs, field):
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        _night(cast, **kwargs)
    assert field in refused.value.message_dict
    assert not Season.objects.exists()


def test_a_round_robin_still_needs_two_players():
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        league.season_create(club=cast.club, name="Spring", players=[cast.guest], created_by=cast.owner)
    assert "players" in refused.value.message_dict


def test_the_new_season_page_opens_a_timed_swiss_night(client):
    cast = make_club()
    client.force_login(cast.owner)
    page = client.get(reverse("league:season_new", args=[cast.club.slug]))
    assert b"Swiss night" in page.content and b"Round length (minutes)" in page.content
    answer = client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Friday night", "format": "swiss", "preset": "standard", "overrides": "target = 150",
         "swiss_rounds": "5", "round_minutes": "35", "ranking_1": "wins"},
    )
    night = Season.objects.get()
    assert answer.status_code == 302
    assert (night.format, night.swiss_rounds, night.round_minutes, night.rules["target"]) == ("swiss", 5, 35, 150)


def test_the_api_opens_a_swiss_night_and_names_a_bad_round_length():
    cast = make_club()
    client = api_client(cast.owner)
    url = f"/api/clubs/{cast.club.pk}/seasons/"
    body = {"name": "Friday", "players": [], "format": "swiss", "round_minutes": 1000}
    refused = client.post(url, body, format="json")
    assert refused.status_code == 400 and "round_minutes" in str(refused.json())
    made = client.post(url, {"name": "Friday", "players": [], "format": "swiss", "swiss_rounds": 3}, format="json")
    assert made.status_code == 201, made.json()
    assert (made.json()["format"], made.json()["swiss_rounds"], made.json()["round_minutes"]) == ("swiss", 3, None)


# --- 2. check-in ----------------------------------------------------------------------------------------


def test_the_organiser_checks_members_and_guests_in_and_the_night_page_lists_who_is_here(client):
    cast = make_club()
    night_ = _night(cast)
    pat = cast.player_of(cast.player)
    client.force_login(cast.owner)
    url = reverse("league:night_check_in", args=[cast.club.slug, night_.pk])
    for player in (pat, cast.guest):
        assert client.post(url, {"player": player.pk, "here": "1"}).status_code == 302
    page = client.get(reverse("league:night", args=[cast.club.slug, night_.pk])).content.decode()
    assert "Who is here (2)" in page
    assert set(night_.swiss_entries.filter(present=True).values_list("player__name", flat=True)) == {
        pat.name, cast.guest.name
    }
    assert set(night_.players.all()) == {pat, cast.guest}


def test_a_player_checks_themselves_in_from_the_club_page_link_but_nobody_else(client):
    cast = make_club()
    night_ = _night(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    client.force_login(cast.player)
    club_page = client.get(reverse("league:club", args=[cast.club.slug])).content.decode()
    night_url = reverse("league:night", args=[cast.club.slug, night_.pk])
    assert night_url in club_page
    assert "I'm here: check me in" in client.get(night_url).content.decode()
    url = reverse("league:night_check_in", args=[cast.club.slug, night_.pk])
    assert client.post(url, {"player": pat.pk, "here": "1"}).status_code == 302
    assert client.post(url, {"player": quinn.pk, "here": "1"}).status_code == 403
    assert list(night_.swiss_entries.values_list("player", flat=True)) == [pat.pk]


def test_a_player_who_checks_out_before_playing_is_no_longer_in_the_field():
    cast = make_club()
    night_ = _night(cast)
    pat = cast.player_of(cast.player)
    night.check_in(season=night_, player=pat, checked_in_by=cast.player)
    entry = night.check_out(season=night_, player=pat, checked_out_by=cast.player)
    assert (entry.present, entry.dropped_after_round) == (False, None)
    assert not night_.players.exists()


def test_check_in_is_refused_for_an_outsider_and_on_a_season_that_is_not_a_swiss_night():
    cast = make_club()
    night_ = _night(cast)
    outsider = PlayerFactory(name="Olga")
    with pytest.raises(ValidationError) as refused:
        night.check_in(season=night_, player=outsider, checked_in_by=cast.owner)
    assert "player" in refused.value.message_dict
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    spring = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    with pytest.raises(ValidationError) as refused:
        night.check_in(season=spring, player=pat, checked_in_by=cast.owner)
    assert "season" in refused.value.message_dict
    assert not SwissEntry.objects.exists()


def test_the_api_checks_a_player_in_with_a_fixed_table_and_refuses_someone_else_s_phone():
    cast = make_club()
    night_ = _night(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    url = f"/api/seasons/{night_.pk}/check-in/"
    made = api_client(cast.admin).post(url, {"player": pat.pk, "fixed_table": 1}, format="json")
    assert made.status_code == 200, made.json()
    assert made.json() == {
        "player": {"id": pat.pk, "name": pat.name}, "present": True, "dropped_after_round": None, "fixed_table": 1
    }
    refused = api_client(cast.player).post(url, {"player": quinn.pk}, format="json")
    assert refused.status_code == 403
    out = api_client(cast.player).post(url, {"player": pat.pk, "here": False}, format="json")
    assert out.status_code == 200 and out.json()["present"] is False
