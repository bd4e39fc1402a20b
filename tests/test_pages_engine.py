"""The two small pure helpers the pages use: dealer_after and running_totals."""

import pytest

from scoring.engine.rules import resolve_rules
from scoring.engine.score import HandFacts, dealer_after, running_totals, score_session

HANDS = [
    HandFacts("knock", "A", 5, 20),
    HandFacts("dead"),
    HandFacts("gin", "B", None, 30),
    HandFacts("knock", "B", 8, 6),
    HandFacts("gin", "A", None, 12),
    HandFacts("knock", "A", 2, 40),
]


@pytest.mark.parametrize("preset", ["standard", "hollywood", "classic"])
@pytest.mark.parametrize("next_dealer", ["loser", "winner", "alternate"])
def test_dealer_after_agrees_with_the_engine_while_the_sitting_is_open(preset, next_dealer):
    rules = resolve_rules({"preset": preset, "next_dealer": next_dealer, "target": 1000})
    for count in range(len(HANDS) + 1):
        session = score_session(rules, ("A", "B"), "B", HANDS[:count])
        assert not session.over
        assert dealer_after(rules, ("A", "B"), "B", session.hands) == session.next_dealer


def test_dealer_after_a_finished_sitting_follows_the_last_hand():
    rules = resolve_rules({"preset": "standard"})
    hands = [HandFacts("knock", "A", 5, 20), HandFacts("gin", "B", None, 90)]
    session = score_session(rules, ("A", "B"), "A", hands)
    assert session.over and session.next_dealer is None
    assert dealer_after(rules, ("A", "B"), "A", session.hands) == "A"  # A lost the last hand
    winner_deals = resolve_rules({"preset": "standard", "next_dealer": "winner"})
    session = score_session(winner_deals, ("A", "B"), "A", hands)
    assert dealer_after(winner_deals, ("A", "B"), "A", session.hands) == "B"


@pytest.mark.parametrize("preset", ["standard", "hollywood", "oklahoma"])
def test_running_totals_end_at_each_games_hand_points(preset):
    rules = resolve_rules({"preset": preset, "target": 1000})
    hands = [
        HandFacts(h.ending, h.by, h.knocker_deadwood, h.defender_deadwood, "9S" if rules.oklahoma else None)
        for h in HANDS
    ]
    session = score_session(rules, ("A", "B"), "B", hands)
    rows = running_totals(session)
    assert len(rows) == len(hands)
    for index, game in enumerate(session.games):
        assert rows[-1][index] == game.hand_points
    for number in range(1, len(hands) + 1):  # each prefix agrees with scoring that prefix alone
        prefix = score_session(rules, ("A", "B"), "B", hands[:number])
        assert [game.hand_points for game in prefix.games] == list(rows[number - 1])
