"""Engine behaviour beyond the golden vectors, with figures worked out by hand."""

import dataclasses
import itertools
from dataclasses import replace

import pytest

from scoring.engine.overrides import read_rules
from scoring.engine.record import evaluate, parse_record
from scoring.engine.rules import PRESETS, RuleError, resolve_rules
from scoring.engine.score import HandError, HandFacts, HandResult, _checked_hand, _validate_hand, score_session


def knock(by, knocker, defender, upcard=None):
    return HandFacts("knock", by, knocker, defender, upcard)


def gin(by, defender, upcard=None):
    return HandFacts("gin", by, None, defender, upcard)


DEAD = HandFacts("dead")


def test_hollywood_sitting_to_all_three_games_closed():
    rules = resolve_rules({"preset": "hollywood"})
    hands = [
        gin("A", 75),  # 100 -> game 1, which A closes with a shutout
        knock("B", 5, 45),  # 40 -> game 2 (B's first win)
        knock("A", 2, 52),  # 50 -> game 2: A's win in closed game 1 doesn't count
        gin("B", 35),  # 60 -> game 2 (closes, B 100) and game 3
        gin("A", 75),  # 100 -> game 3 only (A has no win there yet); closes it
    ]
    result = score_session(rules, ("A", "B"), "B", hands)
    assert [hand.games for hand in result.hands] == [(1,), (2,), (2,), (2, 3), (3,)]
    one, two, three = result.games
    assert one.final == {"A": 100 + 25 + 100 + 100, "B": 0} and one.margin == 325
    assert two.winner == "B" and two.final == {"B": 100 + 50 + 100, "A": 50 + 25} and two.margin == 175
    assert three.winner == "A" and three.final == {"A": 100 + 25 + 100, "B": 60 + 25} and three.margin == 140
    assert result.over and result.next_dealer is None
    assert result.net("A") == 325 - 175 + 140 and result.winner == "A" and result.margin == 290
    assert [hand.dealer for hand in result.hands] == ["B", "B", "A", "B", "A"]
    with pytest.raises(HandError) as refused:
        score_session(rules, ("A", "B"), "B", [*hands, DEAD])
    assert (refused.value.hand, refused.value.field) == (6, "ending")


def test_alternate_dealing_repeats_after_a_dead_hand():
    rules = resolve_rules({"preset": "standard", "next_dealer": "alternate"})
    result = score_session(rules, ("A", "B"), "A", [knock("A", 3, 10), DEAD, knock("B", 3, 10), gin("B", 10)])
    assert [hand.dealer for hand in result.hands] == ["A", "B", "B", "A"]
    assert result.next_dealer == "B"


def test_spade_double_can_count_two_boxes():
    rules = resolve_rules({"preset": "oklahoma", "spade_double_boxes": True})
    result = score_session(rules, ("A", "B"), "B", [knock("A", 4, 19, "7S"), knock("A", 4, 19, "7H")])
    assert [hand.points for hand in result.hands] == [30, 15]
    assert [hand.boxes for hand in result.hands] == [2, 1]
    assert result.games[0].boxes == {"A": 3, "B": 0}


def test_oklahoma_ace_can_mean_a_limit_of_one():
    rules = resolve_rules({"preset": "oklahoma", "oklahoma_ace": "one"})
    result = score_session(rules, ("A", "B"), "B", [knock("A", 1, 10, "AH")])
    assert result.hands[0].points == 9
    with pytest.raises(HandError) as refused:
        score_session(rules, ("A", "B"), "B", [knock("A", 2, 10, "AH")])
    assert refused.value.field == "knocker_deadwood"


@pytest.mark.parametrize("upcard, field", [(None, "upcard"), ("1S", "upcard"), ("ZZ", "upcard")])
def test_oklahoma_hand_needs_a_real_upcard(upcard, field):
    rules = resolve_rules({"preset": "oklahoma"})
    with pytest.raises(HandError) as refused:
        score_session(rules, ("A", "B"), "B", [knock("A", 3, 10, upcard)])
    assert refused.value.field == field and refused.value.hand == 1


def test_straight_gin_refuses_a_knock_but_scores_gin():
    rules = resolve_rules({"preset": "straight"})
    with pytest.raises(HandError) as refused:
        score_session(rules, ("A", "B"), "B", [knock("A", 3, 10)])
    assert refused.value.field == "ending"
    assert score_session(rules, ("A", "B"), "B", [gin("A", 10)]).hands[0].points == 35


def test_line_bonus_needs_the_margin():
    # lets_play: 50 line bonus for winning by 50 or more.
    rules = resolve_rules({"preset": "lets_play", "box_bonus": 0, "game_bonus": 0})
    close = score_session(rules, ("A", "B"), "B", [knock("B", 1, 60), gin("A", 75)])
    assert close.games[0].final == {"A": 100, "B": 59}  # won by 41: no line bonus
    wide = score_session(rules, ("A", "B"), "B", [knock("B", 1, 11), gin("A", 75)])
    assert wide.games[0].final == {"A": 150, "B": 10}


