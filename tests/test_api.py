"""The REST API: who may do what, and that it scores exactly as the pages do."""

import json

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from players import clubs
from players.models import Membership, Player
from players.tokens import token_create
from scoring.models import Game, Hand, IdempotentRequest
from tests.conftest import VECTOR_FILES, load_vector
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db

CSRF_SECRET = "a" * 32  # a well-formed CSRF cookie value; the header must repeat it


# ---------------------------------------------------------------------------
# Fixtures: one game, and a user in each role towards it


@pytest.fixture
def people():
    return make_people()


def make_people() -> dict:
    creator = UserFactory(username="creator")
    participant = UserFactory(username="participant")
    outsider = UserFactory(username="outsider")
    staff = UserFactory(username="staff", is_staff=True)
    ann = PlayerFactory(name="Ann", user=participant)
    bob = PlayerFactory(name="Bob")
    cy = PlayerFactory(name="Cy")  # a guest too: anyone signed in may start a game between Bob and Cy
    # The creator records for Ann (claimed by the participant's account) as her club mate:
    # nobody else may put a game on a claimed player's record (scoring/permissions.may_record_for).
    Membership.objects.create(club=clubs.club_create(name="Kitchen", owner=creator), player=ann)
    return {
        "creator": creator,
        "participant": participant,
        "outsider": outsider,
        "staff": staff,
        "ann": ann,
        "bob": bob,
        "cy": cy,
    }


@pytest.fixture
def game(people):
    return make_kitchen_game(people)


def make_kitchen_game(people) -> Game:
    return make_game(
        player_one=people["ann"],
        player_two=people["bob"],
        first_dealer=people["bob"],
        created_by=people["creator"],
        hands=[{"ending": "knock", "by": people["ann"], "knocker_deadwood": 6, "defender_deadwood": 20}],
    )


def client_for(role, people, auth="token"):
    """An API client acting as ``role`` (None = anonymous), by token or by session with a CSRF token."""
    client = APIClient(enforce_csrf_checks=True)
    if role is None:
        return client
    user = people[role]
    if auth == "token":
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    else:
        client.force_login(user)
        client.cookies[settings.CSRF_COOKIE_NAME] = CSRF_SECRET
        client.defaults["HTTP_X_CSRFTOKEN"] = CSRF_SECRET
    return client


KNOCK = {"ending": "knock", "knocker_deadwood": 3, "defender_deadwood": 25}


# ---------------------------------------------------------------------------
# The permission matrix

ROLES = [None, "outsider", "participant", "creator", "staff"]
EDITORS = {"participant", "creator", "staff"}


def expected(rule, role, auth):
    if rule == "read":
        return 200
    if role is None:
        return 403
    if rule == "signed_in":
        return "ok"
    if rule == "session":  # a token may not mint, replace or revoke a token
        return "ok" if auth == "session" else 403
    if rule == "edit":
        return "ok" if role in EDITORS else 403
    if rule == "delete":
        return "ok" if role in {"creator", "staff"} else 403
    raise AssertionError(rule)


def endpoints(game, people):
    hand = game.hands.get(number=1)
    by = people["ann"].pk
    return [
        # (name, method, path, body, rule, success status)
        ("players list", "get", "/api/players/", None, "read", 200),
        ("player detail", "get", f"/api/players/{people['ann'].pk}/", None, "read", 200),
        ("player create", "post", "/api/players/", {"name": "Cleo"}, "signed_in", 201),
        ("games list", "get", "/api/games/", None, "read", 200),
        ("game detail", "get", f"/api/games/{game.pk}/", None, "read", 200),
        ("game record", "get", f"/api/games/{game.pk}/record/", None, "read", 200),
        ("hand detail", "get", f"/api/games/{game.pk}/hands/{hand.pk}/", None, "read", 200),
        (
            "game create",
            "post",
            "/api/games/",
            {"player_one": people["cy"].pk, "player_two": people["bob"].pk, "first_dealer": people["cy"].pk},
            "signed_in",
            201,
        ),
        (
            "game import",
            "post",
            "/api/games/import/",
            {"players": ["Dee", "Eve"], "first_dealer": "Dee", "hands": [{"ending": "dead"}]},
            "signed_in",
            201,
        ),
        ("hand record", "post", f"/api/games/{game.pk}/hands/", {**KNOCK, "by": by}, "edit", 201),
        ("hand put", "put", f"/api/games/{game.pk}/hands/{hand.pk}/", {**KNOCK, "by": by}, "edit", 200),
        ("hand patch", "patch", f"/api/games/{game.pk}/hands/{hand.pk}/", {"defender_deadwood": 30}, "edit", 200),
        (
            "hand set aside",
            "post",
            f"/api/games/{game.pk}/hands/{hand.pk}/set-aside/",
            {**KNOCK, "by": by},
            "edit",
            201,
        ),
        ("hand delete", "delete", f"/api/games/{game.pk}/hands/{hand.pk}/", None, "edit", 200),
        ("game call time", "post", f"/api/games/{game.pk}/time/", None, "edit", 200),
        ("game delete", "delete", f"/api/games/{game.pk}/", None, "delete", 204),
        ("token create", "post", "/api/token/", None, "session", 201),
        ("token revoke", "delete", "/api/token/", None, "session", 204),
    ]


