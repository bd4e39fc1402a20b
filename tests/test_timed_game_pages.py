"""Calling time on the scoresheet and through the API: one service, one rule (docs/rules.md, "A game ended by time")."""

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from players.tokens import token_create
from scoring.league import services as league
from scoring.models import FactChange, Game, Hand
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club

pytestmark = pytest.mark.django_db

KNOCK = {"ending": "knock", "knocker_deadwood": 5, "defender_deadwood": 30}  # 25 points


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


def test_the_time_button_ends_the_game_after_the_hand_in_progress():
    ann = UserFactory(username="ann")
    one, two = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(created_by=ann, player_one=one, player_two=two, hands=[{**KNOCK, "by": one}])
    client = signed_in(ann)
    time_form = f'action="{reverse("game_time", args=[game.pk])}"'
    sheet = client.get(reverse("game", args=[game.pk])).content.decode()
    assert time_form in sheet and "hand 2 is the last" in sheet
    called = client.post(reverse("game_time", args=[game.pk]), follow=True).content.decode()
    assert "Time called: hand 2 is the last, unless the players are level after it." in called
    assert ">Time</button>" not in called and "Withdraw the time call" in called  # called once only
    client.post(
        reverse("hand_submit", args=[game.pk]),
        {"action": "save", "expected_number": 2, "ending": "gin", "by": game.player_two.pk, "defender_deadwood": 5},
    )
    over = client.get(reverse("game", args=[game.pk])).content.decode()
    game.refresh_from_db()
    # Bob leads 30 to 25 after the hand in progress: 30 + 25 box + 100 timed game bonus; Ann 25 + 25.
    assert game.over and game.winner == two and game.margin == 155 - 50
    assert "Game bonus (time called)" in over and "Time was called after hand 1." in over


def test_time_is_refused_on_a_hollywood_sitting_and_to_a_stranger():
    ann = UserFactory(username="ann")
    hollywood = make_game(created_by=ann, rules={"preset": "hollywood"})
    client = signed_in(ann)
    assert "/time/" not in client.get(reverse("game", args=[hollywood.pk])).content.decode()
    answer = client.post(reverse("game_time", args=[hollywood.pk]), follow=True).content.decode()
    assert "Time: A Hollywood sitting is not ended by time" in answer
    game = make_game(created_by=ann)
    assert signed_in(UserFactory(username="otto")).post(reverse("game_time", args=[game.pk])).status_code == 403
    assert Client().post(reverse("game_time", args=[game.pk]))["Location"].startswith(reverse("login"))
    assert not Game.objects.filter(time_called_after__isnull=False).exists()


def test_the_api_calls_time_once_and_shows_it():
    ann = UserFactory(username="ann")
    game = make_game(created_by=ann)
    api = api_for(ann)
    answer = api.post(f"/api/games/{game.pk}/time/")
    assert answer.status_code == 200 and answer.json()["time_called_after"] == 0
    assert api.get(f"/api/games/{game.pk}/").json()["time_called_after"] == 0
    again = api.post(f"/api/games/{game.pk}/time/")
    assert again.status_code == 400 and again.json()["field"] == "time_called_after"
    assert api_for(UserFactory(username="otto")).post(f"/api/games/{game.pk}/time/").status_code == 403
    hand = api.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one.pk}, format="json")
    assert hand.status_code == 201
    body = hand.json()["game"]
    # Ann knocked for 25 and leads: 25 + 25 box + 100 timed game bonus + 100 shutout.
    assert body["over"] and body["winner"]["id"] == game.player_one.pk and body["margin"] == 250
    assert body["scores"][0]["by_time"] is True
    assert Hand.objects.filter(game=game).count() == 1


def test_a_season_organiser_who_does_not_play_calls_time_on_page_and_api():
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Club night", players=[pat, quinn], created_by=cast.owner)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    page = signed_in(cast.admin).post(reverse("game_time", args=[game.pk]))
    assert page.status_code == 302
    game.refresh_from_db()
    assert game.time_called_after == 0
    other = league.season_create(club=cast.club, name="Second night", players=[pat, quinn], created_by=cast.owner)
    second = league.fixture_start(fixture=other.fixtures.get(), started_by=cast.player)
    assert api_for(cast.outsider).post(f"/api/games/{second.pk}/time/").status_code in (403, 404)
    assert api_for(cast.admin).post(f"/api/games/{second.pk}/time/").json()["time_called_after"] == 0


def test_a_time_call_pressed_by_mistake_is_withdrawn_while_the_game_is_open():
    ann = UserFactory(username="ann")
    one, two = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(created_by=ann, player_one=one, player_two=two)
    client = signed_in(ann)
    client.post(reverse("game_time", args=[game.pk]))
    assert "Withdraw the time call" in client.get(reverse("game", args=[game.pk])).content.decode()
    withdrawn = client.post(reverse("game_time", args=[game.pk]), {"action": "withdraw"}, follow=True)
    assert "Time call withdrawn: the game goes on to the target." in withdrawn.content.decode()
    game.refresh_from_db()
    assert game.time_called_after is None
    assert list(FactChange.objects.filter(game=game).values_list("action", flat=True).order_by("pk")) == [
        "time_called",
        "time_withdrawn",
    ]
    # Through the API: call, withdraw, and no second withdrawal; a game ended by time keeps its call.
    api = api_for(ann)
    assert api.post(f"/api/games/{game.pk}/time/").json()["time_called_after"] == 0
    assert api.delete(f"/api/games/{game.pk}/time/").json()["time_called_after"] is None
    again = api.delete(f"/api/games/{game.pk}/time/")
    assert again.status_code == 400 and again.json()["field"] == "time_called_after"
    api.post(f"/api/games/{game.pk}/time/")
    api.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": one.pk}, format="json")
    ended = api.delete(f"/api/games/{game.pk}/time/")
    assert ended.status_code == 400 and "undo its last hand first" in ended.json()["message"]
    assert api_for(UserFactory(username="otto")).delete(f"/api/games/{game.pk}/time/").status_code == 403
    game.refresh_from_db()
    assert game.over and game.time_called_after == 0
