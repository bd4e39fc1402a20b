"""Partnership games stored (issue #41): four players, boards recorded one at a time, deals settled,
corrections and removals of a board, and the sheet's selector, against the engine's figures."""

import io
import json

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from scoring.models import Deal, FactChange, Game, GameScore, Hand
from scoring.selectors import partnership_game, partnership_sheet
from scoring.services import (
    HandConflict,
    HandRefused,
    board_preview,
    board_record,
    game_create,
    hand_edit,
    hand_edit_preview,
    hand_record,
    hand_remove,
    hand_remove_last,
)
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def four():
    return [PlayerFactory(name=name) for name in ("Ann", "Bob", "Cat", "Dan")]


def partnership(four, first_dealer=None, **rules):
    ann, bob, cat, dan = four
    return game_create(
        player_one=ann,
        player_two=bob,
        player_three=cat,
        player_four=dan,
        first_dealer=first_dealer or bob,
        rules={"preset": "partnership", **rules},
    )


def knock(game, board, by, knocker, defender, **more):
    return board_record(
        game=game, board=board, ending="knock", by=by, knocker_deadwood=knocker, defender_deadwood=defender, **more
    )


def test_a_partnership_game_stores_four_players_in_two_sides(four):
    ann, bob, cat, dan = four
    game = partnership(four)
    game.refresh_from_db()
    assert (game.player_three, game.player_four) == (cat, dan)
    assert game.is_partnership and game.player_ids == (ann.pk, bob.pk, cat.pk, dan.pk)
    assert game.next_dealer == bob  # Bob's side (Bob & Dan) deals the first deal
    score = game.scores.get()
    assert (score.player_one_hand_points, score.player_two_hand_points) == (0, 0)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"player_three": None}, "player_three"),
        ({"player_four": None}, "player_four"),
        ({"player_three": "ann"}, "player_three"),
        ({"player_four": "cat"}, "player_four"),
        ({"first_dealer": "eve"}, "first_dealer"),
    ],
)
def test_a_partnership_game_needs_four_different_players_naming_the_field(four, change, field):
    ann, bob, cat, dan = four
    eve = PlayerFactory(name="Eve")
    named = {"ann": ann, "cat": cat, "eve": eve}
    seats = {"player_one": ann, "player_two": bob, "player_three": cat, "player_four": dan, "first_dealer": bob}
    seats.update({key: named.get(value, value) for key, value in change.items()})
    with pytest.raises(HandRefused) as refused:
        game_create(rules={"preset": "partnership"}, **seats)
    assert refused.value.field == field
    assert not Game.objects.exists()


def test_two_handed_rules_refuse_a_third_player(four):
    ann, bob, cat, _dan = four
    with pytest.raises(HandRefused) as refused:
        game_create(player_one=ann, player_two=bob, player_three=cat, first_dealer=ann, rules={"preset": "standard"})
    assert refused.value.field == "player_three"


def test_the_database_refuses_one_partner_without_the_other(four):
    ann, bob, cat, _dan = four
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(player_one=ann, player_two=bob, player_three=cat, first_dealer=ann, preset="x", rules={})


def test_boards_are_recorded_one_at_a_time_and_the_deal_settles_on_the_second(four):
    ann, bob, cat, dan = four
    game = partnership(four)
    first = knock(game, 2, cat, 3, 15, deal=1)  # board 2 finishes first
    assert (first.number, first.board, first.winner, first.points, first.dealer) == (1, 2, cat, 12, dan)
    deal = Deal.objects.get(game=game)
    assert (deal.settled, deal.winner, deal.points) == (False, None, 0)
    game.refresh_from_db()
    assert game.next_dealer == bob  # the deal waits for board 1: Bob & Dan still deal
    second = knock(game, 1, ann, 4, 20)
    assert (second.number, second.board, second.winner, second.points, second.dealer) == (1, 1, ann, 16, bob)
    deal.refresh_from_db()
    assert (deal.settled, deal.winner, deal.points, deal.dealer) == (True, ann, 28, bob)
    game.refresh_from_db()
    score = game.scores.get()
    assert (score.player_one_hand_points, score.player_two_hand_points) == (28, 0)
    assert (score.player_one_boxes, score.player_two_boxes) == (1, 0)
    assert game.next_dealer == bob  # the losing side (Bob & Dan) deals next
    assert game.hand_count == 2  # boards recorded


def test_a_board_already_in_or_a_deal_not_yet_playable_is_refused_as_a_conflict(four):
    ann, _bob, _cat, dan = four
    game = partnership(four)
    knock(game, 1, ann, 4, 20, deal=1)
    with pytest.raises(HandConflict) as twice:  # the other phone's copy of board 1
        knock(game, 1, ann, 4, 20, deal=1)
    assert (twice.value.field, twice.value.hand, twice.value.board) == ("number", 1, 1)
    with pytest.raises(HandConflict) as early:  # deal 2's dealer depends on deal 1's result
        knock(game, 1, ann, 4, 20, deal=2)
    assert (early.value.field, early.value.hand, early.value.board) == ("number", 2, 1)
    assert "both boards of hand 1" in early.value.message_text
    knock(game, 2, dan, 2, 10)  # deal=None: the open deal
    with pytest.raises(HandConflict) as ahead:
        knock(game, 2, dan, 2, 10, deal=5)
    assert "next hand is hand 2" in ahead.value.message_text
    assert Hand.objects.filter(game=game).count() == 2


