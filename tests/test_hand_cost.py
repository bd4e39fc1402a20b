"""A hand is cheap to record: few queries and one rule-set resolution per request.

A club night has every table saving at once; each hand POST (API, HTMX form,
preview) must read the game once and resolve its rules once. The query counts
are taken outside a test transaction (``transactional_db``), as in production,
where a request's outermost transaction issues no SAVEPOINT statements; they
include the transaction's BEGIN and COMMIT (SQLite: 8 statements + 2; PostgreSQL sends the locked read
and the hands' read in one round trip, and the hand's three writes in another, each statement counted).
"""

from __future__ import annotations

import re
import sys
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_init
from django.db.transaction import TransactionManagementError
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from players.tokens import token_create
from scoring.engine import rules as engine_rules
from scoring.models import Game, Hand
from scoring.selectors import game_for_update, hands_in_order
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db(transaction=True)

KNOCK = {"ending": "knock", "knocker_deadwood": 4, "defender_deadwood": 22}
HAND_POST_MAX_QUERIES = 10  # the game's figures and the commit-ordered count of its changes (#39) are one UPDATE


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def table():
    """A game half-way through a sitting (several hands), created by ann who plays in it."""
    user = UserFactory(username="ann")
    ann = PlayerFactory(name="Ann", user=user)
    bob = PlayerFactory(name="Bob")
    hands = [{**KNOCK, "by": ann if number % 2 else bob} for number in range(6)]
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user, hands=hands)
    return user, game


def api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


@pytest.fixture
def count_rule_resolutions(monkeypatch):
    """Count calls to resolve_rules, wherever a module imported it from."""
    calls = []
    original = engine_rules.resolve_rules

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "resolve_rules", None) is original:
            monkeypatch.setattr(module, "resolve_rules", counting)
    return calls


@pytest.mark.parametrize("with_key", [False, True], ids=["plain", "idempotency-key"])
def test_an_api_hand_post_runs_few_queries(table, django_assert_max_num_queries, with_key):
    user, game = table
    client = api_client(user)
    headers = {"HTTP_IDEMPOTENCY_KEY": "hand-7"} if with_key else {}
    with django_assert_max_num_queries(HAND_POST_MAX_QUERIES + with_key):  # + the key's own row
        response = client.post(
            f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one_id, "number": 7}, format="json", **headers
        )
    assert response.status_code == 201, response.content
    body = response.json()
    # The answer is the whole game as stored, not a partial view of the write.
    assert body["hand"]["number"] == 7
    assert [hand["number"] for hand in body["game"]["hands"]] == list(range(1, 8))
    assert body["game"]["hand_count"] == 7
    assert body["game"]["next_dealer"]["id"] in (game.player_one_id, game.player_two_id)
    assert body["game"] == client.get(f"/api/games/{game.pk}/").json()


