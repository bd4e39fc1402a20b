"""Cards entered hand by hand: the services refuse bad cards, the pages work them out, records carry them.

Hands are the hand-worked ones of tests/test_cards_facts.py: the knocker
(player one) melds everything but 2D (deadwood 2); the defender lays 6H 7H
on the knocker's hearts and keeps AD 10D (deadwood 11): a knock worth 9.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring import services
from scoring.engine.record import RecordError, evaluate, parse_record
from scoring.models import Game, Hand
from scoring.services import HandRefused
from tests.factories import UserFactory, make_game
from tests.test_cards_facts import DEFENDER, GIN, GIN_DEFENDER, KNOCKER

CARDS = {"by": KNOCKER, "defender": DEFENDER}


@pytest.fixture
def setup(db):
    ann = UserFactory(username="ann")
    game = make_game(created_by=ann)
    client = Client()
    client.force_login(ann)
    return client, game


def knock_facts(game, **changes):
    return {
        "ending": "knock",
        "by": game.player_one,
        "knocker_deadwood": 2,
        "defender_deadwood": 11,
        "cards": CARDS,
        **changes,
    }


# --- services ------------------------------------------------------------------------


def test_hand_record_stores_agreeing_cards_tidied(setup):
    _, game = setup
    hand = services.hand_record(game=game, **knock_facts(game, cards={"by": KNOCKER[::-1], "defender": DEFENDER}))
    stored = Hand.objects.get(pk=hand.pk)
    assert sorted(stored.cards["by"]) == sorted(KNOCKER)
    assert stored.cards["by"][0] == "7S"  # tidied: spades first
    assert stored.points == 9


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"knocker_deadwood": 4}, "knocker_deadwood", "the cards allow the knocker 2 deadwood (knock limit 10), not 4"),
        ({"defender_deadwood": 20}, "defender_deadwood", "deadwood after lay-offs, not 20"),
        ({"cards": {"by": KNOCKER, "defender": [*DEFENDER[:9], "2D"]}}, "cards", "2D is in both hands"),
        ({"cards": {"by": KNOCKER[:9], "defender": DEFENDER}}, "cards", "10 cards"),
        ({"cards": "3H 4H"}, "cards", '{"by": [...], "defender": [...]}'),
    ],
)
def test_hand_record_refuses_bad_cards_and_stores_nothing(setup, changes, field, words):
    _, game = setup
    with pytest.raises(HandRefused) as refused:
        services.hand_record(game=game, **knock_facts(game, **changes))
    assert refused.value.field == field
    assert words in refused.value.message_text
    assert refused.value.hand == 1
    assert not Hand.objects.exists()
    game.refresh_from_db()
    assert game.hand_count == 0


def test_hand_edit_refuses_bad_cards_and_keeps_the_hand(setup):
    _, game = setup
    hand = services.hand_record(game=game, **knock_facts(game))
    with pytest.raises(HandRefused) as refused:
        services.hand_edit(hand=hand, **knock_facts(game, defender_deadwood=15))
    assert refused.value.field == "defender_deadwood"
    stored = Hand.objects.get(pk=hand.pk)
    assert (stored.defender_deadwood, stored.points) == (11, 9)
    assert sorted(stored.cards["defender"]) == sorted(DEFENDER)
    # A gin corrected with its cards.
    services.hand_edit(
        hand=hand, ending="gin", by=game.player_one, defender_deadwood=61, cards={"by": GIN, "defender": GIN_DEFENDER}
    )
    stored.refresh_from_db()
    assert stored.result == "gin" and stored.points == 61 + 25
    assert sorted(stored.cards["by"]) == sorted(GIN)


# --- game records --------------------------------------------------------------------


def record(cards, **hand):
    return {
        "players": ["Ann", "Bob"],
        "first_dealer": "Bob",
        "hands": [
            {"ending": "dead"},
            {"ending": "knock", "by": "Ann", "knocker_deadwood": 2, "defender_deadwood": 11, "cards": cards, **hand},
        ],
    }


def test_record_import_with_good_cards_stores_them(db):
    game = services.game_import(record=parse_record(record(CARDS)))
    hand = game.hands.get(number=2)
    assert sorted(hand.cards["by"]) == sorted(KNOCKER) and hand.points == 9


@pytest.mark.parametrize(
    ("cards", "hand", "field"),
    [
        ({"by": KNOCKER, "defender": [*DEFENDER[:9], "2D"]}, {}, "cards"),
        ({"by": KNOCKER, "defender": DEFENDER[:9]}, {}, "cards"),
        (CARDS, {"knocker_deadwood": 3}, "knocker_deadwood"),
    ],
)
def test_record_with_bad_cards_is_refused_whole(db, cards, hand, field):
    data = record(cards, **hand)
    assert evaluate(data) == {"error": {"hand": 2, "field": field}, "message": evaluate(data)["message"]}
    with pytest.raises(RecordError) as refused:
        services.game_import(record=parse_record(data))
    assert (refused.value.hand, refused.value.field) == (2, field)
    assert "hand 2" in refused.value.message
    assert not Game.objects.exists() and not Hand.objects.exists()


def test_a_dead_hand_with_cards_is_refused_in_a_record(db):
    data = record(CARDS)
    data["hands"][0]["cards"] = CARDS
    assert evaluate(data)["error"] == {"hand": 1, "field": "cards"}


# --- pages -----------------------------------------------------------------------------


def card_post(game, *, ending="knock", by=None, one=KNOCKER, two=DEFENDER, **extra):
    data = {"ending": ending, "by": (by or game.player_one).pk, "entry": "cards", "expected_number": 1, **extra}
    data["cards_one"], data["cards_two"] = list(one), list(two)
    return data


def value_of(html: str, name: str) -> str:
    return re.search(rf'name="{name}"[^>]*value="([^"]*)"', html).group(1)


def test_card_view_fills_the_deadwood_and_shows_melds_and_layoffs(setup):
    client, game = setup
    response = client.post(
        reverse("hand_cards", args=[game.pk]), card_post(game, live="1"), HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert value_of(html, "knocker_deadwood") == "2"
    assert value_of(html, "defender_deadwood") == "11"
    assert "readonly" not in html and "best play from the cards" in html  # the player may change them
    assert html.count('class="meld"') >= 4  # three of the knocker's, one the lay-offs went on
    assert "laid off" in html and "6 of hearts" in html and "7 of hearts" in html
    assert "3 of hearts" in html and "2 of diamonds" in html and "ace of diamonds" in html
    assert 'id="preview"' in html and 'hx-swap-oob="true"' in html
    assert f"{game.player_one.name} knocks and scores 9" in html
    assert not Hand.objects.exists()


def test_card_view_with_who_went_out_swapped_works_out_the_other_way(setup):
    client, game = setup
    data = card_post(game, by=game.player_two, one=DEFENDER, two=KNOCKER)  # player two knocked
    html = client.post(reverse("hand_cards", args=[game.pk]), data, HTTP_HX_REQUEST="true").content.decode()
    assert (value_of(html, "knocker_deadwood"), value_of(html, "defender_deadwood")) == ("2", "11")
    assert 'id="preview"' not in html  # no preview outside the scoresheet's form


def test_card_view_says_what_is_missing(setup):
    client, game = setup
    html = client.post(
        reverse("hand_cards", args=[game.pk]), card_post(game, one=KNOCKER[:7]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "7 so far" in html
    assert value_of(html, "knocker_deadwood") == ""


def test_toggle_shows_the_grid_only_in_card_mode(setup):
    client, game = setup
    plain = client.get(reverse("game", args=[game.pk])).content.decode()
    assert 'name="cards_one"' not in plain and "Enter the cards instead" in plain
    cards = client.get(reverse("game", args=[game.pk]) + "?cards=1").content.decode()
    assert cards.count('type="checkbox" name="cards_one"') == 52
    assert cards.count('type="checkbox" name="cards_two"') == 52
    assert "ace of spades" in cards and "king of clubs" in cards
    fields = client.post(
        reverse("hand_cards", args=[game.pk]), {"action": "cards_on", "ending": "gin"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert fields.count('name="cards_two"') == 52 and 'value="gin" id="id_ending_1" required checked' in fields


def test_without_javascript_work_out_then_save(setup):
    client, game = setup
    url = reverse("hand_submit", args=[game.pk])
    worked = client.post(url, card_post(game, action="cards"))
    html = worked.content.decode()
    assert worked.status_code == 200
    assert (value_of(html, "knocker_deadwood"), value_of(html, "defender_deadwood")) == ("2", "11")
    assert "laid off" in html
    # A card picked for both players is shown as taken in the other grid.
    clash = client.post(url, card_post(game, two=[*DEFENDER[:9], "2D"], action="cards")).content.decode()
    assert "2D is in both hands" in clash
    saved = client.post(url, card_post(game, action="save"))
    assert saved.status_code == 302 and saved["Location"].endswith("?cards=1")  # the next hand by cards too
    hand = Hand.objects.get()
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (2, 11, 9)
    assert sorted(hand.cards["defender"]) == sorted(DEFENDER)


def test_saving_unfinished_cards_is_refused_naming_the_cards(setup):
    client, game = setup
    response = client.post(
        reverse("hand_submit", args=[game.pk]),
        card_post(game, two=[*DEFENDER[:9], "2D"], action="save", knocker_deadwood="2", defender_deadwood="11"),
    )
    assert response.status_code == 422
    assert "Cards: 2D is in both hands" in response.content.decode()
    assert not Hand.objects.exists()


def test_scoresheet_and_player_page_show_the_melds(setup):
    client, game = setup
    services.hand_record(game=game, **knock_facts(game))
    sheet = client.get(reverse("game", args=[game.pk])).content.decode()
    assert '<details class="cards-of-hand">' in sheet
    assert "laid off" in sheet and "6 of hearts" in sheet and "= <strong>11</strong>" in sheet
    player = client.get(reverse("stats:player", args=[game.player_two.pk])).content.decode()
    assert "laid off" in player and "ace of diamonds" in player


def test_edit_page_opens_a_hand_with_cards_in_card_mode(setup):
    client, game = setup
    services.hand_record(game=game, **knock_facts(game))
    url = reverse("hand_edit", args=[game.pk, 1])
    html = client.get(url).content.decode()
    assert 'value="2D" id="id_cards_one_2D" checked' in html
    assert 'value="2D" id="id_cards_two_2D" disabled' in html
    assert value_of(html, "defender_deadwood") == "11"
    # Correct it: the knocker really held QD, not 2D (deadwood 10); the other hand is unchanged.
    one = [*KNOCKER[:9], "QD"]
    response = client.post(url, card_post(game, one=one, action="save"))
    assert response.status_code == 302
    hand = Hand.objects.get()
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (10, 11, 1)
    # Typing the deadwood instead drops the cards.
    client.post(url, {"ending": "knock", "by": game.player_one.pk, "knocker_deadwood": 5, "defender_deadwood": 20})
    hand.refresh_from_db()
    assert hand.cards is None and hand.knocker_deadwood == 5


def test_scoresheet_queries_are_the_same_with_cards(setup):
    client, game = setup
    plain = make_game(created_by=UserFactory(username="bob"))
    for _ in range(3):
        services.hand_record(game=game, **knock_facts(game))
        services.hand_record(game=plain, **knock_facts(plain, cards=None))
    counts = []
    for one in (plain, game):
        with CaptureQueriesContext(connection) as queries:
            assert Client().get(reverse("game", args=[one.pk])).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] == 2


def test_card_mode_saves_a_dead_hand_and_refuses_a_knock_without_cards(setup):
    client, game = setup
    url = reverse("hand_submit", args=[game.pk])
    empty = client.post(url, card_post(game, one=[], two=[], action="save"))
    assert empty.status_code == 422
    assert "Cards: Pick 10 cards for who went out (0 so far)" in empty.content.decode()
    assert not Hand.objects.exists()
    dead = client.post(url, {"ending": "dead", "entry": "cards", "expected_number": 1, "action": "save"})
    assert dead.status_code == 302
    assert Hand.objects.get().result == "dead"
