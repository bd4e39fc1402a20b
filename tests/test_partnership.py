"""Partnership gin (docs/rules.md, "Partnership gin"): the engine, figures worked by hand beyond vectors 32-36."""

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.partnership import board_pairs, score_partnership
from scoring.engine.record import evaluate
from scoring.engine.rules import RuleError, resolve_rules
from scoring.engine.score import HandError, HandFacts, score_session
from tests.fuzzing import examples

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]
DEAD = {"ending": "dead"}


def knock(by, knocker, defender, **more):
    return {"ending": "knock", "by": by, "knocker_deadwood": knocker, "defender_deadwood": defender, **more}


def gin(by, defender, **more):
    return {"ending": "gin", "by": by, "defender_deadwood": defender, **more}


def record(*deals, rules=None, first_dealer="Ann", **more):
    return {
        "rules": rules or {"preset": "partnership"},
        "players": PLAYERS,
        "first_dealer": first_dealer,
        "hands": [{"boards": list(boards)} for boards in deals],
        **more,
    }


def error_of(data):
    return evaluate(data)["error"]


def test_the_preset_is_the_standard_hand_played_to_125_by_sides():
    rules = resolve_rules({"preset": "partnership"})
    assert rules.partnership and rules.partner_opponents == "fixed"
    assert (rules.target, rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus, rules.box_bonus) == (
        125,
        25,
        31,
        25,
        25,
    )


def test_alternate_opponents_swap_on_even_deals():
    rules = resolve_rules({"preset": "partnership", "partner_opponents": "alternate"})
    assert board_pairs(rules, PLAYERS, 1) == (("Ann", "Bob"), ("Cat", "Dan"))
    assert board_pairs(rules, PLAYERS, 2) == (("Ann", "Dan"), ("Cat", "Bob"))
    assert board_pairs(rules, PLAYERS, 3) == (("Ann", "Bob"), ("Cat", "Dan"))
    fixed = resolve_rules({"preset": "partnership"})
    assert board_pairs(fixed, PLAYERS, 2) == (("Ann", "Bob"), ("Cat", "Dan"))


def test_each_board_doubles_on_its_own_spade_upcard_in_oklahoma():
    rules = {"preset": "partnership", "oklahoma": True, "spade_double": True}
    answer = evaluate(record([knock("Ann", 3, 13, upcard="5S"), knock("Dan", 2, 20, upcard="9H")], rules=rules))
    boards = answer["hands"][0]["boards"]
    assert [board["points"] for board in boards] == [20, 18]  # (13 - 3) x 2; 20 - 2
    assert answer["hands"][0] == {"winner": "Ann & Cat", "points": 2, "boards": boards}
    assert answer["games"][0]["boxes"] == {"Ann & Cat": 1, "Bob & Dan": 0}  # one box a deal, doubled or not


def test_sides_take_turns_dealing_and_a_tied_deal_is_dealt_again_by_the_same_side():
    data = record(
        [gin("Ann", 10), DEAD],  # Ann & Cat deal; they win
        [knock("Bob", 4, 14), knock("Cat", 4, 14)],  # Bob & Dan deal; 10 each: tied
        [DEAD, DEAD],  # Bob & Dan again
        rules={"preset": "partnership", "next_dealer": "alternate"},
    )
    answer = evaluate(data)
    assert [[board["dealer"] for board in deal["boards"]] for deal in answer["hands"]] == [
        ["Ann", "Cat"],
        ["Bob", "Dan"],
        ["Bob", "Dan"],
    ]
    assert answer["next_dealer"] == "Bob & Dan"


def test_every_end_of_game_bonus_goes_to_a_side():
    rules = {"preset": "partnership", "target": 50, "shutout_mode": "double_hands", "line_bonus": 40}
    answer = evaluate(record([gin("Ann", 30), knock("Cat", 2, 10)], rules=rules))  # 55 + 8 = 63
    game = answer["games"][0]
    # 63 doubled (shutout) 126, one box 25, game 100: 251; won by 50 or more: line bonus 40.
    assert game["final"] == {"Ann & Cat": 126 + 25 + 100 + 40, "Bob & Dan": 0}
    assert game["margin"] == 291


def test_a_deal_after_the_game_is_over_is_refused():
    rules = {"preset": "partnership", "target": 25}
    assert error_of(record([gin("Ann", 0), DEAD], [DEAD, DEAD], rules=rules)) == {
        "hand": 2,
        "board": None,
        "field": "boards",
    }


@pytest.mark.parametrize(
    "deal",
    [
        {"boards": [DEAD]},
        {"boards": [DEAD, DEAD, DEAD]},
        {"boards": {"1": DEAD}},
        {},
        [DEAD, DEAD],
    ],
)
def test_a_deal_needs_exactly_two_boards(deal):
    data = record([DEAD, DEAD])
    data["hands"].append(deal)
    assert error_of(data) == {"hand": 2, "board": None, "field": "boards"}