ENDPOINT_NAMES = [
    "players list", "player detail", "player create", "games list", "game detail", "game record", "hand detail",
    "game create", "game import", "hand record", "hand put", "hand patch", "hand set aside", "hand delete",
    "game call time", "game delete", "token create", "token revoke",
]  # fmt: skip


MATRIX = [("token", None)] + [(auth, role) for auth in ("token", "session") for role in ROLES if role]


class TestPermissionMatrix:
    """Every endpoint, every role, both ways of signing in: one cast for the whole matrix."""

    @pytest.fixture(scope="class")
    @classmethod
    def cast(cls, class_rows):
        people = make_people()
        return make_kitchen_game(people), people

    @pytest.mark.parametrize(("auth", "role"), MATRIX, ids=lambda value: value or "anonymous")
    @pytest.mark.parametrize("endpoint", ENDPOINT_NAMES)
    def test_permission_matrix(self, endpoint, role, auth, cast):
        check_permission(endpoint, role, auth, *cast)


def check_permission(endpoint, role, auth, game, people):
    name, method, path, body, rule, success = next(row for row in endpoints(game, people) if row[0] == endpoint)
    client = client_for(role, people, auth)
    hands_before = list(Hand.objects.filter(game=game).values_list("number", "defender_deadwood"))
    games_before = Game.objects.count()
    response = getattr(client, method)(path, body, format="json") if body is not None else getattr(client, method)(path)
    want = expected(rule, role, auth)
    assert response.status_code == (success if want == "ok" else want), response.content
    if response.status_code == 403:
        problem = response.json()
        assert set(problem) == {"field", "message", "hand"} and problem["message"]
        # A refused write leaves everything as it was.
        assert list(Hand.objects.filter(game=game).values_list("number", "defender_deadwood")) == hands_before
        assert Game.objects.count() == games_before


def test_matrix_covers_every_api_route(game, people):
    """A new endpoint cannot slip past the permission matrix untested."""
    from django.urls import resolve

    from scoring.api.urls import urlpatterns
    from tests.test_api_league import LEAGUE_ROUTES  # the league matrix covers these (and checks that it does)
    from tests.test_swiss_night import SWISS_ROUTES  # and the Swiss night's matrix these

    rows = endpoints(game, people)
    assert [row[0] for row in rows] == ENDPOINT_NAMES
    covered = {resolve(path.split("?")[0]).url_name for _, _, path, _, _, _ in rows} | LEAGUE_ROUTES | SWISS_ROUTES
    served = {pattern.name for pattern in urlpatterns} - {"schema", "docs", "not-found"}
    assert served <= covered, served - covered


def test_session_write_without_csrf_is_refused(game, people):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(people["creator"])
    response = client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": people["ann"].pk}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["message"]
    assert game.hands.count() == 1
    # The same request with the CSRF token goes through.
    client.cookies[settings.CSRF_COOKIE_NAME] = CSRF_SECRET
    response = client.post(
        f"/api/games/{game.pk}/hands/", {**KNOCK, "by": people["ann"].pk}, format="json", HTTP_X_CSRFTOKEN=CSRF_SECRET
    )
    assert response.status_code == 201
    assert game.hands.count() == 2


def test_token_write_needs_no_csrf(game, people):
    client = client_for("participant", people, "token")
    assert (
        client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": people["ann"].pk}, format="json").status_code == 201
    )


