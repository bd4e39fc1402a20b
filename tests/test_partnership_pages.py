"""Partnership gin at the table (issue 41): the new-game form with four players, the two-board sheet, each
board recorded on its own, and a board corrected through the correction pages."""

from __future__ import annotations

import html as html_module
import re

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import Game, Hand
from tests.conftest import VECTOR_DIR, load_vector
from tests.factories import UserFactory

NEW_PARTNERSHIP = {
    "player_one": "Ann",
    "player_two": "Bob",
    "player_three": "Cat",
    "player_four": "Dan",
    "preset": "partnership",
    "first_dealer": "three",
    "action": "start",
}


@pytest.fixture
def ann(db):
    user = UserFactory(username="ann")
    client = Client()
    client.force_login(user)
    return client


def text_of(response) -> str:
    """The page's words, tags out and spaces folded (what a player reads)."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", html_module.unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def start(client, **changes) -> Game:
    response = client.post(reverse("game_new"), {**NEW_PARTNERSHIP, **changes})
    assert response.status_code == 302, text_of(response)[:2000]
    return Game.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))


def post_board(client, game: Game, *, deal: int, board: int, key: str | None = None, htmx=False, **facts):
    by = facts.pop("by", None)
    data = {"action": "save", "deal": deal, "board": board, **facts}
    if by is not None:
        data["by"] = game_players(game)[by].pk
    if key:
        data["idempotency_key"] = key
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("board_submit", args=[game.pk]), data, **headers)


def game_players(game: Game) -> dict:
    return {player.name: player for player in (game.player_one, game.player_two, game.player_three, game.player_four)}


# --- the new-game form ------------------------------------------------------------------------------


def test_new_game_offers_four_players_the_sides_and_who_plays_whom(ann):
    page = ann.get(reverse("game_new")).content.decode()
    for name in ("player_three", "player_four", "partner_opponents"):
        assert f'name="{name}"' in page
    assert '<option value="partnership">' in page
    assert "the first and third players against the second and fourth" in page


def test_a_partnership_game_starts_with_four_players_sides_and_first_dealer(ann):
    game = start(ann, partner_opponents="alternate")
    assert [p.name for p in (game.player_one, game.player_two, game.player_three, game.player_four)] == [
        "Ann",
        "Bob",
        "Cat",
        "Dan",
    ]
    assert game.first_dealer.name == "Cat"
    assert game.rule_set.partnership and game.rule_set.partner_opponents == "alternate"
    sheet = text_of(ann.get(reverse("game", args=[game.pk])))
    assert "Ann & Cat v Bob & Dan" in sheet
    assert "Deal 1: Ann & Cat deal" in sheet
    # Alternate opponents: deal 1 is the 1st v the 2nd and the 3rd v the 4th; Cat's side deals on both boards.
    assert "Deal 1 · board 1 Ann v Bob · Ann deals" in sheet
    assert "Deal 1 · board 2 Cat v Dan · Cat deals" in sheet


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"player_four": ""}, "player_four", "Fourth player: partnership gin needs four players; enter a name."),
        ({"player_three": "bob"}, "player_three", "Third player: the four players must be four different people."),
        ({"player_four": "Ann"}, "player_four", "Fourth player: the four players must be four different people."),
        (
            {"preset": "standard", "first_dealer": "one"},
            "player_three",
            "Third player: only partnership gin has four players; choose its rules or leave this empty.",
        ),
        ({"hollywood": "on"}, "hollywood", "partnership gin cannot be played Hollywood"),
    ],
)
def test_new_game_refusals_name_the_field_and_store_nothing(ann, changes, field, message):
    response = ann.post(reverse("game_new"), {**NEW_PARTNERSHIP, **changes})
    assert response.status_code == 422
    assert message in text_of(response)
    assert field in response.context["form"].errors
    assert not Game.objects.exists()
    # What was typed stays in the boxes.
    assert 'value="Cat"' in response.content.decode() or changes.get("player_three") == "bob"


def test_a_two_player_game_is_started_as_before(ann):
    response = ann.post(
        reverse("game_new"),
        {"player_one": "Ann", "player_two": "Bob", "preset": "standard", "first_dealer": "two", "action": "start"},
    )
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.player_three is None and game.first_dealer.name == "Bob"


# --- the sheet: each board on its own, the deal settles on its second board --------------------------


def test_a_vector_played_board_by_board_gives_the_engines_figures(db):
    """Vector 33 (a tied deal, then a deal won by the difference) entered through the page, one board at a time."""
    vector = load_vector(next(VECTOR_DIR.glob("33-*.json")))
    client = Client()
    client.force_login(UserFactory(username="ann"))
    game = start(
        client, first_dealer={"Ann": "one", "Bob": "two", "Cat": "three", "Dan": "four"}[vector["first_dealer"]]
    )
    for deal, (hand, expected) in enumerate(zip(vector["hands"], vector["expect"]["hands"], strict=True), start=1):
        first, second = hand["boards"]
        response = post_board(client, game, deal=deal, board=2, **first_facts(second))
        assert response.status_code == 302, text_of(client.get(reverse("game", args=[game.pk])))[:3000]
        sheet = text_of(client.get(reverse("game", args=[game.pk])))
        assert "Recorded: the deal is settled when the other board is in." in sheet
        response = post_board(client, game, deal=deal, board=1, htmx=True, **first_facts(first))
        assert response.status_code == 200
        sheet = text_of(response)
        assert f"Deal {deal}, board 1 saved" in sheet
        if expected["winner"] is None:
            assert f"Deal {deal}: Tied deal: nobody scores." in sheet
        else:
            assert f"Deal {deal}: {expected['winner']} win the deal by {expected['points']}." in sheet
    sheet = text_of(client.get(reverse("game", args=[game.pk])))
    totals = vector["expect"]["games"][0]["hand_points"]
    boxes = vector["expect"]["games"][0]["boxes"]
    for side, points in totals.items():
        needed = 125 - points
        assert re.search(rf"{re.escape(side)} {points} needs {needed} · {boxes[side]} box", sheet), side
    assert "Deal 4: Bob & Dan deal" in sheet
    assert Hand.objects.filter(game=game).count() == 6


def first_facts(facts: dict) -> dict:
    return {key: value for key, value in facts.items() if value is not None}


def test_a_refused_board_names_the_field_and_keeps_the_other_boards_form(ann):
    game = start(ann)
    response = post_board(
        ann, game, deal=1, board=1, ending="knock", by="Ann", knocker_deadwood=15, defender_deadwood=20
    )
    assert response.status_code == 422
    page = text_of(response)
    assert "Knocker's deadwood" in page
    assert "Deal 1 · board 2" in page
    assert not Hand.objects.exists()
    # Who went out must play on that board: Cat plays board 2, not board 1.
    response = post_board(ann, game, deal=1, board=1, ending="gin", by="Cat", defender_deadwood=20)
    assert response.status_code == 422
    assert "Who went out" in text_of(response)
    assert not Hand.objects.exists()


def test_a_board_sent_twice_with_its_key_is_stored_once(ann):
    game = start(ann)
    facts = {"ending": "gin", "by": "Bob", "defender_deadwood": 12}
    first = post_board(ann, game, deal=1, board=1, key="k-board-1", **facts)
    again = post_board(ann, game, deal=1, board=1, key="k-board-1", **facts)
    assert first.status_code == again.status_code == 302
    assert Hand.objects.filter(game=game).count() == 1


def test_a_board_already_recorded_on_another_phone_is_refused_not_stored_twice(ann):
    game = start(ann)
    assert post_board(ann, game, deal=1, board=1, ending="dead").status_code == 302
    response = post_board(ann, game, deal=1, board=1, ending="gin", by="Ann", defender_deadwood=10)
    assert response.status_code == 409
    page = text_of(response)
    assert page.count("Board: ") == 1  # the refusal, named by its field
    assert "Deal 1 · board 2" in page  # the board still to play keeps its form
    assert Hand.objects.filter(game=game).count() == 1
    assert Hand.objects.get().ending == "dead"


# --- correcting a board -------------------------------------------------------------------------------


def test_a_board_is_corrected_with_preview_reason_and_history(ann):
    game = start(ann)
    post_board(ann, game, deal=1, board=1, ending="knock", by="Ann", knocker_deadwood=3, defender_deadwood=13)
    post_board(ann, game, deal=1, board=2, ending="knock", by="Dan", knocker_deadwood=2, defender_deadwood=10)
    sheet = ann.get(reverse("game", args=[game.pk])).content.decode()
    edit_url = reverse("hand_edit", args=[game.pk, 1]) + "?board=2"
    assert edit_url in sheet
    page = ann.get(edit_url)
    assert page.status_code == 200
    assert "Correct deal 1, board 2" in text_of(page)
    assert "Cat v Dan" in text_of(page)
    dan = game_players(game)["Dan"]
    preview = ann.post(
        reverse("hand_edit_preview", args=[game.pk, 1]) + "?board=2",
        {"ending": "gin", "by": dan.pk, "defender_deadwood": 10, "board": 2},
    )
    assert preview.status_code == 200
    assert "Gin! Dan scores" in text_of(preview)
    response = ann.post(
        edit_url, {"ending": "gin", "by": dan.pk, "defender_deadwood": 10, "board": 2, "reason": "it was a gin"}
    )
    assert response.status_code == 302
    board_two = Hand.objects.get(game=game, number=1, board=2)
    assert board_two.ending == "gin"
    assert Hand.objects.get(game=game, number=1, board=1).ending == "knock"
    history = text_of(ann.get(reverse("game_history", args=[game.pk])))
    assert "it was a gin" in history


def test_play_again_starts_a_new_partnership_game_with_the_four_players(ann):
    game = start(ann)
    response = ann.post(reverse("play_again", args=[game.pk]))
    assert response.status_code == 302
    new = Game.objects.exclude(pk=game.pk).get()
    assert (new.player_one, new.player_two, new.player_three, new.player_four) == (
        game.player_one,
        game.player_two,
        game.player_three,
        game.player_four,
    )
    assert new.first_dealer == game.player_two  # the side that did not deal first deals first now
    page = text_of(ann.get(reverse("game_new")))
    assert "Ann & Cat v Bob & Dan" in page  # offered again as the two sides


def test_the_home_page_lists_a_partnership_game_by_its_sides(ann):
    game = start(ann)
    post_board(ann, game, deal=1, board=1, ending="dead")
    page = text_of(ann.get(reverse("home")))
    assert "Ann & Cat v Bob & Dan" in page
    assert "in progress, 1 board" in page