def test_errors_name_the_deal_the_board_and_the_field():
    assert error_of(record([DEAD, {"ending": "dead", "note": 1}])) == {"hand": 1, "board": 2, "field": "note"}
    data = record([DEAD, DEAD])
    data["hands"].append({"boards": [DEAD, DEAD], "note": 1})
    assert error_of(data) == {"hand": 2, "board": None, "field": "note"}
    assert error_of(record([knock("Ann", 11, 20), DEAD])) == {"hand": 1, "board": 1, "field": "knocker_deadwood"}
    # Board 1's fault comes before board 2's, whatever kind each is.
    assert error_of(record([knock("Cat", 3, 20), "not a hand"])) == {"hand": 1, "board": 1, "field": "by"}
    # And an earlier deal's before a later one's shape.
    assert error_of(record([DEAD, gin("Ann", 20)], [DEAD])) == {"hand": 1, "board": 2, "field": "by"}
    answer = evaluate(record([DEAD, knock("Cat", 3, 99)]))
    assert answer["error"] == {"hand": 1, "board": 2, "field": "defender_deadwood"}
    assert answer["message"].startswith("hand 1, board 2: defender_deadwood must be between 0 and 98")


def test_a_boards_refusal_reads_in_the_readers_language():
    with translation.override("de"):
        message = evaluate(record([DEAD, DEAD], [knock("Bob", 2, 9), gin("Ann", 20)]))["message"]
    assert message.startswith("Spiel 2, Board 2: ")


def test_the_record_as_a_whole():
    assert error_of({**record(), "players": ["Ann", "Bob"]}) == {"hand": None, "board": None, "field": "players"}
    assert error_of({**record(), "players": ["Ann", "Bob", "cat", "Cat"]})["field"] == "players"
    assert error_of(record(first_dealer="Eve")) == {"hand": None, "board": None, "field": "first_dealer"}
    assert error_of(record([DEAD, DEAD], time_called_after=0)) == {
        "hand": None,
        "board": None,
        "field": "time_called_after",
    }
    assert error_of(record(rules={"preset": " Partnership ", "hollywood": True}))["field"] == "rules"
    # Not a partnership: the two-handed error shape, without a board.
    assert evaluate({"players": PLAYERS, "first_dealer": "Ann"})["error"] == {"hand": None, "field": "players"}


def test_partnership_rules_belong_to_four_players():
    with pytest.raises(RuleError) as refused:
        resolve_rules({"preset": "standard", "partner_opponents": "alternate"})
    assert refused.value.field == "partner_opponents"
    assert resolve_rules({"preset": "standard", "partner_opponents": "fixed"}) == resolve_rules({})
    with pytest.raises(HandError) as refused:
        score_session(resolve_rules({"preset": "partnership"}), ("Ann", "Bob"), "Ann", [])
    assert refused.value.field == "preset"
    with pytest.raises(HandError) as refused:
        score_partnership(resolve_rules({"preset": "standard"}), PLAYERS, "Ann", [])
    assert refused.value.field == "rules"


def test_the_deal_in_progress_waits_for_its_second_board():
    rules = resolve_rules({"preset": "partnership"})
    first = (HandFacts("knock", "Ann", 4, 20), HandFacts("knock", "Cat", 3, 15))
    result = score_partnership(rules, PLAYERS, "Bob", [first, (None, HandFacts("gin", "Dan", None, 10))])
    waiting = result.deals[1]
    assert not waiting.settled and waiting.winner is None and waiting.points == 0
    assert waiting.boards[0] is None and (waiting.boards[1].winner, waiting.boards[1].points) == ("Dan", 35)
    assert result.game.hand_points == {("Ann", "Cat"): 28, ("Bob", "Dan"): 0}
    assert result.next_dealer == ("Bob", "Dan")  # the deal is theirs until it is settled
    with pytest.raises(HandError) as refused:  # only the last deal may wait
        score_partnership(rules, PLAYERS, "Bob", [(first[0], None), first])
    assert (refused.value.hand, refused.value.board, refused.value.field) == (1, None, "boards")


# ---- seasons are of two-player games; "New game" takes four players for partnership gin (issue 41) ----