def test_hand_points_count_toward_target_not_bonuses():
    rules = resolve_rules({"preset": "standard"})
    result = score_session(rules, ("A", "B"), "B", [gin("A", 70)])  # 95 hand points, not over
    assert not result.over and result.games[0].points_needed("A") == 5


def test_bad_facts_name_the_field():
    rules = resolve_rules({"preset": "standard"})
    cases = [
        (HandFacts("bump", "A"), "ending"),
        (HandFacts("gin", "C", None, 10), "by"),
        (HandFacts("knock", "A", 5, None), "defender_deadwood"),
        (HandFacts("knock", "A", "5", 10), "knocker_deadwood"),
        (HandFacts("knock", "A", True, 10), "knocker_deadwood"),
        (HandFacts("gin", "A", None, -1), "defender_deadwood"),
        (HandFacts("dead", "A"), "by"),
    ]
    for facts, field in cases:
        with pytest.raises(HandError) as refused:
            score_session(rules, ("A", "B"), "B", [gin("B", 5), facts])
        assert (refused.value.hand, refused.value.field) == (2, field), facts
        assert refused.value.message


@pytest.mark.parametrize(
    "spec, field",
    [
        ({"preset": "bridge"}, "preset"),
        ({"preset": "standard", "gin_bonnus": 20}, "gin_bonnus"),
        ({"preset": "standard", "gin_bonus": "25"}, "gin_bonus"),
        ({"preset": "standard", "undercut_on_tie": 1}, "undercut_on_tie"),
        ({"preset": "standard", "target": 0}, "target"),
        ({"preset": "standard", "shutout_mode": "triple"}, "shutout_mode"),
        ({"preset": "standard", "knock_limit": 11}, "knock_limit"),
        ({"preset": "standard", "gin_bonus": None}, "gin_bonus"),
        ("standard", "rules"),
    ],
)
def test_bad_rule_sets_are_refused_naming_the_field(spec, field):
    with pytest.raises(RuleError) as refused:
        resolve_rules(spec)
    assert refused.value.field == field
    assert field in str(refused.value) or field == "rules"


def test_presets_hold_the_rule_book_values():
    table = {
        # knock, gin, big, undercut, target, game, box, line, shutout mode, next dealer
        "standard": (10, 25, 31, 25, 100, 100, 25, None, "add", "loser"),
        "classic": (10, 20, None, 10, 100, 100, 20, None, "add", "loser"),
        "lets_play": (10, 25, 25, 25, 100, 100, 20, 50, "none", "loser"),
        "oklahoma": (10, 25, 31, 25, 150, 100, 25, None, "add", "loser"),
        "straight": (0, 25, 31, 25, 100, 100, 25, None, "add", "loser"),
        "hollywood": (10, 25, 31, 25, 100, 100, 25, None, "add", "loser"),
    }
    for name, values in table.items():
        rules = PRESETS[name]
        got = (
            rules.knock_limit,
            rules.gin_bonus,
            rules.big_gin_bonus,
            rules.undercut_bonus,
            rules.target,
            rules.game_bonus,
            rules.box_bonus,
            rules.line_bonus,
            rules.shutout_mode,
            rules.next_dealer,
        )
        assert got == values, name
    assert PRESETS["oklahoma"].oklahoma and PRESETS["oklahoma"].spade_double
    assert not PRESETS["oklahoma"].spade_double_boxes
    assert PRESETS["hollywood"].hollywood and PRESETS["hollywood"].games_per_session == 3


def test_overrides_round_trip():
    rules = resolve_rules({"preset": "classic", "undercut_bonus": 25, "next_dealer": "winner"})
    assert rules.overrides() == {"preset": "classic", "undercut_bonus": 25, "next_dealer": "winner"}
    assert resolve_rules(rules.overrides()) == rules
    assert ("Undercut bonus", "25") in rules.describe()


# --- preset names (docs/game-record.md, "rules") -----------------------------------------------------

SHORT_RECORD = {
    "players": ["Ann", "Bob"],
    "first_dealer": "Ann",
    "hands": [{"ending": "gin", "by": "Ann", "defender_deadwood": 80}],
}


@pytest.mark.parametrize("written", ["Standard", "STANDARD", " standard ", "Hollywood", "Lets_Play"])
def test_a_preset_name_means_the_same_preset_in_any_letter_case(written):
    """The record format says so; every way rules come in (records, API, forms, stored games) reads it alike."""
    preset = written.strip().lower()
    assert resolve_rules({"preset": written}) == PRESETS[preset]
    record = {**SHORT_RECORD, "rules": {"preset": written}}
    assert parse_record(record).rules_spec == {"preset": preset}  # written back in lower case
    assert evaluate(record) == evaluate({**SHORT_RECORD, "rules": {"preset": preset}})


