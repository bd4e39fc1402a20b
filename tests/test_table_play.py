"""Cards follow play at a real table; spade doubling is Oklahoma's; a refused record names its FIRST bad hand.

The knock example: the knocker spreads [3C 4C 5C] [6S 6H 6D 6C] (deadwood AS 2H 3D = 6),
leaving nothing to lay off, so the defender keeps all 83. Spreading [3C 4C 5C 6C]
[6S 6H 6D] instead would take the defender's 7C (76): legal, but not the best play.
"""

from __future__ import annotations

import json
import random
import re
from html import unescape

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from scoring import services
from scoring.engine.record import evaluate
from scoring.models import Game, Hand
from scoring.services import HandRefused
from tests.factories import UserFactory, make_game
from tests.fuzzing import examples
from tests.test_cards_facts import DEFENDER as CARDS_DEFENDER
from tests.test_cards_facts import KNOCKER as CARDS_KNOCKER

KNOCKER = "3C 4C 5C 6C 6S 6H 6D AS 2H 3D"
DEFENDER = "7C KS KH QD JD 10S 9D 8H 4S 5H"
EXAMPLE = {"by": KNOCKER.split(), "defender": DEFENDER.split()}


@pytest.fixture
def setup(db):
    ann = UserFactory(username="ann")
    game = make_game(created_by=ann)
    return ann, game


def knock(game, knocker=6, defender=83, cards=EXAMPLE):
    return {
        "ending": "knock",
        "by": game.player_one,
        "knocker_deadwood": knocker,
        "defender_deadwood": defender,
        "cards": cards,
    }


# --- the knock example, three ways in ---------------------------------------------------


def test_example_through_manage_py_knock():
    out = json.loads(_run("knock", "--knocker", KNOCKER, "--defender", DEFENDER, "--json"))
    assert (out["knocker_deadwood"], out["defender_deadwood"]) == (6, 83)
    assert ["6S", "6H", "6D", "6C"] in out["knocker"]["melds"]
    assert out["layoffs"] == []


def test_example_through_the_pages_card_entry(setup):
    ann, game = setup
    client = Client()
    client.force_login(ann)
    data = {"ending": "knock", "by": game.player_one.pk, "entry": "cards", "expected_number": 1, "live": "1"}
    data["cards_one"], data["cards_two"] = KNOCKER.split(), DEFENDER.split()
    html = client.post(reverse("hand_cards", args=[game.pk]), data, HTTP_HX_REQUEST="true").content.decode()
    assert 'name="knocker_deadwood"' in html and 'value="6"' in html
    assert 'value="83"' in html
    assert "laid off" not in html
    assert f"{game.player_one.name} knocks and scores 77" in html