def test_a_board_refusal_names_the_deal_the_board_and_the_field(four):
    ann, bob, cat, dan = four
    game = partnership(four)
    with pytest.raises(HandRefused) as refused:
        knock(game, 2, ann, 3, 15)  # Ann plays on board 1, not 2
    assert (refused.value.hand, refused.value.board, refused.value.field) == (1, 2, "by")
    with pytest.raises(HandRefused) as refused:
        knock(game, 1, ann, 12, 15)
    assert (refused.value.hand, refused.value.board, refused.value.field) == (1, 1, "knocker_deadwood")
    with pytest.raises(HandRefused) as refused:
        board_record(game=game, board=3, ending="dead")
    assert refused.value.field == "board"
    assert not Hand.objects.exists()


def test_two_handed_services_refuse_the_wrong_kind_of_game(four):
    ann, bob, _cat, _dan = four
    game = partnership(four)
    with pytest.raises(HandRefused) as refused:
        hand_record(game=game, ending="dead")
    assert refused.value.field == "board"
    two = game_create(player_one=ann, player_two=bob, first_dealer=ann)
    with pytest.raises(HandRefused) as refused:
        board_record(game=two, board=1, ending="dead")
    assert refused.value.field == "board"


def test_the_game_ends_when_a_side_reaches_125_with_the_end_bonuses(four):
    ann, bob, cat, dan = four
    game = partnership(four)
    for _deal in range(3):  # Ann & Cat gin on both boards: 2 x (25 + 20) = 90 a deal
        board_record(game=game, board=1, ending="gin", by=ann, defender_deadwood=20)
        board_record(game=game, board=2, ending="gin", by=cat, defender_deadwood=20)
        game.refresh_from_db()
        if game.over:
            break
    game.refresh_from_db()
    assert game.over and game.winner == ann and game.next_dealer is None
    score = game.scores.get()
    assert score.over and score.winner == ann and score.player_one_final > 125
    assert score.player_two_final == 0
    with pytest.raises(HandRefused) as refused:
        board_record(game=game, board=1, ending="dead")
    assert refused.value.field in ("boards", "number")


def test_a_board_is_corrected_with_a_preview_a_reason_and_history(four, user):
    ann, bob, cat, dan = four
    game = partnership(four)
    board_one = knock(game, 1, ann, 4, 20)
    knock(game, 2, cat, 3, 15)
    board_one = Hand.objects.get(pk=board_one.pk)
    derived, changes = hand_edit_preview(
        hand=board_one, ending="knock", by=bob, knocker_deadwood=2, defender_deadwood=30
    )
    assert (derived.winner, derived.points) == (bob.pk, 28)
    said = {change.what: (change.before, change.after) for change in changes}
    assert said["Deal 1"] == ("Ann & Cat 28", "Bob & Dan 16")
    assert said["Ann & Cat"] == ("28", "0") and said["Bob & Dan"] == ("0", "16")
    assert not Hand.objects.filter(by=bob).exists()  # a preview stores nothing
    changes = hand_edit(
        hand=board_one, ending="knock", by=bob, knocker_deadwood=2, defender_deadwood=30, edited_by=user, reason="typo"
    )
    assert any(change.what == "Deal 1" for change in changes)
    deal = Deal.objects.get(game=game)
    assert (deal.winner, deal.points) == (bob, 16)
    lines = FactChange.objects.filter(game=game, action="hand_edited")
    assert {line.what for line in lines} >= {"Hand 1, board 1 went out"}
    assert {line.comment for line in lines} == {"typo"}
    score = GameScore.objects.get(game=game)
    assert (score.player_one_hand_points, score.player_two_hand_points) == (0, 16)


def test_a_correction_the_rules_refuse_names_the_board_and_saves_nothing(four):
    ann, _bob, cat, _dan = four
    game = partnership(four)
    board_one = knock(game, 1, ann, 4, 20)
    with pytest.raises(HandRefused) as refused:
        hand_edit(hand=board_one, ending="knock", by=cat, knocker_deadwood=4, defender_deadwood=20)
    assert (refused.value.hand, refused.value.board, refused.value.field) == (1, 1, "by")
    assert Hand.objects.get(pk=board_one.pk).by == ann