def test_an_api_hand_post_waits_for_postgresql_six_times(table, round_trips):
    """The token, BEGIN, the locked game with its hands, the hand's three writes (the hand, the game's scores,
    its figures), the Idempotency-Key's answer, COMMIT: the statements that need no answer before the next are
    sent together (on SQLite, with no server to wait for, each statement counts)."""
    user, game = table
    client = api_client(user)
    body = {**KNOCK, "by": game.player_one_id, "number": 7}
    with round_trips() as trips:
        response = client.post(f"/api/games/{game.pk}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY="hand-7")
    assert response.status_code == 201, response.content
    assert len(trips) <= (6 if connection.vendor == "postgresql" else HAND_POST_MAX_QUERIES + 1), trips


@pytest.mark.parametrize("earlier_reads", [0, 3])
def test_a_second_phones_copy_is_refused_in_few_round_trips(table, round_trips, earlier_reads):
    """On a club night both phones of a table send each hand: every second request is a refused copy.
    Its answer is stored by one INSERT, not in a transaction of its own (BEGIN, INSERT, COMMIT).

    The count is the same whatever the connection ran before. From a connection with nothing prepared,
    three reads of the game first bring psycopg's preparing of a statement (the fifth time it runs; a round
    trip of its own, once per connection) into the requests counted: the connection's upkeep, not theirs."""
    user, game = table
    client = api_client(user)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the earlier tests' statements forgotten (psycopg and the server alike)
            cursor.execute("DEALLOCATE ALL")
    for _ in range(earlier_reads):
        assert client.get(f"/api/games/{game.pk}/").status_code == 200
    url, hand = f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one_id, "number": 7}
    assert client.post(url, hand, format="json", HTTP_IDEMPOTENCY_KEY="phone-a").status_code == 201
    # The token, BEGIN, the locked read (on PostgreSQL the hands' read goes with it), COMMIT, the refusal's row.
    with round_trips() as trips:
        refused = client.post(url, hand, format="json", HTTP_IDEMPOTENCY_KEY="phone-b")
    assert refused.status_code == 409, refused.content
    assert len(trips) <= 5, trips
    with round_trips() as trips:  # ... whose INSERT now fails on the key; the stored answer is read
        again = client.post(url, hand, format="json", HTTP_IDEMPOTENCY_KEY="phone-b")
    assert len(trips) <= 6, trips
    assert again.status_code == 409 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == refused.json()
    assert Hand.objects.filter(game=game).count() == 7


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_a_second_phones_refused_copy_keeps_the_connection_s_prepared_statements(table):
    """A refused copy wrote nothing, so its transaction ends by COMMIT: a ROLLBACK makes psycopg drop every
    statement the connection had prepared (DEALLOCATE ALL), and on a club night every second request is one."""
    user, game = table
    client = api_client(user)
    url = f"/api/games/{game.pk}/hands/"
    with connection.cursor() as cursor:  # the earlier tests' statements forgotten (psycopg and the server alike)
        cursor.execute("DEALLOCATE ALL")
    for number in range(7, 14):  # two-point knocks: the game goes on; each statement used past psycopg's threshold
        hand = {"ending": "knock", "knocker_deadwood": 8, "defender_deadwood": 10, "by": game.player_one_id}
        response = client.post(url, {**hand, "number": number}, format="json", HTTP_IDEMPOTENCY_KEY=f"a{number}")
        assert response.status_code == 201, response.content

    def prepared() -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return {statement for (statement,) in cursor.fetchall()}

    # The locked read and the hand's insert run prepared.
    hand_statements = {
        statement for statement in prepared() if "FOR UPDATE" in statement or 'INSERT INTO "scoring_hand"' in statement
    }
    assert len(hand_statements) == 2, hand_statements
    refused = client.post(url, {**hand, "number": 13}, format="json", HTTP_IDEMPOTENCY_KEY="b13")
    assert refused.status_code == 409, refused.content
    assert hand_statements <= prepared()


def test_an_api_hand_post_reads_the_game_once_under_its_lock(table):
    """Who may write is asked of the locked row: no earlier read a change could slip in after. Only the
    game's row is locked, not its players' rows (a player merge locks those first, then their games)."""
    user, game = table
    client = api_client(user)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_two_id}, format="json")
    assert response.status_code == 201, response.content
    # PostgreSQL sends the hands' read in the same text as the lock's, after it: each statement apart.
    statements = [statement for query in queries for statement in query["sql"].split("; ")]
    game_reads = [statement for statement in statements if 'FROM "scoring_game"' in statement]
    assert len(game_reads) == 1, game_reads
    if connection.vendor == "postgresql":
        locked = re.search(r" FOR UPDATE OF (\S+)$", game_reads[0])
        assert locked and f'FROM "scoring_game" {locked[1]} ' in game_reads[0], game_reads[0]


def test_the_locked_read_gives_the_game_and_players_as_the_orm_reads_them(table):
    """The write's read of the game is built once per database: every field, converted as the ORM
    converts it (rules from JSON, times, flags, empty and filled links)."""
    user, game = table
    Game.objects.filter(pk=game.pk).update(league_status="confirmed", confirmed_by=user, confirmed_at=timezone.now())
    with transaction.atomic():
        locked = game_for_update(pk=game.pk)
        expected = Game.objects.select_related("player_one", "player_two").get(pk=game.pk)

    def fields(instance):
        return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}

    assert fields(locked) == fields(expected)
    assert isinstance(locked.rules, dict) and isinstance(locked.over, bool)
    assert locked.confirmed_at is not None and locked.rule_set == expected.rule_set
    for seat in ("player_one", "player_two"):
        assert fields(getattr(locked, seat)) == fields(getattr(expected, seat))
    with pytest.raises(TransactionManagementError):
        game_for_update(pk=game.pk)  # a lock outside a transaction would end at once
    with transaction.atomic():
        for missing in (game.pk + 1000, 2**63, -(2**63) - 1):
            with pytest.raises(Game.DoesNotExist):
                game_for_update(pk=missing)


