"""Two phones recording the same hand at the same moment: stored once, never twice.

Each thread is a separate client with its own database connection, released
by a barrier so both requests are in flight together. Meant for PostgreSQL
(row locks); on SQLite the writers are serialised by the database lock and
the outcome must be the same.
"""

import threading

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from players import clubs
from players.tokens import token_create
from scoring import services
from scoring.models import Hand, IdempotentRequest
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="needs PostgreSQL: the SQLite test database is in memory with shared-cache table locks, which "
        "fail at once instead of waiting (the real file database waits); run with DATABASE_URL=postgres://...",
    ),
]


@pytest.fixture
def table():
    ann_user, bob_user = UserFactory(username="ann-phone"), UserFactory(username="bob-phone")
    ann, bob = PlayerFactory(name="Ann", user=ann_user), PlayerFactory(name="Bob", user=bob_user)
    # Club mates, so Ann may start a game on Bob's record (docs: "Who can record what").
    club = clubs.club_create(name="Kitchen Table", owner=ann_user)
    clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=ann_user), user=bob_user)
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=ann_user)
    return {
        "game": game,
        "ann": ann,
        "bob": bob,
        "tokens": {"ann": token_create(user=ann_user).key, "bob": token_create(user=bob_user).key},
    }


def post_together(requests):
    """Send each (token, body, headers) from its own thread at the same moment; return the responses."""
    barrier = threading.Barrier(len(requests))
    responses = [None] * len(requests)
    errors = []

    def send(index, token, path, body, headers):
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait(timeout=10)
            responses[index] = client.post(path, body, format="json", **headers)
        except Exception as error:  # surfaced below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(index, *request)) for index, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return responses


def test_two_phones_record_the_same_hand_number_once(table):
    game = table["game"]
    path = f"/api/games/{game.pk}/hands/"
    ann_gin = {"ending": "gin", "by": table["ann"].pk, "defender_deadwood": 30, "number": 1}
    bob_knock = {"ending": "knock", "by": table["bob"].pk, "knocker_deadwood": 4, "defender_deadwood": 20, "number": 1}
    responses = post_together(
        [(table["tokens"]["ann"], path, ann_gin, {}), (table["tokens"]["bob"], path, bob_knock, {})]
    )
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201, 409], [response.content for response in responses]
    refused = next(response for response in responses if response.status_code == 409).json()
    assert (refused["field"], refused["hand"]) == ("number", 1)
    stored = list(Hand.objects.filter(game=game))
    assert len(stored) == 1 and stored[0].number == 1
    # The stored hand is the one the 201 reported, and the game's figures follow it alone.
    accepted = next(response for response in responses if response.status_code == 201).json()
    assert stored[0].pk == accepted["hand"]["id"]
    game.refresh_from_db()
    assert game.hand_count == 1
    connection.close()


def test_one_phone_retrying_with_the_same_key_records_once(table):
    game = table["game"]
    path = f"/api/games/{game.pk}/hands/"
    body = {"ending": "knock", "by": table["ann"].pk, "knocker_deadwood": 2, "defender_deadwood": 40}
    headers = {"HTTP_IDEMPOTENCY_KEY": "ann-phone-hand-1"}
    token = table["tokens"]["ann"]
    responses = post_together([(token, path, body, headers), (token, path, body, headers)])
    assert [response.status_code for response in responses] == [201, 201], [r.content for r in responses]
    assert responses[0].json() == responses[1].json()
    replayed = [response.headers.get("Idempotent-Replayed") for response in responses]
    assert sorted(str(header) for header in replayed) == ["None", "true"]  # one wrote, one replayed
    assert Hand.objects.filter(game=game).count() == 1
    assert IdempotentRequest.objects.filter(key="ann-phone-hand-1").count() == 1
    connection.close()


def test_a_hand_that_waited_for_the_lock_is_written_after_the_hand_that_held_it(table):
    """The locked read and the hands' read go to PostgreSQL together: the hands must still be read as the lock's
    new holder sees them, the hand committed while it waited included (hand 2, not a second hand 1)."""
    game, ann, bob = table["game"], table["ann"], table["bob"]
    holding, release, errors = threading.Event(), threading.Event(), []

    def first_phone():
        try:
            with transaction.atomic():
                services.hand_record(
                    game=game.pk, ending="knock", by=ann.pk, knocker_deadwood=4, defender_deadwood=20, recorded_by=None
                )
                holding.set()
                release.wait(timeout=30)
        except Exception as error:  # surfaced below
            errors.append(error)
        finally:
            holding.set()
            connections.close_all()

    holder = threading.Thread(target=first_phone)
    holder.start()
    assert holding.wait(timeout=30)
    bob_gin = {"ending": "gin", "by": bob.pk, "defender_deadwood": 12}
    responses = []

    def second_phone():
        responses.extend(post_together([(table["tokens"]["bob"], f"/api/games/{game.pk}/hands/", bob_gin, {})]))

    second = threading.Thread(target=second_phone)
    second.start()
    with connection.cursor() as cursor:  # until the second phone's request waits for the game's lock
        for _ in range(3000):
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                break
            threading.Event().wait(0.01)
    release.set()
    holder.join(timeout=60)
    second.join(timeout=60)
    assert not errors, errors
    (response,) = responses
    assert response.status_code == 201, response.content
    assert response.json()["hand"]["number"] == 2
    assert [(hand.number, hand.ending) for hand in Hand.objects.filter(game=game).order_by("number")] == [
        (1, "knock"),
        (2, "gin"),
    ]
    game.refresh_from_db()
    assert game.hand_count == 2
    connection.close()
