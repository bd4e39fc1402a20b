"""Property-based tests over random valid games for every preset."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import services
from scoring.engine.cards import RANK_NAMES, SUITS
from scoring.engine.rules import TWO_PLAYER_PRESETS, resolve_rules
from scoring.engine.score import HandError, HandFacts, effective_knock_limit, score_session
from scoring.models import Hand
from scoring.services import HandRefused
from tests.factories import PlayerFactory
from tests.fuzzing import examples

PLAYERS = ("A", "B")
UPCARDS = [rank + suit for rank in RANK_NAMES for suit in SUITS]


@st.composite
def valid_hand(draw, rules):
    """Facts that are legal for these rules (the game may still be over)."""
    upcard = draw(st.sampled_from(UPCARDS)) if rules.oklahoma else None
    from scoring.engine.cards import parse_card

    limit = effective_knock_limit(rules, parse_card(upcard) if upcard else None)
    endings = ["gin", "dead"] + (["knock"] * 3 if limit else []) + (["big_gin"] if rules.big_gin_allowed else [])
    ending = draw(st.sampled_from(endings))
    if ending == "dead":
        return HandFacts("dead", upcard=upcard)
    by = draw(st.sampled_from(PLAYERS))
    defender = draw(st.integers(0, 98))
    if ending == "knock":
        return HandFacts("knock", by, draw(st.integers(1, limit)), defender, upcard)
    return HandFacts(ending, by, None, defender, upcard)


@st.composite
def game_facts(draw):
    preset = draw(st.sampled_from(sorted(TWO_PLAYER_PRESETS)))  # partnership: tests/test_partnership.py
    overrides = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "undercut_on_tie": st.booleans(),
                "shutout_mode": st.sampled_from(["none", "add", "double_hands", "double_total"]),
                "next_dealer": st.sampled_from(["loser", "winner", "alternate"]),
                "target": st.integers(50, 200),
                "line_bonus": st.sampled_from([None, 50]),
                "spade_double_boxes": st.booleans(),
            },
        )
    )
    rules = resolve_rules({"preset": preset, **overrides})
    hands = draw(st.lists(valid_hand(rules), max_size=30))
    return rules, draw(st.sampled_from(PLAYERS)), hands


def playable_prefix(rules, first_dealer, hands):
    """The longest prefix that scores (hands after the game is over are refused)."""
    try:
        return hands, score_session(rules, PLAYERS, first_dealer, hands)
    except HandError as error:
        assert error.field == "ending" and "over" in error.message, error.message
        kept = hands[: error.hand - 1]
        return kept, score_session(rules, PLAYERS, first_dealer, kept)


@settings(max_examples=examples(quick=200, deep=5000), deadline=None)
@given(game_facts())
def test_engine_invariants(case):
    rules, first_dealer, hands = case
    hands, result = playable_prefix(rules, first_dealer, hands)
    assert len(result.hands) == len(hands)
    for hand in result.hands:
        assert hand.points >= 0
        assert hand.dealer in PLAYERS
        if hand.result == "dead":
            assert hand.winner is None and hand.games == ()
        else:
            assert hand.winner in PLAYERS and hand.games
    for game in result.games:
        reached = max(game.hand_points.values()) >= rules.target
        assert game.over == reached
        if game.over:
            assert game.hand_points[game.winner] >= rules.target
            assert game.margin == game.final[game.winner] - game.final[game.loser] >= 0
            # Hollywood columns never receive a hand after they close.
            later = [hand for hand in result.hands if hand.number > game.closed_by_hand]
            assert all(game.number not in hand.games for hand in later)
        # Hand points are exactly the points of the hands that flowed into this game.
        for player in PLAYERS:
            flowed = sum(h.points for h in result.hands if h.winner == player and game.number in h.games)
            assert game.hand_points[player] == flowed
    assert result.over == all(game.over for game in result.games)
    assert (result.next_dealer is None) == result.over


@st.composite
def operations(draw):
    rules, first_dealer, _ = draw(game_facts())
    ops = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["add", "add", "add", "edit", "remove", "undo"]))
        ops.append((kind, draw(st.integers(0, 40)), draw(valid_hand(rules))))
    return rules, first_dealer, ops


def stored_matches_engine(game):
    hands = list(game.hands.order_by("number"))
    facts = [
        HandFacts(h.ending, h.by_id, h.knocker_deadwood, h.defender_deadwood, h.upcard or None) for h in hands
    ]
    players = (game.player_one_id, game.player_two_id)
    result = score_session(resolve_rules(game.rules), players, game.first_dealer_id, facts)
    assert [h.number for h in hands] == list(range(1, len(hands) + 1))
    for hand, derived in zip(hands, result.hands, strict=True):
        assert (hand.dealer_id, hand.result, hand.winner_id, hand.points, hand.boxes, hand.scored_in) == (
            derived.dealer, derived.result, derived.winner, derived.points, derived.boxes, list(derived.games),
        )
    scores = list(game.scores.order_by("number"))
    assert len(scores) == len(result.games)
    one, two = game.player_one_id, game.player_two_id
    for score, derived in zip(scores, result.games, strict=True):
        assert (score.player_one_hand_points, score.player_two_hand_points) == (
            derived.hand_points[one], derived.hand_points[two],
        )
        assert (score.player_one_boxes, score.player_two_boxes) == (derived.boxes[one], derived.boxes[two])
        assert (score.over, score.winner_id, score.margin) == (derived.over, derived.winner, derived.margin)
        if derived.over:
            assert (score.player_one_final, score.player_two_final) == (derived.final[one], derived.final[two])
    game.refresh_from_db()
    assert (game.over, game.winner_id, game.margin, game.next_dealer_id, game.hand_count) == (
        result.over, result.winner, result.margin, result.next_dealer, len(hands),
    )


@pytest.mark.django_db
@settings(
    max_examples=examples(quick=30, deep=500),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(operations())
def test_stored_figures_equal_a_recompute_after_any_add_edit_remove(case):
    rules, first_dealer, ops = case
    one, two = PlayerFactory(), PlayerFactory()
    by_name = {"A": one, "B": two}
    game = services.game_create(
        player_one=one, player_two=two, first_dealer=by_name[first_dealer], rules=rules.as_dict()
    )
    for kind, index, facts in ops:
        values = {
            "ending": facts.ending,
            "by": by_name[facts.by] if facts.by else None,
            "knocker_deadwood": facts.knocker_deadwood,
            "defender_deadwood": facts.defender_deadwood,
            "upcard": facts.upcard,
        }
        hands = list(game.hands.order_by("number"))
        try:
            if kind == "add":
                services.hand_record(game=game, **values)
            elif kind == "edit" and hands:
                services.hand_edit(hand=hands[index % len(hands)], **values)
            elif kind == "remove" and hands:
                services.hand_remove(hand=hands[index % len(hands)])
            elif kind == "undo" and hands:
                services.hand_remove_last(game=game)
        except HandRefused as refused:
            assert refused.field == "ending" and refused.hand is not None  # only "the game is over" refusals
        stored_matches_engine(game)
    assert Hand.objects.filter(game=game, points__lt=0).count() == 0
