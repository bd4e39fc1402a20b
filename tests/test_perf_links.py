"""The season page leads to its wall screen and hand history; the club page to the club's hand history."""

import pytest
from django.urls import reverse

from scoring.league import services as league
from tests.league_setup import make_club

pytestmark = pytest.mark.django_db


def test_season_and_club_pages_link_to_the_wall_and_the_hand_history(client):
    cast = make_club()
    season = league.season_create(
        club=cast.club, name="Spring", players=[cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest]
    )
    season_page = client.get(reverse("league:season", args=[cast.club.slug, season.pk])).content.decode()
    wall = reverse("league:wall", args=[cast.club.slug, season.pk])
    history = reverse("stats:club_hands", args=[cast.club.slug])
    assert f'href="{wall}"' in season_page
    assert f'href="{history}?season={season.pk}"' in season_page
    assert client.get(wall).status_code == 200
    followed = client.get(history, {"season": season.pk})
    assert followed.status_code == 200 and f'value="{season.pk}" selected' in followed.content.decode()

    club_page = client.get(reverse("league:club", args=[cast.club.slug])).content.decode()
    assert f'href="{history}"' in club_page
