"""A game's history in its reader's language, whoever wrote each line and in whatever language (issue 31)."""

import pytest
from django.urls import reverse
from django.utils import translation

from scoring import services
from scoring.audit import FACT_CHANGED
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db


def test_a_correction_made_in_german_reads_in_english_to_an_english_reader_and_in_german_to_a_german_one(client):
    owner = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=owner), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann,
        player_two=bob,
        created_by=owner,
        hands=[{"ending": "knock", "by": ann, "knocker_deadwood": 6, "defender_deadwood": 20}],
    )
    with translation.override("de"):  # the writer's phone speaks German
        services.hand_edit(
            hand=game.hands.get(), ending="gin", by=ann, defender_deadwood=20, edited_by=owner, reason="Vertippt"
        )
        services.game_call_time(game=game, called_by=owner)
    client.force_login(owner)
    url = reverse("game_history", args=[game.pk])
    english = client.get(url, headers={"accept-language": "en"}).content.decode()
    german = client.get(url, headers={"accept-language": "de"}).content.decode()
    assert "Hand 1 ending" in english and "Knock" in english and "Gin" in english
    assert "called after 1 hand: the next hand is the last unless level" in english
    assert "Hand 1 ending" not in german and "called after 1 hand" not in german
    assert "Vertippt" in english and "Vertippt" in german  # a typed reason stays as it was typed
    with translation.override("de"):
        assert str(FACT_CHANGED["ending"]) % {"number": 1} in german
