"""Writes through the service functions: derived figures follow every fact change."""

import pytest
from django.db import IntegrityError, transaction

from scoring import services
from scoring.models import Game, GameScore, Hand
from scoring.services import HandConflict, HandRefused
from tests.factories import PlayerFactory, make_game

pytestmark = pytest.mark.django_db


def snapshot(game):
    """Everything stored about a game, facts and derived figures."""
    game = Game.objects.get(pk=game.pk)
    hands = list(Hand.objects.filter(game=game).order_by("number").values())
    scores = list(GameScore.objects.filter(game=game).order_by("number").values())
    for row in hands:
        row.pop("updated_at")
    fields = ("over", "winner_id", "margin", "next_dealer_id", "hand_count", "finished_at")
    return [getattr(game, name) for name in fields], hands, scores


def test_record_hands_to_game_over():
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob)
    services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=7, defender_deadwood=20)
    assert game.next_dealer_id == bob.pk and not game.over
    services.hand_record(game=game, ending="gin", by=ann, defender_deadwood=80)
    game.refresh_from_db()
    assert game.over and game.winner == ann and game.next_dealer is None
    score = game.scores.get()
    assert (score.player_one_hand_points, score.player_two_hand_points) == (13 + 105, 0)
    # 118 + 2 boxes x 25 + game 100 + shutout 100
    assert (score.player_one_final, score.player_two_final, score.margin) == (368, 0, 368)
    assert game.margin == 368 and game.finished_at is not None


def test_refused_hand_changes_nothing():
    game = make_game()
    ann = game.player_one
    services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=3, defender_deadwood=10)
    before = snapshot(game)
    for facts, field in [
        ({"ending": "knock", "by": ann, "knocker_deadwood": 11, "defender_deadwood": 20}, "knocker_deadwood"),
        ({"ending": "knock", "by": ann, "knocker_deadwood": 3, "defender_deadwood": 99}, "defender_deadwood"),
        ({"ending": "knock", "by": PlayerFactory(), "knocker_deadwood": 3, "defender_deadwood": 9}, "by"),
        ({"ending": "flop", "by": ann}, "ending"),
    ]:
        with pytest.raises(HandRefused) as refused:
            services.hand_record(game=game, **facts)
        assert refused.value.field == field
        assert snapshot(game) == before


def test_hand_after_game_over_is_refused():
    game = make_game()
    services.hand_record(game=game, ending="gin", by=game.player_one, defender_deadwood=80)
    before = snapshot(game)
    with pytest.raises(HandRefused) as refused:
        services.hand_record(game=game, ending="dead")
    assert refused.value.field == "ending" and "over" in refused.value.message_text
    assert snapshot(game) == before


def test_edit_an_earlier_hand_recomputes_everything_after_it():
    game = make_game()
    ann, bob = game.players
    first = services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=5, defender_deadwood=15)
    services.hand_record(game=game, ending="knock", by=bob, knocker_deadwood=2, defender_deadwood=12)
    # Ann knocked and won hand 1, so Bob (loser) dealt hand 2.
    assert Hand.objects.get(game=game, number=2).dealer == bob
    changes = services.hand_edit(hand=first, ending="knock", by=ann, knocker_deadwood=5, defender_deadwood=3)
    hands = list(game.hands.order_by("number"))
    assert (hands[0].result, hands[0].winner, hands[0].points) == ("undercut", bob, 27)
    assert hands[1].dealer == ann  # Ann now lost hand 1, so she dealt hand 2
    assert game.scores.get().player_two_hand_points == 27 + 10
    assert [change.what for change in changes] == ["Hand 1"]
    assert changes[0].before == f"{ann.name} knock 10" and changes[0].after == f"{bob.name} undercut 27"


def test_edit_that_would_orphan_later_hands_is_refused():
    game = make_game()
    ann, bob = game.players
    first = services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=5, defender_deadwood=15)
    services.hand_record(game=game, ending="knock", by=bob, knocker_deadwood=2, defender_deadwood=12)
    before = snapshot(game)
    with pytest.raises(HandRefused) as refused:  # a 125-point gin would end the game before hand 2
        services.hand_edit(hand=first, ending="gin", by=ann, defender_deadwood=98)
    assert (refused.value.hand, refused.value.field) == (2, "ending")
    assert snapshot(game) == before


def test_remove_a_middle_hand_renumbers_and_recomputes():
    game = make_game()
    ann, bob = game.players
    services.hand_record(game=game, ending="knock", by=ann, knocker_deadwood=5, defender_deadwood=15)
    middle = services.hand_record(game=game, ending="dead")
    services.hand_record(game=game, ending="gin", by=bob, defender_deadwood=10)
    services.hand_remove(hand=middle)
    assert list(game.hands.values_list("number", "result")) == [(1, "knock"), (2, "gin")]
    game.refresh_from_db()
    assert game.hand_count == 2
    score = game.scores.get()
    assert (score.player_one_hand_points, score.player_two_hand_points) == (10, 35)


def test_undo_last_hand_reopens_a_finished_game():
    game = make_game()
    services.hand_record(game=game, ending="gin", by=game.player_one, defender_deadwood=80)
    assert game.over
    removed = services.hand_remove_last(game=game)
    assert removed.result == "gin"
    game.refresh_from_db()
    assert not game.over and game.winner is None and game.finished_at is None and game.hand_count == 0
    assert game.next_dealer == game.first_dealer
    with pytest.raises(HandRefused):
        services.hand_remove_last(game=game)


def test_expected_number_refuses_a_second_phone():
    game = make_game()
    services.hand_record(game=game, ending="dead", expected_number=1)
    with pytest.raises(HandConflict):
        services.hand_record(game=game, ending="dead", expected_number=1)
    assert game.hands.count() == 1


def test_game_create_validates_rules_and_players():
    ann, bob = PlayerFactory(), PlayerFactory()
    with pytest.raises(HandRefused) as refused:
        services.game_create(player_one=ann, player_two=bob, first_dealer=ann, rules={"preset": "x"})
    assert refused.value.field == "preset"
    with pytest.raises(HandRefused) as refused:
        services.game_create(player_one=ann, player_two=ann, first_dealer=ann)
    assert refused.value.field == "player_two"
    assert Game.objects.count() == 0


def test_rules_are_stored_resolved():
    game = make_game(rules={"preset": "classic", "undercut_bonus": 25})
    assert game.rules["gin_bonus"] == 20 and game.rules["undercut_bonus"] == 25
    assert game.rules["box_bonus"] == 20 and game.preset == "classic"


def test_database_constraints_back_the_invariants():
    game = make_game()
    hand = services.hand_record(game=game, ending="dead")
    ann = game.player_one
    for bad in [
        {"number": hand.number},  # duplicate hand number
        {"number": 2, "defender_deadwood": 99, "ending": "gin", "by": ann},
        {"number": 2, "knocker_deadwood": 11, "ending": "knock", "by": ann, "defender_deadwood": 3},
        {"number": 2, "ending": "gin"},  # a gin with nobody going out
    ]:
        values = {"game": game, "ending": "dead", "dealer": ann, "result": "dead", **bad}
        with pytest.raises(IntegrityError), transaction.atomic():
            Hand.objects.create(**values)
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(player_one=ann, player_two=ann, first_dealer=ann, preset="standard", rules={})
