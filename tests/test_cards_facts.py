"""The ``cards`` fact checked against a hand's other facts (scoring.engine.card_facts), on hand-worked hands.

Every expected figure below was counted by hand from the cards, the way
players count at the table (ace 1, pips as printed, faces 10).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scoring.engine.card_facts import CardFactError, best_play_note, check_cards, check_facts, hand_display, work_out
from scoring.engine.rules import resolve_rules
from scoring.engine.score import HandFacts

# Knocker: [3H 4H 5H] [7S 7D 7C] [9S 9H 9C], deadwood 2D = 2.
KNOCKER = ["3H", "4H", "5H", "7S", "7D", "7C", "9S", "9H", "9C", "2D"]
# Defender: [JS QS KS] [8S 8D 8C], lays 6H 7H on the knocker's hearts, deadwood AD 10D = 11.
DEFENDER = ["6H", "7H", "8S", "8D", "8C", "JS", "QS", "KS", "AD", "10D"]
# Gin: [AS 2S 3S 4S] [5H 5D 5C] [9C 10C JC], no deadwood.
GIN = ["AS", "2S", "3S", "4S", "5H", "5D", "5C", "9C", "10C", "JC"]
# Against gin (no lay-offs): [2H 3H 4H], deadwood KH KD QH QD 7D 8S 6C = 40 + 21 = 61.
GIN_DEFENDER = ["KH", "KD", "QH", "QD", "2H", "3H", "4H", "7D", "8S", "6C"]
STANDARD = resolve_rules({"preset": "standard"})


def knock(by=KNOCKER, defender=DEFENDER, *, knocker=2, other=11, limit=10):
    return check_cards(
        {"by": by, "defender": defender},
        ending="knock",
        knocker_deadwood=knocker,
        defender_deadwood=other,
        knock_limit=limit,
    )


def refusal(call) -> CardFactError:
    with pytest.raises(CardFactError) as caught:
        call()
    return caught.value


def test_a_knock_that_agrees_is_accepted_and_tidied():
    tidy = knock(by=[c.lower() for c in KNOCKER[::-1]])  # any order, any case
    assert tidy["by"] == ["7S", "9S", "3H", "4H", "5H", "9H", "2D", "7D", "7C", "9C"]  # spades, hearts, diamonds, clubs
    assert sorted(tidy["defender"]) == sorted(DEFENDER)


def test_entered_deadwood_must_be_some_legal_play_of_the_cards():
    error = refusal(lambda: knock(knocker=3))
    assert error.field == "knocker_deadwood"
    assert "the cards allow the knocker 2 deadwood (knock limit 10), not 3" in error.message
    error = refusal(lambda: knock(other=20))  # no meld or lay-off leaves 20
    assert error.field == "defender_deadwood"
    assert "against the knocker's 2, the cards allow the other player 11, 17, 18, 24, 35, … or 78" in error.message
    assert error.message.endswith("deadwood after lay-offs, not 20")


def test_legal_but_imperfect_figures_are_accepted_with_a_best_play_note():
    assert best_play_note({"by": KNOCKER, "defender": DEFENDER}, "knock", 2, 11) == ""  # the best play
    for other, missed in ((17, "6H: 7H went on the set of 7s"), (18, "7H"), (24, "both")):
        assert knock(other=other)["by"][0] == "7S", missed
        assert best_play_note({"by": KNOCKER, "defender": DEFENDER}, "knock", 2, other) == "best play: K 2, D 11"


def test_a_knock_over_the_limit_is_refused_naming_the_cards():
    over = ["3H", "4H", "5H", "7S", "7D", "7C", "9S", "9H", "2D", "KD"]  # deadwood 9S 9H 2D KD = 30
    error = refusal(lambda: knock(by=over, knocker=30, other=11))
    assert error.field == "cards"
    assert "30 deadwood, more than the knock limit of 10" in error.message


def test_oklahoma_limit_comes_from_the_upcard():
    by = ["3H", "4H", "5H", "7S", "7D", "7C", "9S", "9H", "9C", "8D"]  # deadwood 8D = 8
    defender = ["6H", "7H", "KS", "KD", "QS", "QC", "JD", "10C", "8S", "AD"]  # lays 6H 7H; the rest = 69
    rules = resolve_rules({"preset": "oklahoma"})
    facts = HandFacts(ending="knock", by=1, knocker_deadwood=8, defender_deadwood=69, upcard="9C")
    assert check_facts(rules, facts, {"by": by, "defender": defender}) is not None  # limit 9
    low = HandFacts(ending="knock", by=1, knocker_deadwood=8, defender_deadwood=69, upcard="5S")
    error = refusal(lambda: check_facts(rules, low, {"by": by, "defender": defender}))  # limit 5
    assert error.field == "cards" and "knock limit of 5" in error.message


def test_gin_cards_must_meld_and_the_defender_gets_no_layoffs():
    tidy = check_cards(
        {"by": GIN, "defender": GIN_DEFENDER}, ending="gin", knocker_deadwood=None, defender_deadwood=61,
        knock_limit=10,
    )
    assert len(tidy["by"]) == 10
    error = refusal(lambda: check_cards(
        {"by": KNOCKER, "defender": DEFENDER}, ending="gin", knocker_deadwood=None, defender_deadwood=11,
        knock_limit=10,
    ))
    assert error.field == "cards" and "leave 2 deadwood" in error.message
    error = refusal(lambda: check_cards(
        {"by": GIN, "defender": GIN_DEFENDER}, ending="gin", knocker_deadwood=None, defender_deadwood=50,
        knock_limit=10,
    ))
    assert error.field == "defender_deadwood" and "61" in error.message


def test_a_knock_with_gin_cards_needs_a_spread_that_leaves_that_deadwood():
    # AS left off [2S 3S 4S] leaves 1: a knock the player could have made a gin.
    knocked = {"by": GIN, "defender": GIN_DEFENDER}
    check_cards(knocked, ending="knock", knocker_deadwood=1, defender_deadwood=61, knock_limit=10)
    assert best_play_note(knocked, "knock", 1, 61) == "best play: gin, D 61"
    error = refusal(lambda: check_cards(knocked, ending="knock", knocker_deadwood=2, defender_deadwood=61,
                                        knock_limit=10))
    assert error.field == "cards" and "that is gin" in error.message


def test_gin_defender_deadwood_is_any_spread_of_their_own_melds():
    gin = {"by": GIN, "defender": GIN_DEFENDER}
    check_cards(gin, ending="gin", knocker_deadwood=None, defender_deadwood=70, knock_limit=10)  # 2H 3H 4H not melded
    assert best_play_note(gin, "gin", None, 70) == "best play: D 61"
    error = refusal(lambda: check_cards(gin, ending="gin", knocker_deadwood=None, defender_deadwood=65,
                                        knock_limit=10))
    assert error.field == "defender_deadwood"
    assert "the cards allow the other player 61 or 70 deadwood" in error.message


def test_big_gin_needs_eleven_cards_all_melded():
    eleven = [*GIN, "QC"]  # [9C 10C JC QC]
    check_cards({"by": eleven, "defender": GIN_DEFENDER}, ending="big_gin", knocker_deadwood=None,
                defender_deadwood=61, knock_limit=10)
    error = refusal(lambda: check_cards({"by": GIN, "defender": GIN_DEFENDER}, ending="big_gin",
                                        knocker_deadwood=None, defender_deadwood=61, knock_limit=10))
    assert error.field == "cards" and "11 cards" in error.message
    loose = [*GIN, "KS"]  # KS does not meld: 10 deadwood
    error = refusal(lambda: check_cards({"by": loose, "defender": GIN_DEFENDER}, ending="big_gin",
                                        knocker_deadwood=None, defender_deadwood=61, knock_limit=10))
    assert error.field == "cards" and "leave 10 deadwood" in error.message


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        ({"by": KNOCKER, "defender": [*DEFENDER[:9], "7H"]}, "7H is given twice"),
        ({"by": KNOCKER, "defender": [*DEFENDER[:9], "2D"]}, "2D is in both hands"),
        ({"by": KNOCKER[:9], "defender": DEFENDER}, "must have 10 cards in a knock, not 9"),
        ({"by": KNOCKER, "defender": [*DEFENDER[:9], "1H"]}, "'1H' is not a card"),
        ({"by": KNOCKER}, '{"by": [...], "defender": [...]}'),
        ({"by": "3H 4H", "defender": DEFENDER}, "must be a list"),
        (["3H"], '{"by": [...], "defender": [...]}'),
    ],
)
def test_malformed_cards_are_refused_on_the_cards_field(cards, words):
    error = refusal(lambda: check_cards(cards, ending="knock", knocker_deadwood=2, defender_deadwood=11,
                                        knock_limit=10))
    assert error.field == "cards"
    assert words in error.message


def test_a_dead_hand_has_no_cards():
    error = refusal(lambda: check_cards({"by": KNOCKER, "defender": DEFENDER}, ending="dead",
                                        knocker_deadwood=None, defender_deadwood=None, knock_limit=10))
    assert error.field == "cards" and "dead hand" in error.message


def test_no_cards_means_nothing_to_check():
    facts = HandFacts(ending="knock", by=1, knocker_deadwood=5, defender_deadwood=20)
    assert check_facts(STANDARD, facts, None) is None


def test_work_out_fills_both_deadwood_figures_and_shows_the_melds():
    worked = work_out(KNOCKER, DEFENDER, ending="knock", knock_limit=10)
    assert worked.complete and (worked.knocker_deadwood, worked.defender_deadwood) == (2, 11)
    by, defender = worked.display["by"], worked.display["defender"]
    assert [[c["code"] for c in meld] for meld in by["melds"]] == [
        ["3H", "4H", "5H"], ["7S", "7D", "7C"], ["9S", "9H", "9C"]
    ]
    assert [c["code"] for c in by["deadwood_cards"]] == ["2D"]
    assert [[c["code"] for c in lay["cards"]] for lay in defender["layoffs"]] == [["6H", "7H"]]
    assert [c["code"] for c in defender["layoffs"][0]["meld"]] == ["3H", "4H", "5H"]
    assert sorted(c["code"] for c in defender["deadwood_cards"]) == ["10D", "AD"]
    assert by["melds"][0][0] == {"code": "3H", "rank": "3", "suit": "\u2665", "red": True, "words": "3 of hearts"}


def test_work_out_says_what_is_missing_and_never_raises():
    assert "4 so far" in work_out(KNOCKER[:4], [], ending="knock", knock_limit=10).problem
    assert "who went out" in work_out(KNOCKER, DEFENDER, ending="knock", knock_limit=10, who_known=False).problem
    assert "how the hand ended" in work_out(KNOCKER, DEFENDER, ending=None, knock_limit=10).problem
    clash = work_out(KNOCKER, [*DEFENDER[:9], "2D"], ending="knock", knock_limit=10)
    assert not clash.complete and "2D is in both hands" in clash.problem
    illegal = work_out(KNOCKER, DEFENDER, ending="knock", knock_limit=1)
    assert not illegal.complete and "knock limit of 1" in illegal.problem
    assert illegal.display is not None  # the melds are still shown
    gin = work_out(GIN, GIN_DEFENDER, ending="gin", knock_limit=10)
    assert gin.complete and gin.knocker_deadwood is None and gin.defender_deadwood == 61
    assert gin.display["defender"]["layoffs"] == []


def test_hand_display_of_stored_cards():
    assert hand_display(None, "knock") is None
    assert hand_display({"by": ["3H"], "defender": []}, "knock") is None  # unusable: shown as nothing
    shown = hand_display({"by": GIN, "defender": GIN_DEFENDER}, "gin")
    assert shown["by"]["deadwood"] == 0 and shown["defender"]["deadwood"] == 61


def test_card_facts_imports_no_django():
    code = (
        "import sys, scoring.engine.card_facts; "
        "bad = [m for m in sys.modules if m == 'django' or m.startswith('django.')]; sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent)
    assert result.returncode == 0