def test_example_through_the_api(setup):
    ann, game = setup
    api = APIClient()
    api.force_authenticate(ann)
    body = {"ending": "knock", "by": game.player_one.pk, "knocker_deadwood": 6, "defender_deadwood": 83,
            "cards": EXAMPLE}
    response = api.post(f"/api/games/{game.pk}/hands/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["hand"]["points"] == 77
    # Figures no play of these cards gives are refused, naming the field and what the cards allow.
    game2 = make_game(created_by=ann)
    with transaction.atomic():  # a refusal dooms the request's transaction; keep the test's own usable
        response = api.post(
            f"/api/games/{game2.pk}/hands/", {**body, "by": game2.player_one.pk, "defender_deadwood": 80}, format="json"
        )
    assert response.status_code == 400
    assert "defender_deadwood" in json.dumps(response.json())
    assert "76 or 83" in json.dumps(response.json())
    assert not Hand.objects.filter(game=game2).exists()


# --- imperfect play is recorded, impossible figures are refused --------------------------


def test_imperfect_play_is_stored_with_a_quiet_best_play_note(setup):
    ann, game = setup
    hand = services.hand_record(game=game, **knock(game, defender=76))  # the knocker let 7C go on the run
    assert Hand.objects.get(pk=hand.pk).points == 70
    client = Client()
    client.force_login(ann)
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "best play: K 6, D 83" in html
    assert "deadwood 6 v 76" in html


def test_the_best_play_gets_no_note(setup):
    ann, game = setup
    services.hand_record(game=game, **knock(game))
    client = Client()
    client.force_login(ann)
    assert "best play:" not in client.get(reverse("game", args=[game.pk])).content.decode()


def test_a_knock_with_more_deadwood_than_needed_is_recorded_and_an_impossible_one_refused(setup):
    _, game = setup
    # [4C 5C 6C] [6S 6H 6D], 3C loose: 9 deadwood instead of 6; the defender's 7C still goes on the run.
    hand = services.hand_record(game=game, **knock(game, knocker=9, defender=76))
    assert Hand.objects.get(pk=hand.pk).points == 67
    with pytest.raises(HandRefused) as refused, transaction.atomic():  # the refusal dooms only this block
        services.hand_record(game=game, **knock(game, knocker=7))
    assert refused.value.field == "knocker_deadwood"
    assert "the cards allow the knocker 6 or 9 deadwood (knock limit 10), not 7" in refused.value.message_text
    assert Hand.objects.count() == 1


# --- the page's card entry: best play filled, the player's own figures kept ---------------


def box(html: str, name: str) -> tuple[str, str]:
    """(value, the error shown under it) of a deadwood box on the page."""
    field = re.search(rf'<div class="field[^"]*">\s*<label for="id_{name}">.*?</div>', html, re.S).group(0)
    value = re.search(rf'name="{name}"[^>]*value="([^"]*)"', field).group(1)
    error = re.search(r'<p class="error" role="alert">([^<]*)</p>', field)
    return value, unescape(error.group(1)) if error else ""


def card_form(game, **extra):
    data = {"ending": "knock", "by": game.player_one.pk, "entry": "cards", "expected_number": 1, **extra}
    data["cards_one"], data["cards_two"] = KNOCKER.split(), DEFENDER.split()
    return data


def posted(html: str) -> dict:
    """The hidden and deadwood inputs as the browser would post them back."""
    return dict(re.findall(r'name="((?:filled|typed)_\w+|\w+_deadwood)"[^>]*value="([^"]*)"', html))


def test_without_javascript_the_player_changes_the_best_play_figure_before_saving(setup):
    ann, game = setup
    client = Client()
    client.force_login(ann)
    url = reverse("hand_submit", args=[game.pk])
    worked = client.post(url, card_form(game, action="cards")).content.decode()  # "Work out deadwood"
    assert (box(worked, "knocker_deadwood")[0], box(worked, "defender_deadwood")[0]) == ("6", "83")
    assert "readonly" not in worked
    # The knocker spread [3C 4C 5C 6C] [6S 6H 6D], so the defender laid 7C off: 76, not 83.
    typed = {**posted(worked), "defender_deadwood": "76"}
    again = client.post(url, card_form(game, action="cards", **typed)).content.decode()  # worked out again
    assert (box(again, "knocker_deadwood")[0], box(again, "defender_deadwood")[0]) == ("6", "76")
    saved = client.post(url, card_form(game, action="save", **posted(again)))
    assert saved.status_code == 302
    hand = Hand.objects.get()
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (6, 76, 70)
    assert sorted(hand.cards["defender"]) == sorted(DEFENDER.split())
    sheet = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "best play: K 6, D 83" in sheet and "deadwood 6 v 76" in sheet


def test_an_impossible_figure_with_cards_is_refused_next_to_its_box(setup):
    ann, game = setup
    client = Client()
    client.force_login(ann)
    url = reverse("hand_submit", args=[game.pk])
    worked = client.post(url, card_form(game, action="cards")).content.decode()
    refused = client.post(url, card_form(game, action="save", **{**posted(worked), "knocker_deadwood": "7"}))
    assert refused.status_code == 422
    html = refused.content.decode()
    value, error = box(html, "knocker_deadwood")
    assert value == "7"
    assert error == "Knocker's deadwood: the cards allow the knocker 6 or 9 deadwood (knock limit 10), not 7"
    assert not Hand.objects.exists()
    # With JavaScript the same check runs as the figure is changed, before Save.
    live = client.post(
        reverse("hand_cards", args=[game.pk]),
        card_form(game, live="1", **{**posted(worked), "defender_deadwood": "80"}),
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert box(live, "defender_deadwood") == (
        "80", "Other player's deadwood: against the knocker's 6, the cards allow the other player 76 or 83 "
        "deadwood after lay-offs, not 80",
    )
    assert not Hand.objects.exists()


def test_the_correction_form_keeps_an_imperfect_figure_and_refuses_an_impossible_one(setup):
    ann, game = setup
    services.hand_record(game=game, **knock(game, defender=76))
    client = Client()
    client.force_login(ann)
    url = reverse("hand_edit", args=[game.pk, 1])
    opened = client.get(url).content.decode()
    assert (box(opened, "knocker_deadwood")[0], box(opened, "defender_deadwood")[0]) == ("6", "76")
    # The knocker really left 3C loose too: 9, with 7C still laid off.
    fields = {**posted(opened), "knocker_deadwood": "9"}
    refused = client.post(url, card_form(game, action="save", **{**fields, "defender_deadwood": "90"}))
    assert refused.status_code == 422
    assert box(refused.content.decode(), "defender_deadwood")[1].startswith(
        "Other player's deadwood: against the knocker's 9, the cards allow the other player 76 or 83"
    )
    assert Hand.objects.get().knocker_deadwood == 6
    assert client.post(url, card_form(game, action="save", **fields)).status_code == 302
    hand = Hand.objects.get()
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (9, 76, 67)
    assert "best play: K 6, D 83" in client.get(reverse("game", args=[game.pk])).content.decode()


# --- spade doubling is an Oklahoma option ---------------------------------------------------


def one_hand(rules, upcard, ending="knock", knocker=4, defender=19):
    hand = {"ending": ending, "by": "Ann", "defender_deadwood": defender, "upcard": upcard}
    if ending == "knock":
        hand["knocker_deadwood"] = knocker
    return evaluate({"rules": rules, "players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": [hand]})


@pytest.mark.parametrize(
    ("rules", "upcard", "ending", "points"),
    [
        ({"preset": "standard", "spade_double": True}, "7S", "knock", 15),
        ({"preset": "standard", "spade_double": True, "spade_double_boxes": True}, "7S", "knock", 15),
        ({"preset": "straight", "spade_double": True}, "7S", "gin", 19 + 25),
        ({"preset": "oklahoma"}, "7S", "knock", 30),
        ({"preset": "oklahoma"}, "7H", "knock", 15),
        ({"preset": "oklahoma"}, "7S", "gin", 2 * (19 + 25)),
    ],
)
def test_spade_doubling_applies_only_in_oklahoma(rules, upcard, ending, points):
    result = one_hand(rules, upcard, ending)
    assert result["hands"][0]["points"] == points
    assert result["games"][0]["boxes"]["Ann"] == 1


# --- a refused record names its first bad hand ------------------------------------------------

# One fault per kind: (field it is named by, the hand's facts).
SHAPE_FAULTS = [
    ("ending", {"ending": None}),
    ("ending", "not a hand"),
    ("by", {"ending": "gin", "by": 7, "defender_deadwood": 10}),
    ("upcard", {"ending": "gin", "by": "Ann", "defender_deadwood": 10, "upcard": 7}),
    ("colour", {"ending": "dead", "colour": "red"}),
]
RULE_FAULTS = [
    ("knocker_deadwood", {"ending": "knock", "by": "Ann", "knocker_deadwood": 11, "defender_deadwood": 20}),
    ("knocker_deadwood", {"ending": "knock", "by": "Bob", "knocker_deadwood": 0, "defender_deadwood": 20}),
    ("defender_deadwood", {"ending": "gin", "by": "Bob", "defender_deadwood": 99}),
    ("by", {"ending": "gin", "by": "Cy", "defender_deadwood": 10}),
    ("ending", {"ending": "kncok", "by": "Ann", "defender_deadwood": 10}),
    ("by", {"ending": "dead", "by": "Ann"}),
    ("cards", {"ending": "knock", "by": "Ann", "knocker_deadwood": 6, "defender_deadwood": 83,
               "cards": {"by": KNOCKER.split()[:9], "defender": DEFENDER.split()}}),
    ("defender_deadwood", {"ending": "knock", "by": "Ann", "knocker_deadwood": 6, "defender_deadwood": 80,
                           "cards": EXAMPLE}),
]


def good_hand(rng: random.Random) -> dict:
    """A hand that breaks no rule and scores at most a few points (the game stays open)."""
    by = rng.choice(["Ann", "Bob"])
    kind = rng.randrange(4)
    if kind == 0:
        return {"ending": "dead"}
    if kind == 1:
        if rng.random() < 0.1:  # with its cards: a knock worth 9 (tests/test_cards_facts.py)
            return {"ending": "knock", "by": by, "knocker_deadwood": 2, "defender_deadwood": 11,
                    "cards": {"by": CARDS_KNOCKER, "defender": CARDS_DEFENDER}}
        return {"ending": "knock", "by": by, "knocker_deadwood": 5, "defender_deadwood": 9}
    knocker = rng.randint(1, 10)
    return {"ending": "knock", "by": by, "knocker_deadwood": knocker, "defender_deadwood": knocker + rng.randint(1, 4)}


def test_fuzz_a_refused_record_names_its_first_bad_hand():
    rng = random.Random(1212)
    faults = SHAPE_FAULTS + RULE_FAULTS
    for _ in range(examples(3000, 50000)):
        first_bad = rng.randint(1, 8)
        hands = [good_hand(rng) for _ in range(first_bad - 1)]
        field, bad = rng.choice(faults)
        hands.append(bad)
        for _ in range(rng.randint(0, 4)):  # later hands: good or bad, of any kind
            hands.append(rng.choice(faults)[1] if rng.random() < 0.6 else good_hand(rng))
        data = {"players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": hands}
        result = evaluate(data)
        assert result.get("error") == {"hand": first_bad, "field": field}, (hands, result)


BAD_RECORD = {
    "players": ["Ann", "Bob"],
    "first_dealer": "Bob",
    "hands": [
        {"ending": "knock", "by": "Ann", "knocker_deadwood": 11, "defender_deadwood": 20},
        {"ending": None},
    ],
}


def test_the_issue_record_names_hand_1_through_scoresheet_json(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(BAD_RECORD))
    with pytest.raises(CommandError):  # exit status 1
        _run("scoresheet", "--json", str(path))
    assert json.loads(_last_out)["error"] == {"hand": 1, "field": "knocker_deadwood"}


def test_the_issue_record_names_hand_1_through_import_games(db, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(BAD_RECORD))
    err = _StringIO()
    with pytest.raises(CommandError):  # exit status 1
        call_command("import_games", str(path), stdout=_StringIO(), stderr=err)
    assert "hand 1, field knocker_deadwood" in err.getvalue()
    assert not Game.objects.exists()


def test_the_issue_record_names_hand_1_through_the_api_import(setup):
    ann, _ = setup
    api = APIClient()
    api.force_authenticate(ann)
    response = api.post("/api/games/import/", BAD_RECORD, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {"hand": 1, "field": "knocker_deadwood"}


# --- helpers ----------------------------------------------------------------------------------

_last_out = ""


class _StringIO:
    def __init__(self):
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def flush(self) -> None:
        pass

    def getvalue(self) -> str:
        return "".join(self.parts)


def _run(*args) -> str:
    global _last_out
    out = _StringIO()
    try:
        call_command(*args, stdout=out)
    finally:
        _last_out = out.getvalue()
    return _last_out