@pytest.mark.django_db
def test_the_season_form_does_not_offer_partnership_and_new_game_asks_for_the_partners():
    from scoring.forms import NewGameForm
    from scoring.league.forms import SeasonForm

    assert "partnership" not in dict(SeasonForm().fields["preset"].choices)
    assert "standard" in dict(SeasonForm().fields["preset"].choices)
    assert "partnership" in dict(NewGameForm().fields["preset"].choices)
    assert "rule_partner_opponents" not in NewGameForm().fields  # its own control: partner_opponents
    refused = NewGameForm(
        data={"player_one": "Ann", "player_two": "Bob", "first_dealer": "one", "preset": "partnership"}
    )
    assert not refused.is_valid()
    assert {"player_three", "player_four"} <= set(refused.errors)


@pytest.mark.django_db
def test_a_game_of_two_under_partnership_rules_is_refused_naming_the_preset():
    from scoring import services
    from scoring.models import Game
    from tests.factories import PlayerFactory

    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    with pytest.raises(services.HandRefused) as refused:
        services.game_create(player_one=ann, player_two=bob, first_dealer=ann, rules={"preset": "partnership"})
    assert refused.value.field == "preset" and "four players" in refused.value.message_text
    assert not Game.objects.exists()


# ---- invariants over random partnership games -------------------------------------------------


@st.composite
def partnership_games(draw):
    overrides = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "partner_opponents": st.sampled_from(["fixed", "alternate"]),
                "next_dealer": st.sampled_from(["loser", "winner", "alternate"]),
                "target": st.integers(25, 200),
                "oklahoma": st.booleans(),
            },
        )
    )
    rules = resolve_rules({"preset": "partnership", **overrides})

    def board(pair):
        ending = draw(st.sampled_from(["knock", "knock", "gin", "big_gin", "dead"]))
        upcard = draw(st.sampled_from(["2S", "9H", "KD", "7C"])) if rules.oklahoma else None
        if ending == "dead":
            return HandFacts("dead", upcard=upcard)
        by, defender = draw(st.sampled_from(pair)), draw(st.integers(0, 98))
        if ending == "knock":
            limit = int(upcard[:-1]) if upcard and upcard[0].isdigit() else 10
            return HandFacts("knock", by, draw(st.integers(1, limit)), defender, upcard)
        return HandFacts(ending, by, None, defender, upcard)

    deals = []
    for number in range(1, draw(st.integers(0, 12)) + 1):
        deals.append(tuple(board(pair) for pair in board_pairs(rules, PLAYERS, number)))
    return rules, draw(st.sampled_from(PLAYERS)), deals


@settings(max_examples=examples(quick=200, deep=5000), deadline=None)
@given(partnership_games())
def test_partnership_invariants(case):
    rules, first_dealer, deals = case
    try:
        result = score_partnership(rules, PLAYERS, first_dealer, deals)
    except HandError as error:
        assert (error.field, error.board) == ("boards", None) and "over" in error.message
        deals = deals[: error.hand - 1]
        result = score_partnership(rules, PLAYERS, first_dealer, deals)
    sides = result.sides
    won = dict.fromkeys(sides, 0)
    for deal in result.deals:
        by_side = dict.fromkeys(sides, 0)
        for number, board in enumerate(deal.boards, start=1):
            pair = board_pairs(rules, PLAYERS, deal.number)[number - 1]
            assert board.dealer in pair and board.dealer in deal.dealer  # the dealing side deals both boards
            if board.winner is not None:
                assert board.winner in pair
                by_side[sides[0] if board.winner in sides[0] else sides[1]] += board.points
        assert deal.points == abs(by_side[sides[0]] - by_side[sides[1]])
        assert (deal.winner is None) == (deal.points == 0)
        if deal.winner is not None:
            assert by_side[deal.winner] > by_side[deal.loser]
            won[deal.winner] += deal.points
    assert result.game.hand_points == won
    assert result.game.boxes == {side: sum(deal.winner == side for deal in result.deals) for side in sides}
    assert result.over == (max(won.values()) >= rules.target)
    assert (result.next_dealer is None) == result.over


def test_the_game_record_docs_partnership_example_is_what_the_engine_computes():
    import json
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "game-record.md").read_text(encoding="utf-8")
    section = text[text.index("## Partnership records") :]
    example = json.loads(section[section.index("```json\n") + 8 : section.index("```", section.index("```json\n") + 8)])
    assert evaluate(example) == example["expect"]


def test_who_plays_whom_is_described_for_a_partnership_only():
    labels = [label for label, _value in resolve_rules({"preset": "standard"}).describe()]
    assert "Who plays whom" not in labels
    described = dict(resolve_rules({"preset": "partnership", "partner_opponents": "alternate"}).describe())
    assert described["Who plays whom"] == "opponents change every deal"
    assert described["Game to"] == "125"
    with translation.override("es"):
        assert dict(resolve_rules({"preset": "partnership"}).describe_overrides()) == {}
        assert "Quién juega contra quién" in dict(resolve_rules({"preset": "partnership"}).describe())