def test_removing_boards(four):
    ann, bob, cat, dan = four
    game = partnership(four)
    knock(game, 1, ann, 4, 20)
    knock(game, 2, cat, 3, 15)
    knock(game, 1, bob, 2, 12)
    knock(game, 2, dan, 1, 11)
    knock(game, 1, ann, 5, 9)  # deal 3 waits for board 2
    deal_one_board_two = Hand.objects.get(game=game, number=1, board=2)
    with pytest.raises(HandRefused) as refused:  # deal 1 would be left with one board before deal 2
        hand_remove(hand=deal_one_board_two)
    assert (refused.value.hand, refused.value.field) == (1, "boards")
    removed = hand_remove_last(game=game)  # undo: the board recorded last
    assert (removed.number, removed.board) == (3, 1)
    assert Deal.objects.filter(game=game).count() == 2
    game.refresh_from_db()
    for hand in Hand.objects.filter(game=game, number=2):  # a whole deal's two boards: later deals move up
        hand_remove(hand=hand, reason="not played")
    assert list(Hand.objects.filter(game=game).values_list("number", "board")) == [(1, 1), (1, 2)]
    assert list(Deal.objects.filter(game=game).values_list("number", "settled")) == [(1, True)]
    assert FactChange.objects.filter(game=game, action="hand_removed").count() == 3


def test_a_board_of_an_earlier_deal_is_corrected_not_removed(four):
    ann, _bob, cat, _dan = four
    game = partnership(four)
    for _deal in range(3):
        knock(game, 1, ann, 4, 20)
        knock(game, 2, cat, 3, 15)
    board_two = Hand.objects.get(game=game, number=2, board=2)
    with pytest.raises(HandRefused) as refused:  # deal 2 would keep one board while deal 3 has two
        hand_remove(hand=board_two)
    assert (refused.value.hand, refused.value.board, refused.value.field) == (2, None, "boards")
    assert Hand.objects.filter(game=game).count() == 6
    assert not FactChange.objects.filter(game=game).exists()


def test_the_selector_says_what_the_sheet_shows(four):
    ann, bob, cat, dan = four
    game = partnership(four, partner_opponents="alternate")
    knock(game, 1, ann, 4, 20)
    knock(game, 2, cat, 3, 15)
    knock(game, 2, bob, 2, 10)  # deal 2 (alternate: board 2 is Cat v Bob)
    sheet = partnership_sheet(partnership_game(pk=game.pk))
    one, two = sheet.sides
    assert (one.name, one.points, one.boxes, one.needs) == ("Ann & Cat", 28, 1, 97)
    assert (two.name, two.points, two.boxes, two.needs) == ("Bob & Dan", 0, 0, 125)
    first, second = sheet.deals
    assert first.settled and first.winner == one and first.points == 28 and first.dealer == two
    assert [board.dealer for board in first.boards] == [bob, dan]
    assert [board.players for board in second.boards] == [(ann, dan), (cat, bob)]
    assert second.dealer == two and [board.dealer for board in second.boards] == [dan, bob]
    assert sheet.open_deal == second and second.waiting == (1,) and not second.settled
    assert second.boards[1].hand.winner == bob and second.boards[0].hand is None
    assert sheet.next_dealer == two and not sheet.over
    knock(game, 1, ann, 1, 30)
    sheet = partnership_sheet(partnership_game(pk=game.pk))
    assert sheet.deals[1].settled and sheet.open_deal.number == 3 and sheet.open_deal.waiting == (1, 2)
    assert len(sheet.deals) == 3 and sheet.open_deal.boards[0].players == (ann, bob)


def test_board_preview_scores_without_storing(four):
    ann, *_ = four
    game = partnership(four)
    result = board_preview(game=game, board=1, ending="gin", by=ann, defender_deadwood=10)
    assert (result.winner, result.points, result.result) == (ann.pk, 35, "gin")
    assert not Hand.objects.exists()


@pytest.mark.django_db(transaction=True)  # flush and restore commit, as on a server
def test_a_backup_restores_a_partnership_game_mid_deal_with_its_figures(four, tmp_path):
    ann, bob, cat, dan = four
    game = partnership(four)
    knock(game, 1, ann, 4, 20)
    knock(game, 2, cat, 3, 15)
    knock(game, 2, dan, 1, 11)  # deal 2 waits for board 1
    hands_before = list(Hand.objects.order_by("pk").values())
    deals_before = list(Deal.objects.order_by("number").values_list("number", "dealer", "winner", "points", "settled"))
    path = tmp_path / "backup.json"
    call_command("backup", str(path))
    assert "scoring.deal" not in {row["model"] for row in json.loads(path.read_text())["objects"]}  # derived
    call_command("flush", interactive=False, verbosity=0)
    said = io.StringIO()
    call_command("restore", str(path), stdout=said)
    assert "corrected" not in said.getvalue()
    assert list(Hand.objects.order_by("pk").values()) == hands_before
    assert (
        list(Deal.objects.order_by("number").values_list("number", "dealer", "winner", "points", "settled"))
        == deals_before
    )
    restored = Game.objects.get()
    assert (restored.player_three_id, restored.player_four_id) == (cat.pk, dan.pk)
    knock(restored, 1, bob, 2, 12)  # play goes on
