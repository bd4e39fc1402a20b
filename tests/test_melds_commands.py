"""The melds and knock management commands (need Django settings, no database)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_melds_ten_cards_text():
    out = run("melds", "3H", "4H", "5H", "7C", "7D", "7S", "KS", "2D", "9C", "QD")
    assert out.strip() == "[3H 4H 5H] [7S 7D 7C] deadwood: KS 2D QD 9C = 31"


def test_melds_accepts_one_quoted_list():
    assert run("melds", "AH 2H 3H 4H 5H,6H 7H 8H 9H 10H").splitlines() == [
        "[AH 2H 3H 4H 5H 6H 7H 8H 9H 10H] deadwood: none = 0",
        "gin",
    ]


def test_melds_eleven_cards_json():
    data = json.loads(run("melds", "2D 3D 5D 3H 4H 5H 6H 4C 5C 6C 6S", "--json"))
    assert data["discard"] == "6S"
    assert data["deadwood"] == 10
    assert data["gin"] is False and data["big_gin"] is False
    assert data["arrangement"] == {
        "melds": [["3H", "4H", "5H", "6H"], ["4C", "5C", "6C"]],
        "deadwood_cards": ["2D", "3D", "5D"],
        "deadwood": 10,
    }
    assert len(data["cards"]) == 11


def test_melds_eleven_cards_text_and_big_gin():
    out = run("melds", "2D 3D 5D 3H 4H 5H 6H 4C 5C 6C 6S")
    assert out.splitlines() == ["discard: 6S", "keep:    [3H 4H 5H 6H] [4C 5C 6C] deadwood: 2D 3D 5D = 10"]
    out = run("melds", "AS 2S 3S 7H 7D 7C 7S 9D 10D JD QD")
    assert out.splitlines()[0] == "big gin: all 11 cards meld, no discard"
    data = json.loads(run("melds", "AS 2S 3S 7H 7D 7C 7S 9D 10D JD QD", "--json"))
    assert data["big_gin"] is True and data["discard"] is None and data["deadwood"] == 0


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (["AS 2S 3S 4S 5S 6S 7S 8S 9S 1X"], "'1X' is not a card"),
        (["AS 2S 3S 4S 5S 6S 7S 8S 9S 9S"], "9S is given twice"),
        (["AS 2S 3S"], "give 10 or 11 cards, not 3"),
    ],
)
def test_melds_bad_cards(cards, message):
    with pytest.raises(CommandError, match=message):
        run("melds", *cards)


KNOCKER = "7S 7D 7C 8H 9H 10H 2S 3D AC 4C"
DEFENDER = "7H 6H KC QH JC 9D 9C 5S 4S 2C"


def test_knock_text():
    out = run("knock", "--knocker", KNOCKER, "--defender", DEFENDER)
    assert out.splitlines() == [
        "knocker:  [7S 7D 7C] [8H 9H 10H] deadwood: 2S 3D AC 4C = 10",
        "defender: deadwood: 4S 5S QH 9D 2C 9C JC KC = 59",
        "layoffs:  7H on [8H 9H 10H], 6H on [8H 9H 10H]",
        "knock: knocker deadwood 10, defender deadwood 59; legal",
    ]


def test_knock_json_and_limit():
    data = json.loads(run("knock", "--knocker", KNOCKER, "--defender", DEFENDER, "--limit", "9", "--json"))
    assert data["knocker_deadwood"] == 10
    assert data["defender_deadwood"] == 59
    assert data["legal"] is False
    assert data["reason"] == "the knocker has 10 deadwood, more than the knock limit of 9"
    assert data["layoffs"] == [
        {"card": "7H", "meld_index": 1, "meld": ["8H", "9H", "10H"]},
        {"card": "6H", "meld_index": 1, "meld": ["8H", "9H", "10H"]},
    ]
    assert data["knocker"]["melds"] == [["7S", "7D", "7C"], ["8H", "9H", "10H"]]
    assert data["defender"]["melds"] == []


def test_knock_gin():
    data = json.loads(
        run(
            "knock",
            "--knocker",
            "AS 2S 3S 4H 5H 6H 7D 8D 9D 10D",
            "--defender",
            "4S 5S 3H 7H JD 7S 8C KC QC 2C",
            "--json",
        )
    )
    assert data["gin"] is True and data["legal"] is True and data["layoffs"] == []
    assert data["defender_deadwood"] == 66


@pytest.mark.parametrize(
    ("knocker", "defender", "message"),
    [
        (KNOCKER, "7H 6H KC QH JC 9D 9C 5S 4S 7S", "7S is in both hands"),
        (KNOCKER, "7H 6H KC QH JC 9D 9C 5S 4S ZZ", "'ZZ' is not a card"),
        (KNOCKER, "7H 6H KC QH JC 9D 9C 5S 4S", "defender hand must have 10 cards, got 9"),
        ("7S 7S 7C 8H 9H 10H 2S 3D AC 4C", DEFENDER, "7S is given twice in the knocker hand"),
    ],
)
def test_knock_bad_cards(knocker, defender, message):
    with pytest.raises(CommandError, match=message):
        run("knock", "--knocker", knocker, "--defender", defender)


def test_knock_negative_limit():
    with pytest.raises(CommandError, match="--limit must be 0 or more"):
        run("knock", "--knocker", KNOCKER, "--defender", DEFENDER, "--limit", "-1")
