"""A Swiss night (issue 28): opening the night, check-in, pairing and publishing rounds."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from scoring.league import services as league
from scoring.models import Season, SeasonFormat
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
