"""A private club's league games do not exist for outsiders, on any page."""

import pytest
from django.urls import reverse

from players.clubs import club_create, player_for_user
from players.models import Membership, Role
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_game():
    from scoring.league.services import open_game_start, season_create

    owner = UserFactory(username="owner")
    club = club_create(name="Back Room", owner=owner, is_public=False)
    member_user = UserFactory(username="member")
    member = player_for_user(user=member_user)
    rival = PlayerFactory(name="Rival")
    for player in (member, rival):
        Membership.objects.get_or_create(club=club, player=player, defaults={"role": Role.PLAYER})
    season = season_create(
        club=club, name="Winter", rules={"preset": "standard"}, players=[member, rival], format="open", created_by=owner
    )
    game = open_game_start(season=season, player_one=member, player_two=rival, started_by=member_user)
    return game, member_user


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_outsiders_see_no_trace_of_a_private_club_game(client, private_game, who):
    game, _ = private_game
    if who == "outsider":
        client.force_login(UserFactory(username="outsider"))
    assert client.get(reverse("game", args=[game.pk])).status_code == 404
    assert game.player_one.name not in client.get(reverse("home")).content.decode()
    page = client.get(reverse("stats:player", args=[game.player_two.pk])).content.decode()
    assert f"/games/{game.pk}/" not in page


def test_members_see_their_club_game(client, private_game):
    game, member_user = private_game
    client.force_login(member_user)
    assert client.get(reverse("game", args=[game.pk])).status_code == 200
    assert f"/games/{game.pk}/" in client.get(reverse("home")).content.decode()
