"""The scoresheet's record form saves once per rendered form: a save sent again is not a second hand."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import Hand
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db

KNOCK = {"ending": "knock", "knocker_deadwood": 4, "defender_deadwood": 22}


@pytest.fixture
def sheet():
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    client = Client()
    client.force_login(user)
    return client, game


def form_key(page: str) -> str:
    return re.search(r'name="idempotency_key" value="([0-9a-f]+)"', page).group(1)


def test_each_rendered_record_form_carries_its_own_key(sheet):
    client, game = sheet
    first = form_key(client.get(reverse("game", args=[game.pk])).content.decode())
    second = form_key(client.get(reverse("game", args=[game.pk])).content.decode())
    assert first != second


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-js"])
def test_a_save_sent_twice_with_its_forms_key_stores_one_hand(sheet, htmx):
    client, game = sheet
    key = form_key(client.get(reverse("game", args=[game.pk])).content.decode())
    data = {"action": "save", "expected_number": 1, "by": game.player_one_id, "idempotency_key": key, **KNOCK}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    first = client.post(reverse("hand_submit", args=[game.pk]), data, **headers)
    again = client.post(reverse("hand_submit", args=[game.pk]), data, **headers)

    assert Hand.objects.filter(game=game).count() == 1
    if htmx:
        assert "Hand 1 saved" in first.content.decode()
        assert "Hand 1 saved" in again.content.decode()  # told it is saved, not "someone recorded hand 1"
        assert "Hand 2" in again.content.decode()  # and the form is ready for the next hand
    else:
        assert first.status_code == again.status_code == 302
        assert "Hand 1 saved" in client.get(again["Location"]).content.decode()


def test_without_the_key_the_hand_number_still_guards_a_second_save(sheet):
    client, game = sheet
    data = {"action": "save", "expected_number": 1, "by": game.player_one_id, **KNOCK}
    client.post(reverse("hand_submit", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    client.post(reverse("hand_submit", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    assert Hand.objects.filter(game=game).count() == 1


def test_a_refused_save_sent_again_with_its_key_is_judged_again(sheet):
    client, game = sheet
    data = {"action": "save", "expected_number": 1, "by": game.player_one_id, "idempotency_key": "k1",
            "ending": "knock", "knocker_deadwood": 40, "defender_deadwood": 22}  # fmt: skip
    for _ in range(2):
        response = client.post(reverse("hand_submit", args=[game.pk]), data, HTTP_HX_REQUEST="true")
        assert "Hand 1 saved" not in response.content.decode()
    assert Hand.objects.count() == 0
    data = {**data, "knocker_deadwood": 4, "idempotency_key": "k2"}
    fixed = client.post(reverse("hand_submit", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    assert "Hand 1 saved" in fixed.content.decode()
