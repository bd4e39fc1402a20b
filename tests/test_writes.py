"""The rows a hand POST writes by statements built once (scoring/writes.py) are stored as the ORM stores them."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from scoring import writes
from scoring.models import GameScore, Hand, IdempotentRequest
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db

KNOCK = {"ending": "knock", "knocker_deadwood": 4, "defender_deadwood": 22}


def stored(row) -> dict:
    return {field.attname: getattr(row, field.attname) for field in row._meta.concrete_fields}


def test_an_inserted_row_reads_back_as_written_with_its_id_and_stamps():
    user = UserFactory()
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, created_by=user, hands=[{**KNOCK, "by": ann}])
    first = game.hands.get()
    hand = Hand(game=game, number=2, cards={"melds": ["7S 8S 9S"]}, recorded_by=user, **{
        name: getattr(first, name)
        for name in ("ending", "by_id", "knocker_deadwood", "defender_deadwood", "upcard", "dealer_id", "result",
                     "winner_id", "points", "boxes", "doubled", "scored_in")
    })  # fmt: skip
    assert writes.insert(hand) is hand
    assert hand.pk is not None and not hand._state.adding and hand.created_at and hand.updated_at
    assert stored(Hand.objects.get(pk=hand.pk)) == stored(hand)
    body = {"hand": {"id": hand.pk}, "message": "Ünïcode"}
    kept = writes.insert(IdempotentRequest(user=user, key="k", method="POST", path="/p/", request_hash="h",
                                           response_status=201, response_body=body))  # fmt: skip
    assert IdempotentRequest.objects.get(pk=kept.pk).response_body == body


def test_a_second_row_with_a_used_key_is_refused_as_the_orm_refuses_it():
    """Two phones' copies of one hand: the unique (game, number) refuses the second (409 upstream)."""
    game = make_game(hands=[{"ending": "dead"}])
    copy = Hand(game=game, number=1, ending="dead", dealer_id=game.player_one_id, result="dead")
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.insert(copy)
    with pytest.raises(ValueError):
        writes.insert(game.hands.get())  # a stored row is not inserted again


def test_an_upsert_overwrites_the_rows_that_exist_and_adds_the_others():
    game = make_game()
    GameScore.objects.filter(game=game).delete()
    old = GameScore.objects.create(game=game, number=1, player_one_hand_points=5)
    rows = [GameScore(game=game, number=1, player_one_hand_points=40), GameScore(game=game, number=2, over=True)]
    writes.upsert(rows, unique_fields=["game", "number"], update_fields=["player_one_hand_points", "over"])
    assert rows[0].pk == old.pk and rows[1].pk not in (None, old.pk)
    assert [stored(row) for row in GameScore.objects.filter(game=game).order_by("number")] == [
        stored(row) for row in rows
    ]


def hand_after(game, number: int, **facts) -> Hand:
    first = game.hands.order_by("number").first()
    return Hand(game=game, number=number, dealer_id=first.dealer_id, result=first.result, **facts)


def test_writes_made_together_are_stored_with_their_ids_when_it_ends(round_trips):
    """A hand POST's writes wait inside together() and go to PostgreSQL in one round trip."""
    game = make_game(hands=[{"ending": "dead"}])
    GameScore.objects.filter(game=game).delete()
    second = hand_after(game, 2, ending="dead")
    with transaction.atomic():
        with round_trips() as trips, writes.together():
            hand = writes.insert(second)
            (score,) = writes.upsert(
                [GameScore(game=game, number=1, player_one_hand_points=25)],
                unique_fields=["game", "number"],
                update_fields=["player_one_hand_points"],
            )
        assert hand.pk is not None and score.pk is not None
    assert stored(Hand.objects.get(pk=hand.pk)) == stored(hand)
    assert stored(GameScore.objects.get(game=game)) == stored(score)
    assert len(trips) == (1 if writes.sends_statements_together(connection) else 2), trips


def test_a_statement_run_inside_together_comes_after_the_writes_made_before_it():
    game = make_game(hands=[{"ending": "dead"}])
    with transaction.atomic(), writes.together():
        hand = writes.insert(hand_after(game, 2, ending="dead"))
        assert Hand.objects.filter(game=game).count() == 2  # the insert went first
        assert hand.pk is not None


def test_a_refused_write_made_together_is_refused_when_sent_and_nothing_is_stored():
    game = make_game(hands=[{"ending": "dead"}])
    with pytest.raises(IntegrityError), transaction.atomic(), writes.together():
        writes.insert(hand_after(game, 3, ending="dead"))
        writes.insert(hand_after(game, 1, ending="dead"))  # hand 1 is stored: refused
    assert list(Hand.objects.filter(game=game).values_list("number", flat=True)) == [1]
