"""A game ended by time (docs/rules.md, "A game ended by time"): the engine and the game record, figures by hand."""

import pytest

from scoring import selectors, services
from scoring.engine.record import evaluate, parse_record, score_record
from scoring.engine.rules import resolve_rules
from scoring.engine.score import HandError, HandFacts, score_session
from scoring.models import FactChange, Game
from tests.factories import PlayerFactory, make_game


def knock(by, knocker, defender):
    return HandFacts("knock", by, knocker, defender)


def gin(by, defender):
    return HandFacts("gin", by, None, defender)


DEAD = HandFacts("dead")
STANDARD = resolve_rules({"preset": "standard"})


def test_the_hand_in_progress_is_finished_and_the_player_ahead_wins():
    hands = [knock("A", 5, 30), gin("B", 10)]  # A 25, B 35: time is called now
    called = score_session(STANDARD, ("A", "B"), "B", hands, time_called_after=2)
    assert not called.over and called.next_dealer == "A" and called.time_called_after == 2
    result = score_session(STANDARD, ("A", "B"), "B", [*hands, knock("A", 2, 22)], time_called_after=2)
    [game] = result.games
    assert result.over and result.next_dealer is None
    assert game.by_time and game.winner == "A" and game.closed_by_hand == 3
    assert game.hand_points == {"A": 45, "B": 35}
    # 45 + 2 boxes x 25 + 100 game bonus; B: 35 + 1 box x 25.
    assert game.final == {"A": 195, "B": 60} and game.margin == 135
    assert ("Game bonus (time called)", "A", 100) in [(line.label, line.player, line.amount) for line in game.breakdown]
    assert result.winner == "A" and result.margin == 135


def test_level_totals_play_on_until_a_hand_leaves_one_player_ahead():
    hands = [knock("A", 5, 30), knock("B", 5, 30), DEAD]  # 25 each when time is called after hand 1
    level = score_session(STANDARD, ("A", "B"), "A", hands, time_called_after=1)
    assert not level.over and level.next_dealer == "A"  # a dead hand is no end: the next hand follows
    result = score_session(STANDARD, ("A", "B"), "A", [*hands, gin("B", 0)], time_called_after=1)
    [game] = result.games
    assert game.by_time and game.winner == "B" and game.closed_by_hand == 4
    # B: 50 + 2 x 25 + 100 = 200; A: 25 + 25 = 50.
    assert game.final == {"B": 200, "A": 50} and game.margin == 150


def test_the_timed_game_bonus_is_its_own_rule_with_shutout_and_line_bonus_as_usual():
    rules = {"preset": "standard", "line_bonus": 50}
    hands = [gin("A", 20)]  # 45 hand points to 0, time called before the first hand ended
    [game] = score_session(resolve_rules(rules), ("A", "B"), "B", hands, time_called_after=0).games
    # 45 + 25 box + 100 timed game bonus + 100 shutout = 270, ahead by 270 >= 50: + 50 line bonus.
    assert game.final == {"A": 320, "B": 0}
    [game] = score_session(
        resolve_rules({**rules, "timed_game_bonus": 0}), ("A", "B"), "B", hands, time_called_after=0
    ).games
    assert game.final == {"A": 45 + 25 + 0 + 100 + 50, "B": 0}
    assert "Game bonus (time called)" not in [line.label for line in game.breakdown]


def test_the_timed_game_bonus_follows_the_game_bonus_unless_set():
    assert resolve_rules({"preset": "classic"}).timed_game_bonus == 100
    follows = resolve_rules({"preset": "standard", "game_bonus": 40})
    assert follows.timed_game_bonus == 40 and follows.overrides() == {"preset": "standard", "game_bonus": 40}
    own = resolve_rules({"preset": "standard", "game_bonus": 40, "timed_game_bonus": 100})
    assert own.overrides() == {"preset": "standard", "game_bonus": 40, "timed_game_bonus": 100}
    assert resolve_rules(own.overrides()) == own and resolve_rules(own.as_dict()) == own
    assert ("Game bonus when time is called", "0") in resolve_rules({"timed_game_bonus": 0}).describe()


