"""A lost database connection (a restart, a failover) answers 503 with Retry-After, and the app recovers.

The app's PostgreSQL connections are cut the way a failover or a database
restart cuts them: ``pg_terminate_backend`` from a second connection, between
two requests and in the middle of one. The answer is a clean, retryable 503
(JSON under /api/, a page in the site's layout elsewhere), never a 500 or a
traceback; nothing is half-saved; the next request works without a restart.
"""

from __future__ import annotations

import contextlib
import threading

import psycopg
import pytest
from django.conf import settings
from django.db import DatabaseError, connection
from django.test import Client
from django.urls import reverse
from psycopg_pool import PoolTimeout
from rest_framework.test import APIClient

from players.tokens import token_create
from scoring import services
from scoring.models import Hand
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="needs PostgreSQL: cutting the app's connections uses pg_terminate_backend "
        "(SQLite has no server connection to lose); .ci/run's PostgreSQL pass runs it",
    ),
]

KNOCK = {"ending": "knock", "knocker_deadwood": 4, "defender_deadwood": 22}


def terminate_app_connections() -> int:
    """Cut every connection to the test database but the one doing the cutting (as a failover does)."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as killer:
        rows = killer.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


@pytest.fixture
def table():
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    return user, game


def api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


def assert_retryable_api_answer(response):
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    body = response.json()
    assert set(body) == {"field", "message", "hand"}
    assert "again" in body["message"]


def test_api_answers_503_when_the_connection_was_cut_between_requests_then_recovers(table):
    user, game = table
    client = api_client(user)
    assert client.get(f"/api/games/{game.pk}/").status_code == 200
    assert terminate_app_connections() >= 1

    cut = client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one_id}, format="json")

    assert_retryable_api_answer(cut)
    again = client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one_id}, format="json")
    assert again.status_code == 201
    assert Hand.objects.filter(game=game).count() == 1


def test_api_answers_503_when_the_connection_is_cut_during_a_write(table, monkeypatch):
    user, game = table
    client = api_client(user)
    record = services.hand_record
    cuts = []

    def record_after_a_failover(**kwargs):
        if not cuts:  # the first save loses its connection half-way
            cuts.append(terminate_app_connections())
        return record(**kwargs)

    monkeypatch.setattr(services, "hand_record", record_after_a_failover)
    body = {**KNOCK, "by": game.player_one_id, "number": 1}

    cut = client.post(f"/api/games/{game.pk}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")

    assert_retryable_api_answer(cut)
    assert Hand.objects.filter(game=game).count() == 0  # nothing half-saved
    retried = client.post(f"/api/games/{game.pk}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert retried.status_code == 201  # the key was not spent on the failed attempt
    assert Hand.objects.filter(game=game).count() == 1


def test_page_answers_a_friendly_503_in_the_site_layout_then_recovers(table):
    user, game = table
    client = Client()
    client.force_login(user)
    assert client.get(reverse("game", args=[game.pk])).status_code == 200
    terminate_app_connections()

    cut = client.post(
        reverse("hand_submit", args=[game.pk]), {"action": "save", "expected_number": 1, "by": game.player_one_id,
                                                 **KNOCK},  # fmt: skip
    )

    assert cut.status_code == 503
    assert cut["Retry-After"].isdigit()
    page = cut.content.decode()
    assert "Try again in a moment" in page and "<nav" in page  # the site's layout, not a bare error
    assert "Traceback" not in page and "OperationalError" not in page
    assert client.get(reverse("game", args=[game.pk])).status_code == 200


def test_a_page_read_that_loses_the_connection_is_a_503_too(table):
    """The first query is the session's (signed in): lost there, the answer is still a 503."""
    user, game = table
    client = Client(raise_request_exception=False)
    client.force_login(user)
    client.get(reverse("game", args=[game.pk]))
    terminate_app_connections()

    cut = client.get(reverse("game", args=[game.pk]))

    assert cut.status_code == 503
    assert cut["Retry-After"].isdigit()
    assert client.get(reverse("game", args=[game.pk])).status_code == 200


def test_after_a_restart_a_full_pool_lends_a_new_connection_at_once(table):
    """Every idle connection of the pool died with the restart. The pool tries them one by one and
    waits longer after each (0, 1, 2, 4 s...): with its eight idle ones dead, the first request of
    the server process waited past the pool's 10 s and failed. The first dead one found now weeds
    out the rest, and the request is served by a new connection."""
    user, game = table
    pool = connection.pool
    if pool is None:
        pytest.skip("DATABASE_POOL=off: no pool to empty")
    # Opened as Django opens it before lending its first connection: the pool this process made before the
    # session's test database was set up was closed then, and its successor is made unopened on first mention.
    pool.open()
    borrowed = []
    with contextlib.suppress(PoolTimeout):  # every connection the pool may open (this thread holds one)
        while True:
            borrowed.append(pool.getconn(timeout=0.5))
    for pooled in borrowed:
        pool.putconn(pooled)
    # Every idle connection of the pool is about to die. The old pool checked them one by one, at about
    # 0, 0, 1, 3 and 7 s (psycopg_pool's backoff), then waited out its 10 s timeout: with six or more
    # dead it failed the request. Six of the seven (all but this thread's) leave room for one that
    # another thread of this process still holds.
    assert len(borrowed) == pool.get_stats()["pool_available"] >= 6
    terminate_app_connections()
    with contextlib.suppress(DatabaseError):
        connection.close()  # this thread's own connection died too

    answers = []

    def a_request_in_its_own_thread():  # as a server thread would: a connection borrowed from the pool
        client = Client()
        client.force_login(user)
        answers.append(client.get(reverse("game", args=[game.pk])).status_code)
        connection.close()

    request = threading.Thread(target=a_request_in_its_own_thread)
    request.start()
    request.join()
    assert answers == [200]