def test_revoked_or_wrong_token_is_refused(game, people):
    client = client_for("creator", people, "token")
    assert client_for("creator", people, "session").delete("/api/token/").status_code == 204  # revoked by its owner
    assert not Token.objects.filter(user=people["creator"]).exists()
    response = client.post(f"/api/games/{game.pk}/hands/", {**KNOCK, "by": people["ann"].pk}, format="json")
    assert response.status_code in (401, 403)
    assert response.json()["message"]
    assert game.hands.count() == 1


def test_a_token_acts_as_its_own_account_and_only_while_that_account_is_active(game, people):
    client = client_for("participant", people, "token")
    hand = {**KNOCK, "by": people["ann"].pk}
    assert client.get(f"/api/games/{game.pk}/").json()["can_edit"] is True  # the participant's rights
    assert client_for("outsider", people, "token").get(f"/api/games/{game.pk}/").json()["can_edit"] is False
    assert client.post(f"/api/games/{game.pk}/hands/", hand, format="json").status_code == 201
    assert game.hands.get(number=2).recorded_by == people["participant"]
    people["participant"].is_active = False
    people["participant"].save()
    refused = client.post(f"/api/games/{game.pk}/hands/", hand, format="json")
    assert refused.status_code == 403  # DRF says 403 for every refused sign-in here (session auth comes first)
    assert refused.json()["message"] == "User inactive or deleted."
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert wrong.get(f"/api/games/{game.pk}/").json()["message"] == "Invalid token."
    wrong.credentials(HTTP_AUTHORIZATION="Token abc\x00def")
    assert wrong.get(f"/api/games/{game.pk}/").json()["message"] == "Invalid token."
    assert game.hands.count() == 2


def test_a_token_cannot_create_replace_or_revoke_a_token(people):
    """A leaked token must not let its holder replace it (cutting the owner's scripts off) or mint another."""
    client = client_for("outsider", people, "token")
    key = Token.objects.get(user=people["outsider"]).key
    for method in ("post", "delete"):
        refused = getattr(client, method)("/api/token/")
        assert refused.status_code == 403
        assert "An API token cannot create, replace or revoke a token" in refused.json()["message"]
    assert Token.objects.get(user=people["outsider"]).key == key  # still the owner's, still working
    assert client.get("/api/games/").status_code == 200


def test_a_session_needs_its_csrf_token_to_create_a_token(people):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(people["outsider"])
    refused = client.post("/api/token/")
    assert refused.status_code == 403 and "CSRF" in refused.json()["message"]
    assert not Token.objects.filter(user=people["outsider"]).exists()
    assert client_for("outsider", people, "session").post("/api/token/").status_code == 201


def test_new_token_replaces_the_old_one(people):
    client = client_for("outsider", people, "session")
    first = client.post("/api/token/").json()["token"]
    second = client.post("/api/token/").json()["token"]
    assert first != second
    old = APIClient()
    old.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert old.post("/api/players/", {"name": "Zed"}, format="json").status_code in (401, 403)
    new = APIClient()
    new.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert new.post("/api/players/", {"name": "Zed"}, format="json").status_code == 201


def test_game_shows_whether_the_user_may_edit(game, people):
    assert client_for(None, people).get(f"/api/games/{game.pk}/").json()["can_edit"] is False
    assert client_for("outsider", people).get(f"/api/games/{game.pk}/").json()["can_edit"] is False
    assert client_for("participant", people).get(f"/api/games/{game.pk}/").json()["can_edit"] is True


# ---------------------------------------------------------------------------
# Hands: the same rules as the pages