def test_a_game_won_on_its_target_before_the_call_keeps_its_result():
    rules = resolve_rules({"preset": "standard", "timed_game_bonus": 0})
    [game] = score_session(rules, ("A", "B"), "B", [gin("A", 80)], time_called_after=1).games
    assert game.over and not game.by_time and game.final == {"A": 105 + 25 + 100 + 100, "B": 0}


def test_reaching_the_target_on_the_last_hand_is_an_ordinary_win():
    rules = resolve_rules({"preset": "standard", "timed_game_bonus": 0})
    hands = [gin("A", 65), knock("A", 2, 22)]  # 90, then 110: the target is reached
    [game] = score_session(rules, ("A", "B"), "B", hands, time_called_after=1).games
    assert game.over and not game.by_time
    assert game.final == {"A": 110 + 50 + 100 + 100, "B": 0}  # the game bonus, not the timed one


@pytest.mark.parametrize(
    ("rules", "hands", "called", "hand", "field"),
    [
        ({"preset": "hollywood"}, [gin("A", 20)], 0, None, "time_called_after"),
        ({"preset": "straight"}, [gin("A", 20)], 0, None, "time_called_after"),
        ({"preset": "standard", "knock_limit": 0}, [gin("A", 20)], 1, None, "time_called_after"),
        ({"preset": "standard"}, [gin("A", 20)], 2, None, "time_called_after"),
        ({"preset": "standard"}, [], -1, None, "time_called_after"),
        ({"preset": "standard"}, [], True, None, "time_called_after"),
        ({"preset": "standard"}, [gin("A", 20)], "1", None, "time_called_after"),
        ({"preset": "standard"}, [gin("A", 20), DEAD], 0, 2, "ending"),  # over by time: no more hands
    ],
)
def test_a_time_call_that_cannot_have_happened_is_refused(rules, hands, called, hand, field):
    with pytest.raises(HandError) as refused:
        score_session(resolve_rules(rules), ("A", "B"), "B", hands, time_called_after=called)
    assert (refused.value.hand, refused.value.field) == (hand, field)


RECORD = {
    "rules": {"preset": "standard"},
    "players": ["Ann", "Bob"],
    "first_dealer": "Bob",
    "hands": [{"ending": "knock", "by": "Ann", "knocker_deadwood": 5, "defender_deadwood": 30}],
}


def test_the_time_call_is_a_fact_of_the_record():
    assert evaluate(RECORD)["games"][0]["over"] is False
    game = evaluate({**RECORD, "time_called_after": 0})["games"][0]
    # 25 + 1 box x 25 + 100 game bonus + 100 shutout.
    assert game["over"] and game["ended_by_time"] and game["final"] == {"Ann": 250, "Bob": 0}
    assert parse_record({**RECORD, "time_called_after": 0}).time_called_after == 0
    assert score_record(parse_record({**RECORD, "time_called_after": None})).over is False


def test_a_bad_time_call_in_a_record_is_named_before_the_hands():
    refused = evaluate({**RECORD, "time_called_after": 5, "hands": [{"ending": "gin", "notes": 1}]})
    assert refused["error"] == {"hand": None, "field": "time_called_after"}


def test_a_hand_of_the_wrong_shape_is_named_whatever_the_time_call():
    # Time called after hand 2, hand 2 unreadable: hand 2 is named, not the call.
    late = {**RECORD, "time_called_after": 2, "hands": [*RECORD["hands"], "gin"]}
    assert evaluate(late)["error"] == {"hand": 2, "field": "ending"}
    # The game ended by time on hand 1, so hand 2 is refused before hand 3's shape.
    ended = {**RECORD, "time_called_after": 0, "hands": [*RECORD["hands"], {"ending": "dead"}, "gin"]}
    assert evaluate(ended)["error"] == {"hand": 2, "field": "ending"}
    assert "already over" in evaluate(ended)["message"]