def test_the_api_answer_equals_a_fresh_read(table):
    user, game = table
    client = api_client(user)
    response = client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_two_id}, format="json")
    assert response.status_code == 201
    assert response.json()["game"] == client.get(f"/api/games/{game.pk}/").json()


def test_an_htmx_hand_post_runs_few_queries(table, django_assert_max_num_queries):
    user, game = table
    client = Client()
    client.force_login(user)
    data = {"action": "save", "expected_number": 7, "by": game.player_one_id, **KNOCK}
    with django_assert_max_num_queries(HAND_POST_MAX_QUERIES + 2) as queries:  # + the session and its user
        response = client.post(reverse("hand_submit", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Hand 7 saved" in response.content.decode()
    assert Hand.objects.filter(game=game).count() == 7
    # The hands are read once, under the game's lock: the page's own read of the game does not bring them.
    hand_reads = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and 'FROM "scoring_hand"' in q["sql"]]
    assert len(hand_reads) == 1, hand_reads


def test_a_preview_runs_few_queries(table, django_assert_max_num_queries):
    user, game = table
    client = Client()
    client.force_login(user)
    with django_assert_max_num_queries(6):
        response = client.post(
            reverse("hand_preview", args=[game.pk]), {"by": game.player_one_id, **KNOCK}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    assert "Ann" in response.content.decode()
    assert Hand.objects.filter(game=game).count() == 6


@pytest.mark.parametrize("how", ["api", "htmx", "preview"])
def test_rules_are_resolved_once_per_hand_post(table, count_rule_resolutions, how):
    user, game = table
    if how == "api":
        response = api_client(user).post(
            f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one_id}, format="json"
        )
        assert response.status_code == 201
    else:
        client = Client()
        client.force_login(user)
        name = "hand_submit" if how == "htmx" else "hand_preview"
        data = {"action": "save", "expected_number": 7, "by": game.player_one_id, **KNOCK}
        response = client.post(reverse(name, args=[game.pk]), data, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
    assert len(count_rule_resolutions) == 1


@pytest.fixture
def count_scorings(monkeypatch):
    """Count the engine's scorings of a whole sitting (score_session), wherever a module imported it from."""
    from scoring.engine import score as engine_score

    calls = []
    original = engine_score.score_session

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "score_session", None) is original:
            monkeypatch.setattr(module, "score_session", counting)
    return calls


@pytest.mark.parametrize("how", ["api", "htmx"])
def test_a_hand_post_scores_the_sitting_once(table, count_scorings, how):
    """The answer (the sheet, or the API's game) shows the write's own scoring, not a second one."""
    user, game = table
    if how == "api":
        response = api_client(user).post(
            f"/api/games/{game.pk}/hands/", {**KNOCK, "by": game.player_one_id}, format="json"
        )
        assert response.status_code == 201
        assert len(count_scorings) == 1
        return
    client = Client()
    client.force_login(user)
    data = {"action": "save", "expected_number": 7, "by": game.player_one_id, **KNOCK}
    response = client.post(reverse("hand_submit", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert len(count_scorings) == 1
    # A fresh read (drawn again, or the sheet the answer drew kept for this version) shows the same rows.
    fresh = client.get(reverse("game", args=[game.pk])).content.decode()

    def rows(page: str) -> str:
        return page.split("<tbody>")[1].split("</tbody>")[0]

    assert rows(response.content.decode()) == rows(fresh) and 'class="num">7</td>' in rows(fresh)


def test_a_hand_written_compiles_no_read(table, compiled):
    """The write's reads (the locked game, its hands in order) are statements built once per database:
    a club night's every hand paid the ORM's compilation of its hands' SELECT (scoring/prepared.py)."""
    from scoring import services

    user, game = table
    services.hand_record(game=game.pk, recorded_by=user, by=game.player_one_id, **KNOCK)  # built, if not yet
    compiled.clear()
    hand = services.hand_record(game=game.pk, recorded_by=user, by=game.player_two_id, expected_number=8, **KNOCK)
    assert hand.number == 8 and [h.number for h in hand.game.hands.all()] == list(range(1, 9))
    assert all(h.game is hand.game for h in hand.game.hands.all())
    assert compiled == []


def test_a_hand_read_is_the_hand_djangos_own_init_builds(table):
    """Hands are built straight from their rows (Hand.from_db): every column as Model.__init__ sets it, a
    deferred column loaded when read, and a hand read back saves as an update of its row."""
    from django.db.models import Model

    user, game = table
    hand = game.hands.order_by("number").first()
    Hand.objects.filter(pk=hand.pk).update(cards=[["7S", "8S", "9S"]], upcard="KS", doubled=True)
    read = Hand.objects.get(pk=hand.pk)
    built = Model.from_db.__func__(Hand, "default", [f.attname for f in Hand._meta.concrete_fields],
                                   [getattr(read, f.attname) for f in Hand._meta.concrete_fields])  # fmt: skip

    def fields(instance):
        return {field.attname: getattr(instance, field.attname) for field in Hand._meta.concrete_fields}

    assert fields(read) == fields(built) and read.cards == [["7S", "8S", "9S"]] and read.doubled is True
    assert not read._state.adding and read._state.db == "default" and read.by.name in ("Ann", "Bob")
    deferred = Hand.objects.defer("created_at").get(pk=hand.pk)
    assert "created_at" not in deferred.__dict__ and deferred.created_at == read.created_at
    read.upcard = "QH"
    read.save(update_fields=["upcard"])
    assert Hand.objects.filter(game=game).count() == 6 and Hand.objects.get(pk=hand.pk).upcard == "QH"


def test_each_hand_read_holds_its_own_list_of_the_games_it_scored_in(table):
    """A hand's ``scored_in`` is parsed from its text once per process (Hand.scored_in: GameNumbersField), but each
    hand read holds a list of its own: changing one hand's list never changes another's, nor the next read's."""
    user, game = table
    hands = list(game.hands.order_by("number"))
    Hand.objects.filter(pk=hands[0].pk).update(scored_in=[1, 2])
    Hand.objects.filter(pk=hands[1].pk).update(scored_in=[1, 2])
    first, second, *_rest = Hand.objects.filter(game=game).order_by("number")
    assert first.scored_in == second.scored_in == [1, 2] and type(first.scored_in) is list
    first.scored_in.append(3)
    again = Hand.objects.get(pk=hands[1].pk)
    assert second.scored_in == [1, 2] and again.scored_in == [1, 2]
    assert Hand.objects.filter(pk=hands[2].pk).values_list("scored_in", flat=True).get() == hands[2].scored_in
    Hand.objects.filter(pk=hands[2].pk).update(scored_in=[])
    assert Hand.objects.get(pk=hands[2].pk).scored_in == []


def test_the_hands_read_under_the_lock_give_the_times_stored_now(table):
    """The write's read of the hands keeps each stored time's text parsed (SQLite stores times as text): the times
    are the ORM's own, and a time changed since is read as it now is, never as it was."""
    user, game = table
    plain = {hand.pk: (hand.created_at, hand.updated_at) for hand in Hand.objects.filter(game=game)}
    for _ in range(2):
        with transaction.atomic():
            read = hands_in_order(game)
        assert {hand.pk: (hand.created_at, hand.updated_at) for hand in read} == plain
    later = plain[read[0].pk][1] + timedelta(days=3, microseconds=7)
    Hand.objects.filter(pk=read[0].pk).update(updated_at=later)
    with transaction.atomic():
        again = hands_in_order(game)
    assert again[0].updated_at == later and again[1].updated_at == plain[again[1].pk][1]


def test_a_listener_of_hands_being_built_hears_the_hands_a_write_reads(table):
    """Hands are built straight from their rows unless someone listens for models being built (post_init): then
    each hand of the write's read is built by Django's own path, and the listener hears it."""
    user, game = table
    heard = []

    def listen(sender, instance, **kwargs):
        heard.append(instance)

    post_init.connect(listen, sender=Hand)
    try:
        with transaction.atomic():
            read = hands_in_order(game)
    finally:
        post_init.disconnect(listen, sender=Hand)
    assert len(read) == 6 and [hand.pk for hand in heard] == [hand.pk for hand in read]
