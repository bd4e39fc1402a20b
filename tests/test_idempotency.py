"""The Idempotency-Key's store (scoring/idempotency.py): a refusal leaves nothing of its write, however it ends.

A refusal that only read ends its transaction by COMMIT (cheaper for PostgreSQL's prepared statements); one that
wrote, or met a database error on the way, is rolled back whole. Either way its answer is stored and replayed.
"""

from __future__ import annotations

import threading

import psycopg
import pytest
from django.db import DatabaseError, connection, connections, transaction

from players.models import Player
from scoring import writes
from scoring.changes import CHANNEL, notify_season_change
from scoring.idempotency import once
from scoring.models import Game, IdempotentRequest
from tests.factories import UserFactory, make_game

pytestmark = pytest.mark.django_db(transaction=True)


class Refused(Exception):
    """A refusal raised by the write (a hand taken by the other phone, a closed game...)."""


def attempt(user, key: str, perform):
    """``perform`` under ``key``, a refusal answered as (409, its words), as the API's view answers."""
    return once(
        user=user,
        key=key,
        method="POST",
        path="/somewhere/",
        fingerprint="same request",
        perform=perform,
        keep=lambda answer: (answer[0], {"said": answer[1]}),
        on_error=lambda error: (409, str(error)),
        replay=lambda stored: ("replayed", stored.response_status, stored.response_body["said"]),
    )


def wrote_then_refused():
    Player.objects.create(name="Written, then refused")
    raise Refused("refused after a write")


def queued_then_refused():
    with writes.together():  # on PostgreSQL the insert waits to go with the next statement: it never goes
        writes.insert(Player(name="Written, then refused"))
        raise Refused("refused with a write waiting")


def failed_then_refused():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 / 0")
    except DatabaseError:
        pass  # swallowed: on PostgreSQL the transaction is now aborted, and only a rollback ends it
    raise Refused("refused after a failed statement")


SENT = []


def mail_scheduled_then_refused():
    transaction.on_commit(lambda: SENT.append("an e-mail"))  # as players.mail.after_commit schedules one
    raise Refused("refused after scheduling an e-mail")


def read_then_refused(game_pk: int):
    def perform():
        game = Game.objects.select_for_update().get(pk=game_pk)
        raise Refused(f"game {game.pk} refused after a locked read")

    return perform


@pytest.mark.parametrize(
    "perform",
    [wrote_then_refused, queued_then_refused, failed_then_refused, mail_scheduled_then_refused],
    ids=["wrote", "queued", "failed", "mail"],
)
def test_a_refusal_made_after_a_write_or_an_error_leaves_nothing_and_is_replayed(perform):
    user = UserFactory(username="ann")
    SENT.clear()
    answer = attempt(user, "k1", perform)
    assert answer[0] == 409 and "refused" in answer[1]
    assert not Player.objects.filter(name="Written, then refused").exists()
    assert SENT == []  # nothing the refused write scheduled for its commit is done
    assert attempt(user, "k1", perform) == ("replayed", 409, answer[1])


def locked_elsewhere_at_once(game_pk: int) -> bool:
    """Whether another connection (another request's) takes the game's row lock without waiting."""
    taken = []

    def take():
        try:
            with transaction.atomic():
                Game.objects.select_for_update(nowait=True).get(pk=game_pk)
            taken.append(True)
        except DatabaseError:
            taken.append(False)
        finally:
            connections.close_all()

    other = threading.Thread(target=take)
    other.start()
    other.join()
    return taken == [True]


def test_a_refusal_that_only_read_under_a_lock_is_stored_and_lets_the_lock_go():
    user = UserFactory(username="ann")
    game = make_game(created_by=user)
    answer = attempt(user, "k1", read_then_refused(game.pk))
    assert answer == (409, f"game {game.pk} refused after a locked read")
    assert IdempotentRequest.objects.get(user=user, key="k1").response_status == 409
    assert locked_elsewhere_at_once(game.pk)
    assert attempt(user, "k1", read_then_refused(game.pk)) == ("replayed", 409, answer[1])


def test_an_answer_is_stored_with_its_write():
    user = UserFactory(username="ann")

    def perform():
        Player.objects.create(name="Written")
        return 201, "written"

    assert attempt(user, "k1", perform) == (201, "written")
    assert attempt(user, "k1", perform) == ("replayed", 201, "written")
    assert Player.objects.filter(name="Written").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="NOTIFY is PostgreSQL's (SQLite sends nothing)")
def test_a_refusal_after_a_notification_sends_no_notification():
    """``SELECT pg_notify(...)`` reads like a SELECT but tells every live page at the COMMIT: such a refusal rolls
    back, so no screen is told of a change that was not made."""
    settings = connection.settings_dict
    user = UserFactory(username="ann")

    def notified_then_refused():
        notify_season_change(season_id=7)
        raise Refused("refused after telling the live pages")

    with psycopg.connect(
        dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"], port=settings["PORT"] or None,
        password=settings["PASSWORD"] or None, autocommit=True,
    ) as listener:  # fmt: skip
        listener.execute(f"LISTEN {CHANNEL}")
        answer = attempt(user, "k1", notified_then_refused)
        heard = [note.payload for note in listener.notifies(timeout=1.0, stop_after=1)]
        with transaction.atomic():  # the listener does hear a notification that is committed
            notify_season_change(season_id=8)
        heard_after = [note.payload for note in listener.notifies(timeout=5.0, stop_after=1)]
    assert answer == (409, "refused after telling the live pages")
    assert heard == []
    assert heard_after == ["season:8"]
