"""A figure out of its range, said in every shipped language (issue 37, item 5): a form leads with the
box's label and then asks for the number, never repeating the label nor making a verb agree with it
("die Restpunkte des Gegenspielers muss ..." was both); the API keeps its one-line message naming the
field's code."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from scoring.engine.rules import RuleError, resolve_rules
from scoring.engine.score import HandError, score_session
from scoring.engine.score import HandFacts as Facts
from tests.factories import UserFactory, make_game

# (page's words for a defender's 120, for a knock with no knocker's figure, for a knock limit of 11, API message)
WORDS = {
    "en": (
        "Other player's deadwood: enter a number from 0 to 98, not 120",
        "Knocker's deadwood: enter a number from 1 to 10",
        "Knock limit: enter a number from 0 to 10, not 11",
        "hand 1: defender_deadwood must be between 0 and 98, not 120",
    ),
    "de": (
        "Restpunkte des Gegenspielers: Gib eine Zahl von 0 bis 98 ein, nicht 120",
        "Restpunkte des Klopfers: Gib eine Zahl von 1 bis 10 ein",
        "Klopfgrenze: Gib eine Zahl von 0 bis 10 ein, nicht 11",
        "Spiel 1: defender_deadwood muss zwischen 0 und 98 liegen, nicht 120",
    ),
    "es": (
        "Puntos sueltos del otro jugador: escribe un número de 0 a 98, no 120",
        "Puntos sueltos de quien cierra: escribe un número de 1 a 10",
        "Límite para cerrar: escribe un número de 0 a 10, no 11",
        "mano 1: defender_deadwood debe estar entre 0 y 98, no 120",
    ),
    "fr": (
        "Points morts de l'autre joueur\xa0: saisissez un nombre de 0 à 98, pas 120",
        "Points morts du frappeur\xa0: saisissez un nombre de 1 à 10",
        "Limite de frappe\xa0: saisissez un nombre de 0 à 10, pas 11",
        "donne 1\xa0: defender_deadwood doit être compris entre 0 et 98, pas 120",
    ),
    "pt-br": (
        "Pontos soltos do outro jogador: informe um número de 0 a 98, não 120",
        "Pontos soltos de quem bateu: informe um número de 1 a 10",
        "Limite para bater: informe um número de 0 a 10, não 11",
        "mão 1: defender_deadwood deve estar entre 0 e 98, não 120",
    ),
}


def _errors(response) -> list[str]:
    return [html.unescape(text) for text in re.findall(r'class="error"[^>]*>(.*?)</', response.content.decode())]


@pytest.mark.django_db
@pytest.mark.parametrize("language", list(WORDS))
def test_a_figure_out_of_range_reads_well_on_the_page_and_in_the_api(language):
    too_high, missing, knock_limit, api = WORDS[language]
    ann = UserFactory(username="ann")
    game = make_game(created_by=ann)
    client = Client(headers={"accept-language": language})
    client.force_login(ann)
    by = game.player_one.pk

    def save(**facts):
        return client.post(reverse("hand_submit", args=[game.pk]), {"action": "save", "expected_number": 1, **facts})

    assert too_high in _errors(save(ending="gin", by=by, defender_deadwood=120))
    assert missing in _errors(save(ending="knock", by=by, defender_deadwood=30))
    new_game = client.post(
        reverse("game_new"),
        {
            "player_one": "Zed",
            "player_two": "Yan",
            "first_dealer": "one",
            "preset": "standard",
            "rule_knock_limit": "11",
        },
    )
    assert knock_limit in _errors(new_game)
    answer = client.post(
        f"/api/games/{game.pk}/hands/",
        {"ending": "gin", "by": by, "defender_deadwood": 120},
        content_type="application/json",
    ).json()
    assert answer == {"field": "defender_deadwood", "message": api, "hand": 1}
    assert not game.hands.exists()


def test_the_engine_says_a_range_refusal_both_ways():
    with pytest.raises(HandError) as refused:
        score_session(resolve_rules({}), (1, 2), 1, [Facts(ending="gin", by=1, defender_deadwood=99)])
    assert refused.value.message == "hand 1: defender_deadwood must be between 0 and 98, not 99"
    assert refused.value.detail == "enter a number from 0 to 98, not 99"
    with pytest.raises(RuleError) as refused:
        resolve_rules({"target": 0})
    assert (refused.value.field, refused.value.detail) == ("target", "enter a number from 1 to 10000, not 0")
