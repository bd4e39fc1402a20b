"""Nobody puts made-up games on someone else's record: a casual game may include a player claimed
by another account only if the creator is that account's club mate, or staff (scoring/permissions.py)."""

import pytest
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from players import clubs
from players.models import Membership
from scoring.models import Game
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

REFUSAL = "Ann's record belongs to another account; ask them to start the game, or use a different name."


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def table():
    """Ann's record is claimed by her account; Bob is a guest nobody claimed; Sam is a stranger with an account."""
    ann_user = UserFactory(username="ann-account")
    ann = PlayerFactory(name="Ann", user=ann_user)
    bob = PlayerFactory(name="Bob")
    stranger = UserFactory(username="sam")
    sam = PlayerFactory(name="Sam", user=stranger)
    return {"ann_user": ann_user, "ann": ann, "bob": bob, "stranger": stranger, "sam": sam}


def api_as(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def start(client, one, two):
    return client.post(
        "/api/games/", {"player_one": one.pk, "player_two": two.pk, "first_dealer": one.pk}, format="json"
    )


# --- the API -----------------------------------------------------------------------------------------


def test_a_stranger_cannot_start_a_game_on_someone_elses_record_through_the_api(table):
    response = start(api_as(table["stranger"]), table["ann"], table["bob"])
    assert response.status_code == 400
    assert response.json()["field"] == "player_one" and response.json()["message"] == REFUSAL
    # Nor with themself as the other player.
    response = start(api_as(table["stranger"]), table["sam"], table["ann"])
    assert response.status_code == 400 and response.json()["field"] == "player_two"
    assert not Game.objects.exists()
    # Ann's record has nothing on it: her profile and history show no game.
    history = APIClient().get(f"/api/players/{table['ann'].pk}/hands/").json()
    assert history["results"] == []
    assert APIClient().get("/api/games/", {"player": table["ann"].pk}).json()["count"] == 0


def test_a_stranger_cannot_import_a_record_naming_a_claimed_player(table):
    record = {"players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": [{"ending": "dead"}]}
    response = api_as(table["stranger"]).post("/api/games/import/", record, format="json")
    assert response.status_code == 400
    assert response.json() == {"error": {"hand": None, "field": "players"}, "message": REFUSAL}
    assert not Game.objects.exists()


def test_the_owner_club_mates_and_staff_may_start_games_with_a_claimed_player(table):
    assert start(api_as(table["ann_user"]), table["ann"], table["bob"]).status_code == 201
    staff = UserFactory(username="staff", is_staff=True)
    assert start(api_as(staff), table["ann"], table["bob"]).status_code == 201
    # Sam joins Ann's club: now they play at the same tables.
    club = clubs.club_create(name="Thursday Gin", owner=table["ann_user"])
    Membership.objects.create(club=club, player=table["sam"])
    assert start(api_as(table["stranger"]), table["sam"], table["ann"]).status_code == 201
    assert Game.objects.filter(Q(player_one=table["ann"]) | Q(player_two=table["ann"])).count() == 3


def test_anyone_signed_in_may_start_a_game_between_guests(table):
    cleo = PlayerFactory(name="Cleo")
    assert start(api_as(table["stranger"]), table["bob"], cleo).status_code == 201


# --- the pages ---------------------------------------------------------------------------------------


def new_game(client, one: str, two: str):
    return client.post(
        reverse("game_new"), {"player_one": one, "player_two": two, "first_dealer": "one", "preset": "standard"}
    )


def test_typing_a_strangers_claimed_name_on_the_new_game_form_is_refused(table):
    client = Client()
    client.force_login(table["stranger"])
    response = new_game(client, "Sam", "ann")  # any letter case finds Ann's record
    assert response.status_code == 422
    assert "Ann&#x27;s record belongs to another account" in response.content.decode()
    assert not Game.objects.exists()
    # Her player page shows no game.
    page = Client().get(reverse("stats:player", args=[table["ann"].pk])).content.decode()
    assert "Sam" not in page


def test_the_new_game_form_still_starts_games_with_guests_and_for_club_mates(table):
    client = Client()
    client.force_login(table["stranger"])
    assert new_game(client, "Sam", "Bob").status_code == 302
    assert new_game(client, "Sam", "Someone New").status_code == 302
    club = clubs.club_create(name="Thursday Gin", owner=table["ann_user"])
    Membership.objects.create(club=club, player=table["sam"])
    response = new_game(client, "Sam", "Ann")
    assert response.status_code == 302
    page = Client().get(reverse("stats:player", args=[table["ann"].pk])).content.decode()
    assert "Sam" in page