# --- stored games: the time call is a fact, kept, exported and imported (scoring.services) -----------


@pytest.fixture
def ann_bob(db):
    return PlayerFactory(name="Ann"), PlayerFactory(name="Bob")


def _timed_game(ann, bob):
    game = make_game(
        player_one=ann,
        player_two=bob,
        first_dealer=bob,
        hands=[
            {"ending": "knock", "by": ann, "knocker_deadwood": 5, "defender_deadwood": 30},
            {"ending": "gin", "by": bob, "defender_deadwood": 10},
        ],
    )
    services.game_call_time(game=game)
    return game


def test_calling_time_ends_the_game_after_the_hand_in_progress(ann_bob):
    ann, bob = ann_bob
    game = _timed_game(ann, bob)
    game.refresh_from_db()
    assert game.time_called_after == 2 and not game.over and game.next_dealer == ann
    assert FactChange.objects.get(game=game, action="time_called").after.startswith("called after 2 hands")
    services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=2, defender_deadwood=22)
    game.refresh_from_db()
    score = game.scores.get()
    assert game.over and game.winner == ann and game.margin == 135 and game.finished_at is not None
    assert score.by_time and (score.player_one_final, score.player_two_final) == (195, 60)
    with pytest.raises(services.HandRefused) as refused:
        services.hand_record(game=game, ending="dead")
    assert refused.value.field == "ending"


def test_time_cannot_be_called_twice_on_a_finished_game_or_on_hollywood(ann_bob):
    ann, bob = ann_bob
    game = _timed_game(ann, bob)
    with pytest.raises(services.HandRefused) as twice:
        services.game_call_time(game=game)
    assert twice.value.field == "time_called_after" and "already called" in twice.value.message_text
    over = make_game(player_one=ann, player_two=bob, hands=[{"ending": "gin", "by": ann, "defender_deadwood": 80}])
    with pytest.raises(services.HandRefused) as finished:
        services.game_call_time(game=over)
    assert finished.value.field == "time_called_after" and "already over" in finished.value.message_text
    hollywood = make_game(player_one=ann, player_two=bob, rules={"preset": "hollywood"})
    with pytest.raises(services.HandRefused) as sitting:
        services.game_call_time(game=hollywood)
    assert sitting.value.field == "time_called_after"
    hollywood.refresh_from_db()
    over.refresh_from_db()
    assert hollywood.time_called_after is None and over.time_called_after is None  # nothing saved


def test_removing_a_hand_played_before_the_call_moves_the_call_with_it(ann_bob):
    ann, bob = ann_bob
    game = _timed_game(ann, bob)
    services.hand_remove(hand=game.hands.get(number=1))
    game.refresh_from_db()
    assert game.time_called_after == 1 and not game.over  # Bob's gin was recorded when time was called
    services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=2, defender_deadwood=12)
    game.refresh_from_db()
    assert game.over and game.winner == bob and game.scores.get().by_time  # 35 to 10


def test_export_and_import_give_the_same_result(ann_bob):
    ann, bob = ann_bob
    game = _timed_game(ann, bob)
    services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=2, defender_deadwood=22)
    exported = selectors.game_record(selectors.games_for_export().get(pk=game.pk))
    assert exported["time_called_after"] == 2 and exported["expect"]["games"][0]["ended_by_time"] is True
    copy = services.game_import(record=parse_record(exported))
    again = selectors.game_record(selectors.games_for_export().get(pk=copy.pk))
    assert again["time_called_after"] == 2 and again["expect"] == exported["expect"]
    copy = Game.objects.get(pk=copy.pk)
    assert (copy.over, copy.winner_id, copy.margin) == (True, ann.pk, 135) and copy.scores.get().by_time