@pytest.mark.parametrize("written", ["bridge", "lets play", ["standard"], {"name": "standard"}, 5, None])
def test_a_preset_that_names_no_preset_refuses_the_record_naming_preset(written):
    refused = evaluate({**SHORT_RECORD, "rules": {"preset": written}})
    assert refused["error"] == {"hand": None, "field": "preset"}
    assert refused["message"].startswith("rules: preset must be one of standard, classic, lets_play,")


def test_rules_resolved_again_are_the_same_and_a_refusal_is_never_kept():
    """resolve_rules keeps what it resolved (every page resolves its game's rules again): the same rule set, while a
    spec that refuses still refuses after one equal to it in Python (True == 1) resolved, and a list refuses."""
    house = {"preset": "standard", "knock_limit": 1, "target": 250}
    assert resolve_rules(house) is resolve_rules(dict(house)) and resolve_rules(house).knock_limit == 1
    with pytest.raises(RuleError, match="knock_limit must be a whole number, not True"):
        resolve_rules({"preset": "standard", "knock_limit": True, "target": 250})
    with pytest.raises(RuleError, match=r"not \[1\]"):
        resolve_rules({"preset": "standard", "knock_limit": [1]})
    assert resolve_rules({"preset": "hollywood"}) == replace(PRESETS["hollywood"], timed_game_bonus=100)


def test_a_scored_hand_is_the_frozen_result_its_constructor_makes():
    """score_session makes each hand's result with its fields set at once (engine.score._hand_result): it equals,
    hashes and reads as the HandResult its constructor makes, and cannot be changed."""
    session = score_session(
        read_rules({"preset": "hollywood"}),
        ("ann", "bob"),
        "bob",
        [HandFacts("knock", "ann", 3, 10), HandFacts("dead"), HandFacts("gin", "bob", None, 12)],
    )
    made = (
        HandResult(1, "bob", "knock", "ann", "bob", 7, 1, False, (1,)),
        HandResult(2, "bob", "dead", None, None, 0, 0, False, ()),
        HandResult(3, "bob", "gin", "bob", "ann", 37, 1, False, (1,)),
    )
    assert session.hands == made and hash(session.hands) == hash(made)
    assert [repr(hand) for hand in session.hands] == [repr(hand) for hand in made]
    assert dataclasses.astuple(session.hands[2]) == dataclasses.astuple(made[2])
    with pytest.raises(dataclasses.FrozenInstanceError):
        session.hands[0].points = 99


# Edges of every check of a hand's facts: nothing, a whole number just outside or at each end of a range (a knock
# limit of 10 or 1, deadwood up to 98), a bool, a float, a text.
ODD_FIGURES = (None, -1, 0, 1, 10, 11, 98, 99, True, 3.0, "3")


def said(check, *args):
    """What a check of a hand answers: its upcard, or the whole of its refusal."""
    try:
        return check(*args)
    except HandError as error:
        return ("refused", error.hand, error.field, error.message, error.detail, error.board)


def test_a_hand_accepted_at_once_is_one_every_check_accepts():
    """_validate_hand accepts the usual hand before asking each of its checks (_checked_hand): for every facts of
    these edges, under rules with and without big gin or knocking, it answers what every check answers (the same
    upcard, or the same refusal), and the usual hands are among them. Each of those, in a sitting already over,
    with an upcard or under Oklahoma (which the shortcut leaves to the checks), gets the checks' answer too."""
    without_upcards = [
        resolve_rules(spec)
        for spec in (
            {"preset": "standard"},
            {"preset": "standard", "knock_limit": 1},
            {"preset": "classic"},
            {"preset": "straight"},
        )
    ]
    oklahoma = resolve_rules({"preset": "oklahoma"})
    endings = ("knock", "gin", "big_gin", "dead", "undercut", "")

    def same_answer(rules, facts, over):
        answer = said(_validate_hand, rules, ("A", "B"), facts, 7, over)
        assert answer == said(_checked_hand, rules, ("A", "B"), facts, 7, over, None), (rules, facts, over)
        return answer

    accepted = []
    for rules, ending, by, knocker, defender, upcard in itertools.product(
        without_upcards, endings, ("A", "C", None), ODD_FIGURES, ODD_FIGURES, (None, "")
    ):
        facts = HandFacts(ending, by, knocker, defender, upcard)
        if same_answer(rules, facts, False) is None:
            accepted.append((rules, facts))
    assert {facts.ending for _rules, facts in accepted} == {"knock", "gin", "big_gin", "dead"}
    for rules, facts in accepted:
        same_answer(rules, facts, True)
        for upcard in ("7S", "XX"):
            same_answer(rules, replace(facts, upcard=upcard), False)
        same_answer(oklahoma, facts, False)