def test_record_hand_returns_the_recomputed_game(game, people):
    client = client_for("participant", people)
    # Bob gins with Ann holding 31: 31 + gin bonus 25 = 56 for Bob.
    response = client.post(
        f"/api/games/{game.pk}/hands/",
        {"ending": "gin", "by": people["bob"].pk, "defender_deadwood": 31},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["hand"]["number"] == 2
    assert (body["hand"]["result"], body["hand"]["winner"], body["hand"]["points"]) == ("gin", people["bob"].pk, 56)
    assert body["game"]["hand_count"] == 2 and len(body["game"]["hands"]) == 2
    score = body["game"]["scores"][0]
    # Hand 1: Ann knocked 6 v 20 -> 14 for Ann.
    assert (score["player_one_hand_points"], score["player_two_hand_points"]) == (14, 56)
    assert (score["player_one_boxes"], score["player_two_boxes"]) == (1, 1)
    # Loser of the hand deals next: Ann.
    assert body["game"]["next_dealer"]["id"] == people["ann"].pk
    assert Hand.objects.get(game=game, number=2).recorded_by == people["participant"]


def test_refused_hand_names_field_and_hand_and_stores_nothing(game, people):
    client = client_for("creator", people)
    response = client.post(
        f"/api/games/{game.pk}/hands/",
        {"ending": "knock", "by": people["ann"].pk, "knocker_deadwood": 12, "defender_deadwood": 20},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == "knocker_deadwood"
    assert response.json()["hand"] == 2
    assert "knock limit" in response.json()["message"]
    assert game.hands.count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ending": "lost"}, "ending"),
        ({"by": 1}, "ending"),
        ({"ending": "knock", "by": "Ann"}, "by"),
        ({"ending": "knock", "knocker_deadwood": "six"}, "knocker_deadwood"),
        ({"ending": "dead", "upcard": "10HX"}, "upcard"),
    ],
)
def test_malformed_hand_gets_a_field_map(game, people, body, field):
    response = client_for("creator", people).post(f"/api/games/{game.pk}/hands/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert game.hands.count() == 1


def test_player_from_another_game_is_refused_by_name(game, people):
    stranger = PlayerFactory(name="Stranger")
    response = client_for("creator", people).post(
        f"/api/games/{game.pk}/hands/", {**KNOCK, "by": stranger.pk}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "by"


def test_patch_hand_recomputes_and_lists_changes(game, people):
    client = client_for("participant", people)
    client.post(f"/api/games/{game.pk}/hands/", {"ending": "dead"}, format="json")
    hand = game.hands.get(number=1)
    # Ann's knock of 6 against 4 becomes an undercut: 2 + 25 for Bob.
    response = client.patch(f"/api/games/{game.pk}/hands/{hand.pk}/", {"defender_deadwood": 4}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["hand"]["result"], body["hand"]["winner"], body["hand"]["points"]) == (
        "undercut",
        people["bob"].pk,
        27,
    )
    assert body["hand"]["knocker_deadwood"] == 6  # untouched facts kept
    assert body["changes"][0]["what"] == "Hand 1"
    # The dead hand is now dealt by Bob (loser of hand 1 = Ann deals... winner Bob, so Ann deals hand 2).
    assert body["game"]["hands"][1]["dealer"] == people["ann"].pk
    assert body["game"]["scores"][0]["player_two_hand_points"] == 27


def test_put_hand_replaces_all_facts(game, people):
    hand = game.hands.get(number=1)
    response = client_for("creator", people).put(
        f"/api/games/{game.pk}/hands/{hand.pk}/",
        {"ending": "gin", "by": people["bob"].pk, "defender_deadwood": 10},
        format="json",
    )
    assert response.status_code == 200, response.content
    hand.refresh_from_db()
    assert (hand.ending, hand.by_id, hand.knocker_deadwood, hand.result, hand.points) == (
        "gin", people["bob"].pk, None, "gin", 35,
    )  # fmt: skip


def test_refused_edit_leaves_the_hand_alone(game, people):
    hand = game.hands.get(number=1)
    response = client_for("creator", people).patch(
        f"/api/games/{game.pk}/hands/{hand.pk}/", {"knocker_deadwood": 15}, format="json"
    )
    assert response.status_code == 400
    assert (response.json()["field"], response.json()["hand"]) == ("knocker_deadwood", 1)
    hand.refresh_from_db()
    assert (hand.knocker_deadwood, hand.points) == (6, 14)


def test_delete_hand_renumbers_and_recomputes(game, people):
    client = client_for("creator", people)
    client.post(
        f"/api/games/{game.pk}/hands/",
        {"ending": "gin", "by": people["bob"].pk, "defender_deadwood": 10},
        format="json",
    )
    first = game.hands.get(number=1)
    response = client.delete(f"/api/games/{game.pk}/hands/{first.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert body["game"]["hand_count"] == 1
    assert [hand["result"] for hand in body["game"]["hands"]] == ["gin"]
    assert body["game"]["hands"][0]["number"] == 1
    assert body["game"]["scores"][0]["player_one_hand_points"] == 0
    # A retry of the same delete finds nothing to delete (hands are addressed by id, not number).
    assert client.delete(f"/api/games/{game.pk}/hands/{first.pk}/").status_code == 404
    assert game.hands.count() == 1


def test_hand_of_another_game_is_not_found(game, people):
    other = make_game(created_by=people["creator"], hands=[{"ending": "dead"}])
    hand = other.hands.get()
    client = client_for("creator", people)
    assert client.get(f"/api/games/{game.pk}/hands/{hand.pk}/").status_code == 404
    response = client.delete(f"/api/games/{game.pk}/hands/{hand.pk}/")
    assert response.status_code == 404
    assert set(response.json()) == {"field", "message", "hand"}
    assert other.hands.count() == 1


def test_hand_after_the_game_is_over_is_refused(people):
    game = make_game(player_one=people["ann"], player_two=people["bob"], created_by=people["creator"])
    client = client_for("creator", people)
    won = client.post(
        f"/api/games/{game.pk}/hands/",
        {"ending": "gin", "by": people["ann"].pk, "defender_deadwood": 98},
        format="json",
    )
    assert won.json()["game"]["over"] is True
    assert won.json()["game"]["winner"]["id"] == people["ann"].pk
    response = client.post(f"/api/games/{game.pk}/hands/", {"ending": "dead"}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "ending" and "over" in response.json()["message"]


# ---------------------------------------------------------------------------
# Idempotency and conflicts


def test_idempotency_key_records_once_and_replays(game, people):
    client = client_for("participant", people)
    body = {**KNOCK, "by": people["ann"].pk, "number": 2}
    first = client.post(f"/api/games/{game.pk}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY="phone-1-hand-2")
    again = client.post(f"/api/games/{game.pk}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY="phone-1-hand-2")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert game.hands.count() == 2


def test_idempotency_key_with_a_different_body_is_refused(game, people):
    client = client_for("participant", people)
    path = f"/api/games/{game.pk}/hands/"
    client.post(path, {**KNOCK, "by": people["ann"].pk}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    response = client.post(path, {"ending": "dead"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert response.status_code == 422
    assert response.json()["field"] == "Idempotency-Key"
    assert game.hands.count() == 2


def test_idempotency_keys_belong_to_one_user(game, people):
    path = f"/api/games/{game.pk}/hands/"
    for role in ("participant", "creator"):
        response = client_for(role, people).post(path, {"ending": "dead"}, format="json", HTTP_IDEMPOTENCY_KEY="same")
        assert response.status_code == 201
    assert game.hands.count() == 3


def test_refusal_is_replayed_too_and_stores_nothing(game, people):
    client = client_for("creator", people)
    bad = {"ending": "knock", "by": people["ann"].pk, "knocker_deadwood": 11, "defender_deadwood": 3}
    first = client.post(f"/api/games/{game.pk}/hands/", bad, format="json", HTTP_IDEMPOTENCY_KEY="bad")
    again = client.post(f"/api/games/{game.pk}/hands/", bad, format="json", HTTP_IDEMPOTENCY_KEY="bad")
    assert first.status_code == again.status_code == 400
    assert again.json() == first.json()
    assert game.hands.count() == 1


def test_overlong_idempotency_key_is_refused(game, people):
    response = client_for("creator", people).post(
        f"/api/games/{game.pk}/hands/", {"ending": "dead"}, format="json", HTTP_IDEMPOTENCY_KEY="x" * 201
    )
    assert response.status_code == 400 and response.json()["field"] == "Idempotency-Key"
    assert game.hands.count() == 1 and not IdempotentRequest.objects.exists()


def test_stale_hand_number_is_a_conflict(game, people):
    client = client_for("participant", people)
    path = f"/api/games/{game.pk}/hands/"
    assert client.post(path, {"ending": "dead", "number": 2}, format="json").status_code == 201
    # A second phone still thinks it is recording hand 2.
    response = client_for("creator", people).post(path, {**KNOCK, "by": people["bob"].pk, "number": 2}, format="json")
    assert response.status_code == 409
    assert (response.json()["field"], response.json()["hand"]) == ("number", 2)
    assert game.hands.count() == 2
    assert list(game.hands.values_list("ending", flat=True).order_by("number")) == ["knock", "dead"]


def test_a_refused_hand_number_says_how_many_hands_the_sheet_has(game, people):
    client = client_for("participant", people)
    path = f"/api/games/{game.pk}/hands/"
    behind = client.post(path, {"ending": "dead", "number": 1}, format="json")
    assert behind.status_code == 409
    assert behind.json()["message"] == "Hand 1 was already recorded; the sheet now has 1 hand."
    # A phone that missed a deletion made on another phone counts one hand too many.
    ahead = client.post(path, {"ending": "dead", "number": 5}, format="json")
    assert ahead.status_code == 409
    assert ahead.json()["message"] == (
        "The sheet has 1 hand, so the next is hand 2, not 5: check the sheet as it is now."
    )
    assert game.hands.count() == 1


# ---------------------------------------------------------------------------
# Games


def test_create_game_uses_the_rules(people):
    client = client_for("outsider", people)
    response = client.post(
        "/api/games/",
        {
            "player_one": people["cy"].pk,
            "player_two": people["bob"].pk,
            "first_dealer": people["bob"].pk,
            "rules": {"preset": "classic", "target": 150},
            "name": "Friday",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["preset"] == "classic"
    assert body["rules"]["target"] == 150 and body["rules"]["gin_bonus"] == 20
    assert body["next_dealer"]["id"] == people["bob"].pk
    assert Game.objects.get(pk=body["id"]).created_by == people["outsider"]


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ({"preset": "snap"}, "preset"),
        ({"target": "lots"}, "target"),
        ({"jokers": True}, "jokers"),
        ([1], "rules"),
        ({"preset": "partnership"}, "preset"),  # four players' rules
        ({"partner_opponents": "alternate"}, "partner_opponents"),
    ],
)
def test_bad_rules_name_the_rule(people, rules, field):
    response = client_for("outsider", people).post(
        "/api/games/",
        {
            "player_one": people["ann"].pk,
            "player_two": people["bob"].pk,
            "first_dealer": people["bob"].pk,
            "rules": rules,
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == field
    assert not Game.objects.exists()


def test_game_needs_two_players_and_a_dealer_among_them(people):
    client = client_for("outsider", people)
    ann, bob = people["ann"].pk, people["bob"].pk
    same = client.post("/api/games/", {"player_one": ann, "player_two": ann, "first_dealer": ann}, format="json")
    assert same.status_code == 400 and same.json()["field"] == "player_two"
    cleo = PlayerFactory(name="Cleo").pk
    dealer = client.post("/api/games/", {"player_one": ann, "player_two": bob, "first_dealer": cleo}, format="json")
    assert dealer.status_code == 400 and dealer.json()["field"] == "first_dealer"
    missing = client.post("/api/games/", {"player_one": ann, "player_two": 999999, "first_dealer": ann}, format="json")
    assert missing.status_code == 400 and "player_two" in missing.json()
    assert not Game.objects.exists()


def test_game_detail_has_hands_and_scores_and_list_has_no_hands(game):
    client = APIClient()
    detail = client.get(f"/api/games/{game.pk}/").json()
    assert [hand["number"] for hand in detail["hands"]] == [1]
    assert detail["hands"][0]["dealer"] == detail["player_two"]["id"]
    listed = client.get("/api/games/").json()
    assert listed["count"] == 1 and "hands" not in listed["results"][0]
    assert listed["results"][0]["scores"][0]["player_one_hand_points"] == 14


def test_a_games_detail_reads_the_game_once(game, people):
    """A phone that opens a game waits for one read of it, not a second to build the answer."""
    client = client_for("participant", people)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/api/games/{game.pk}/")
    assert response.status_code == 200
    assert response.json()["can_edit"] is True
    game_reads = [query["sql"] for query in queries if query["sql"].startswith('SELECT "scoring_game"."id"')]
    assert len(game_reads) == 1, game_reads


def test_missing_game_is_a_json_404():
    response = APIClient().get("/api/games/987654/")
    assert response.status_code == 404
    assert set(response.json()) == {"field", "message", "hand"}


@pytest.mark.parametrize("key", [None, "k-1"], ids=["plain", "idempotency-key"])
def test_a_hand_is_refused_for_the_game_first_then_the_sender_then_the_body(game, people, key):
    bad_body, good_body = {"ending": "lost"}, {"ending": "knock", "by": people["ann"].pk, "knocker_deadwood": 4,
                                                "defender_deadwood": 9}  # fmt: skip
    outsider, participant = client_for("outsider", people), client_for("participant", people)

    def post(client, game_id, body, attempt):
        headers = {"HTTP_IDEMPOTENCY_KEY": f"{key}-{attempt}"} if key else {}
        return client.post(f"/api/games/{game_id}/hands/", body, format="json", **headers)

    assert post(outsider, 987654, bad_body, 1).status_code == 404
    assert post(participant, 2**63, good_body, 5).status_code == 404  # past any id column, still no game
    for attempt, body in ((2, bad_body), (3, good_body)):
        refused = post(outsider, game.pk, body, attempt)
        assert refused.status_code == 403 and "creator" in refused.json()["message"]
    invalid = post(participant, game.pk, bad_body, 4)
    assert invalid.status_code == 400 and "ending" in invalid.json()
    assert Hand.objects.filter(game=game).count() == 1


def test_delete_game_removes_its_hands(game, people):
    assert client_for("creator", people).delete(f"/api/games/{game.pk}/").status_code == 204
    assert not Game.objects.filter(pk=game.pk).exists() and not Hand.objects.exists()


# ---------------------------------------------------------------------------
# Records: import and export


VALID = [path for path in VECTOR_FILES if "error" not in load_vector(path)["expect"]]
INVALID = [path for path in VECTOR_FILES if "error" in load_vector(path)["expect"]]


@pytest.mark.parametrize("path", VALID[:6] + [p for p in VALID if "hollywood" in p.name], ids=lambda p: p.stem[:30])
def test_import_then_export_gives_the_vector_figures(path, people):
    vector = load_vector(path)
    record = {key: value for key, value in vector.items() if key != "expect"}
    client = client_for("participant", people)  # Ann (theirs) imports a game of hers
    response = client.post("/api/games/import/", record, format="json")
    assert response.status_code == 201, response.content
    exported = client.get(f"/api/games/{response.json()['id']}/record/").json()
    assert exported["expect"] == vector["expect"]
    assert exported["players"] == vector["players"]
    assert len(exported["hands"]) == len(vector["hands"])


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem[:30])
def test_invalid_record_is_refused_whole_like_scoresheet(path, people):
    vector = load_vector(path)
    record = {key: value for key, value in vector.items() if key != "expect"}
    response = client_for("participant", people).post("/api/games/import/", record, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == vector["expect"]["error"]
    assert body["message"]
    assert not Game.objects.exists() and not Hand.objects.exists()
    assert set(Player.objects.values_list("name", flat=True)) == {"Ann", "Bob", "Cy", "creator"}  # nothing new


def test_import_reads_a_preset_name_in_any_letter_case_and_refuses_one_that_is_not_text(people):
    client = client_for("outsider", people)
    record = {"players": ["Dee", "Eve"], "first_dealer": "Dee", "hands": []}
    response = client.post("/api/games/import/", {**record, "rules": {"preset": "Hollywood"}}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["preset"] == "hollywood" and response.json()["rules"]["hollywood"] is True
    response = client.post("/api/games/import/", {**record, "rules": {"preset": ["standard"]}}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {"hand": None, "field": "preset"}
    assert Game.objects.count() == 1


def test_import_error_shapes_for_bad_json_and_nul(people):
    client = client_for("outsider", people)
    response = client.post("/api/games/import/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == {"hand": None, "field": "record"}
    response = client.post(
        "/api/games/import/",
        {"players": ["Dee", "Eve"], "first_dealer": "Dee", "hands": [{"ending": "dead", "cards": ["A\x00"]}]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "hands[0].cards[0]"
    assert not Game.objects.exists()


# ---------------------------------------------------------------------------
# Players, filters and pagination


def test_player_create_is_get_or_create_by_name(people):
    client = client_for("outsider", people)
    created = client.post("/api/players/", {"name": "  Cleo   Jones "}, format="json")
    assert created.status_code == 201 and created.json()["name"] == "Cleo Jones"
    again = client.post("/api/players/", {"name": "cleo jones"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == created.json()["id"]
    blank = client.post("/api/players/", {"name": "   "}, format="json")
    assert blank.status_code == 400 and "name" in blank.json()


def test_player_filter_by_name(people):
    body = APIClient().get("/api/players/", {"name": "an"}).json()
    assert [player["name"] for player in body["results"]] == ["Ann"]
    assert body["results"][0]["has_account"] is True


def test_game_filters(people):
    ann, bob = people["ann"], people["bob"]
    cleo = PlayerFactory(name="Cleo")
    open_game = make_game(player_one=ann, player_two=bob)
    finished = make_game(player_one=ann, player_two=cleo, hands=[{"ending": "gin", "by": ann, "defender_deadwood": 98}])
    classic = make_game(player_one=bob, player_two=cleo, rules={"preset": "classic"})
    Game.objects.filter(pk=classic.pk).update(created_at="2020-05-01T12:00:00Z")
    client = APIClient()

    def ids(**query):
        response = client.get("/api/games/", query)
        assert response.status_code == 200, response.content
        return {game["id"] for game in response.json()["results"]}

    assert ids(player=ann.pk) == {open_game.pk, finished.pk}
    assert ids(player=cleo.pk, over="true") == {finished.pk}
    assert ids(over="false") == {open_game.pk, classic.pk}
    assert ids(preset="classic") == {classic.pk}
    assert ids(created_before="2020-12-31") == {classic.pk}
    assert ids(created_after="2021-01-01") == {open_game.pk, finished.pk}
    assert client.get("/api/games/", {"preset": "snap"}).status_code == 400
    assert "created_after" in client.get("/api/games/", {"created_after": "yesterday"}).json()


def test_lists_are_paginated(people):
    for index in range(5):
        PlayerFactory(name=f"Extra {index}")
    client = APIClient()
    first = client.get("/api/players/", {"page_size": 3}).json()
    assert first["count"] == 9 and len(first["results"]) == 3 and first["next"]  # with Cy and the creator's player
    last = client.get("/api/players/", {"page_size": 3, "page": 3}).json()
    assert len(last["results"]) == 3 and last["next"] is None
    assert client.get("/api/players/", {"page": 99}).status_code == 404


# ---------------------------------------------------------------------------
# Schema and docs


def test_schema_describes_the_endpoints():
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    post_hand = schema["paths"]["/api/games/{game_pk}/hands/"]["post"]
    assert {"201", "400", "403", "409", "422"} <= set(post_hand["responses"])
    assert any(param["name"] == "Idempotency-Key" for param in post_hand["parameters"])
    assert "/api/games/import/" in schema["paths"] and "/api/token/" in schema["paths"]
    # A partnership record's refusal names the board too (docs/game-record.md, "Partnership records").
    assert "board" in schema["components"]["schemas"]["RecordErrorDetail"]["properties"]


def test_import_of_a_partnership_game_is_refused_whole_naming_the_board_or_stored(people):
    client = client_for("participant", people)
    record = {
        "rules": {"preset": "partnership"},
        "players": ["Ann", "Bob", "Cat", "Dan"],
        "first_dealer": "Bob",
        "hands": [{"boards": [{"ending": "dead"}, {"ending": "gin", "by": "Ann", "defender_deadwood": 3}]}],
    }
    response = client.post("/api/games/import/", record, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {"hand": 1, "board": 2, "field": "by"}
    assert not Game.objects.exists() and not Hand.objects.exists()
    record["hands"][0]["boards"][1]["by"] = "Dan"
    response = client.post("/api/games/import/", record, format="json")
    assert response.status_code == 201, response.content  # stored: four players, one deal of two boards
    game = Game.objects.get()
    assert game.is_partnership and Hand.objects.filter(game=game).count() == 2


def test_docs_page_has_no_inline_script_or_style(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<style" not in html and " style=" not in html
    assert "<script>" not in html  # every script has a src
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


def test_refusal_echoing_a_nul_character_is_stored_and_replayed(game, people):
    # PostgreSQL cannot store a NUL in JSON; the stored answer must still replay (the NUL shown as U+FFFD).
    client = client_for("creator", people)
    path = f"/api/games/{game.pk}/hands/"
    first = client.post(path, {"ending": "gin\x00"}, format="json", HTTP_IDEMPOTENCY_KEY="nul")
    again = client.post(path, {"ending": "gin\x00"}, format="json", HTTP_IDEMPOTENCY_KEY="nul")
    assert first.status_code == again.status_code == 400
    assert "ending" in again.json() and again.headers["Idempotent-Replayed"] == "true"
    assert game.hands.count() == 1


@pytest.mark.parametrize("player", ["-2437242651291193704448", "0", "99999999999999999999999", "1.5"])
def test_out_of_range_player_filter_is_a_400_not_a_crash(player):
    response = APIClient().get("/api/games/", {"player": player})
    assert response.status_code == 400 and "player" in response.json()
