"""The league API (clubs, seasons, fixtures, standings, confirmation): the same rules as the club pages.

A private club and everything in it is a 404 to anyone who is not a member;
a member without the right role gets a 403; anonymous callers only read.
"""

import pytest
from rest_framework.test import APIClient

from players.models import Club, Player
from players.tokens import token_create
from scoring import services
from scoring.league import services as league
from scoring.models import FactChange, Fixture, Game, LeagueStatus, Season, SeasonFormat
from tests.league_setup import make_club, make_user, play, start_and_finish

pytestmark = pytest.mark.django_db

# The roles a caller can have towards the club. "rival" is a member who is the other player of the
# finished game (so the one who confirms or disputes it) but not in the unstarted fixture.
ROLES = [None, "outsider", "staff", "player", "rival", "admin", "owner"]
MEMBERS = {"player", "rival", "admin", "owner"}
MANAGERS = {"admin", "owner"}


class League:
    """A club (public or private) with a round robin Pat v Quinn v Gus (a guest), whose Pat v Quinn game
    Pat started and won (provisional), an open-play season Pat v Quinn, and a staff account outside it."""

    def __init__(self, *, is_public: bool):
        self.cast = make_club(name="Thursday Gin" if is_public else "Back Room", is_public=is_public)
        self.club = self.cast.club
        self.pat = self.cast.player_of(self.cast.player)
        self.quinn = self.cast.player_of(self.cast.rival)
        self.gus = self.cast.guest
        self.season = league.season_create(club=self.club, name="Spring", players=[self.pat, self.quinn, self.gus])
        played = self.season.fixtures.get(home__in=[self.pat, self.quinn], away__in=[self.pat, self.quinn])
        self.game = start_and_finish(played, self.pat, started_by=self.cast.player)
        self.fixture = self.season.fixtures.get(home__in=[self.pat, self.gus], away__in=[self.pat, self.gus])
        self.open_season = league.season_create(
            club=self.club, name="Open", players=[self.pat, self.quinn], format=SeasonFormat.OPEN
        )
        self.staff = make_user(username=f"staff-{self.club.slug}")
        self.staff.is_staff = True
        self.staff.save()

    def user(self, role):
        return {
            None: None,
            "outsider": self.cast.outsider,
            "staff": self.staff,
            "player": self.cast.player,
            "rival": self.cast.rival,
            "admin": self.cast.admin,
            "owner": self.cast.owner,
        }[role]

    def client(self, role) -> APIClient:
        return api_client(self.user(role))


def api_client(user) -> APIClient:
    client = APIClient(enforce_csrf_checks=True)
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


@pytest.fixture
def public():
    return League(is_public=True)


@pytest.fixture
def private():
    return League(is_public=False)


# ---------------------------------------------------------------------------
# The permission matrix


def league_endpoints(w: League):
    club, season, game, fixture = w.club, w.season, w.game, w.fixture
    return [
        # (name, method, path, body, rule, success status)
        ("clubs list", "get", "/api/clubs/", None, "list", 200),
        ("club detail", "get", f"/api/clubs/{club.pk}/", None, "read", 200),
        ("club create", "post", "/api/clubs/", {"name": "Friday Gin"}, "signed_in", 201),
        ("club update", "patch", f"/api/clubs/{club.pk}/", {"name": "Thursday Night Gin"}, "manage", 200),
        ("club members", "get", f"/api/clubs/{club.pk}/members/", None, "read", 200),
        ("club seasons", "get", f"/api/clubs/{club.pk}/seasons/", None, "read", 200),
        (
            "season create",
            "post",
            f"/api/clubs/{club.pk}/seasons/",
            {"name": "Summer", "players": [w.pat.pk, w.quinn.pk]},
            "manage",
            201,
        ),
        ("seasons list", "get", "/api/seasons/", None, "list", 200),
        ("season detail", "get", f"/api/seasons/{season.pk}/", None, "read", 200),
        ("season update", "patch", f"/api/seasons/{season.pk}/", {"ranking": ["net", "wins"]}, "manage", 200),
        ("standings", "get", f"/api/seasons/{season.pk}/standings/", None, "read", 200),
        (
            "open game start",
            "post",
            f"/api/seasons/{w.open_season.pk}/games/",
            {"player_one": w.pat.pk, "player_two": w.quinn.pk},
            "member",
            201,
        ),
        ("fixtures list", "get", "/api/fixtures/", None, "list", 200),
        ("fixture detail", "get", f"/api/fixtures/{fixture.pk}/", None, "read", 200),
        ("fixture history", "get", f"/api/fixtures/{fixture.pk}/history/", None, "read", 200),
        ("fixture start", "post", f"/api/fixtures/{fixture.pk}/start/", {}, "start", 201),
        ("league game detail", "get", f"/api/games/{game.pk}/", None, "read", 200),
        ("game audit", "get", f"/api/games/{game.pk}/audit/", None, "read", 200),
        ("game confirm", "post", f"/api/games/{game.pk}/confirm/", {"comment": "Fair and square"}, "confirm", 200),
        ("game dispute", "post", f"/api/games/{game.pk}/dispute/", {"comment": "Hand 1 was a knock"}, "dispute", 200),
        ("club ratings", "get", f"/api/clubs/{club.pk}/ratings/", None, "read", 200),
        ("club hands", "get", f"/api/clubs/{club.pk}/hands/", None, "read", 200),
        ("player ratings", "get", f"/api/players/{w.pat.pk}/ratings/", None, "list", 200),  # private clubs left out
        ("player hands", "get", f"/api/players/{w.pat.pk}/hands/", None, "list", 200),
    ]


LEAGUE_ENDPOINT_NAMES = [
    "clubs list", "club detail", "club create", "club update", "club members", "club seasons", "season create",
    "seasons list", "season detail", "season update", "standings", "open game start", "fixtures list",
    "fixture detail",
    "fixture history", "fixture start", "league game detail", "game audit", "game confirm", "game dispute",
    "club ratings", "club hands", "player ratings", "player hands",
]  # fmt: skip

# The API routes this matrix covers (tests/test_api.py checks the rest; the test below checks these).
LEAGUE_ROUTES = frozenset(
    {
        "club-list", "club-detail", "club-members", "club-seasons", "season-list", "season-detail",
        "season-standings", "season-games", "fixture-list", "fixture-detail",
        "fixture-history", "fixture-start", "game-audit",
        "game-confirm", "game-dispute", "club-ratings", "club-hands", "player-ratings", "player-hands",
    }
)  # fmt: skip


def expected(rule, role, is_public):
    visible = is_public or role in MEMBERS
    if rule == "list":
        return 200
    if rule == "read":
        return 200 if visible else 404
    if role is None:
        return 403  # anonymous callers write nothing
    if rule == "signed_in":
        return "ok"
    if not visible:
        return 404  # a private club does not exist for outsiders, staff included
    allowed = {
        "manage": MANAGERS,
        "member": MEMBERS,
        "start": {"player", *MANAGERS},  # the fixture's player (Pat v Gus) or an admin
        "confirm": {"rival", *MANAGERS},  # the other player, or an admin
        "dispute": {"rival"},  # the other player only
    }[rule]
    return "ok" if role in allowed else 403


def _state():
    return (
        list(Club.objects.order_by("pk").values_list("name", "is_public")),
        list(Season.objects.order_by("pk").values_list("name", "ranking")),
        list(Game.objects.order_by("pk").values_list("pk", "league_status")),
        FactChange.objects.count(),
    )


class TestLeaguePermissionMatrix:
    """Every league endpoint, every role, for a public and a private club: one pair of clubs for the matrix."""

    @pytest.fixture(scope="class")
    @classmethod
    def leagues(cls, class_rows):
        return {"public": League(is_public=True), "private": League(is_public=False)}

    @pytest.mark.parametrize("club", ["public", "private"])
    @pytest.mark.parametrize("role", ROLES, ids=lambda role: role or "anonymous")
    @pytest.mark.parametrize("endpoint", LEAGUE_ENDPOINT_NAMES)
    def test_league_permission_matrix(self, endpoint, role, club, leagues):
        world = leagues[club]
        name, method, path, body, rule, success = next(row for row in league_endpoints(world) if row[0] == endpoint)
        before = _state()
        client = world.client(role)
        response = (
            getattr(client, method)(path, body, format="json") if body is not None else getattr(client, method)(path)
        )
        want = expected(rule, role, world.club.is_public)
        assert response.status_code == (success if want == "ok" else want), response.content
        if response.status_code in (403, 404):
            problem = response.json()
            assert set(problem) == {"field", "message", "hand"} and problem["message"]
            assert _state() == before  # a refused write changes nothing
        elif method != "get":
            assert _state() != before


def test_league_matrix_covers_its_routes(public):
    from django.urls import resolve

    rows = league_endpoints(public)
    assert [row[0] for row in rows] == LEAGUE_ENDPOINT_NAMES
    covered = {resolve(path.split("?")[0]).url_name for _, _, path, _, _, _ in rows}
    assert covered >= LEAGUE_ROUTES


def test_lists_show_private_clubs_to_their_members_only(public, private):
    def listed(client, path, key="id", **query):
        response = client.get(path, query)
        assert response.status_code == 200, response.content
        return {item[key] for item in response.json()["results"]}

    for role, sees_private in ((None, False), ("outsider", False), ("staff", False), ("player", True)):
        client = private.client(role)
        clubs = listed(client, "/api/clubs/", key="name")
        assert ("Back Room" in clubs) is sees_private and "Thursday Gin" in clubs
        seasons = {s["club"] for s in client.get("/api/seasons/").json()["results"]}
        assert (private.club.pk in seasons) is sees_private and public.club.pk in seasons
        fixtures = listed(client, "/api/fixtures/", season=private.season.pk)
        assert bool(fixtures) is sees_private
        games = listed(client, "/api/games/")
        assert (private.game.pk in games) is sees_private and public.game.pk in games
        assert client.get(f"/api/games/{private.game.pk}/hands/{private.game.hands.get().pk}/").status_code == (
            200 if sees_private else 404
        )
    # The caller's role comes with each club.
    mine = {c["name"]: c["my_role"] for c in private.client("admin").get("/api/clubs/").json()["results"]}
    assert mine == {"Back Room": "admin", "Thursday Gin": None}


def test_session_write_needs_csrf(public):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(public.cast.rival)
    response = client.post(f"/api/games/{public.game.pk}/confirm/", {}, format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["message"]
    public.game.refresh_from_db()
    assert public.game.league_status == LeagueStatus.PLAYING


# ---------------------------------------------------------------------------
# Clubs


def test_club_create_makes_the_caller_owner_and_refuses_a_blank_name(public):
    client = public.client("outsider")
    response = client.post("/api/clubs/", {"name": "  Sunday   Gin ", "is_public": False}, format="json")
    assert response.status_code == 201, response.content
    club = response.json()
    assert club["name"] == "Sunday Gin" and club["my_role"] == "owner" and club["is_public"] is False
    members = client.get(f"/api/clubs/{club['id']}/members/").json()["results"]
    assert [(m["role"], m["has_account"]) for m in members] == [("owner", True)]
    # Private: invisible to anyone else.
    assert public.client(None).get(f"/api/clubs/{club['id']}/").status_code == 404
    blank = client.post("/api/clubs/", {"name": "   "}, format="json")
    assert blank.status_code == 400 and "name" in blank.json()
    assert Club.objects.filter(name="").count() == 0


def test_a_name_is_measured_as_sent_as_the_schema_says_even_with_spaces_around_it(public):
    client = public.client("outsider")
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert schema["ClubWriteRequest"]["properties"]["name"]["maxLength"] == 100
    for sent in (" " + "s" * 100, "\x1e" + "s" * 100):  # 101 characters, 100 once trimmed
        refused = client.post("/api/clubs/", {"name": sent}, format="json")
        assert refused.status_code == 400
        assert refused.json() == {"name": ["Ensure this field has no more than 100 characters."]}
    assert not Club.objects.filter(name="s" * 100).exists()
    taken = client.post("/api/clubs/", {"name": " " + "s" * 98 + " "}, format="json")  # 100 sent: trimmed, kept
    assert taken.status_code == 201 and taken.json()["name"] == "s" * 98


def test_club_update_by_an_admin_and_members_filter(public):
    response = public.client("admin").patch(f"/api/clubs/{public.club.pk}/", {"is_public": False}, format="json")
    assert response.status_code == 200 and response.json()["is_public"] is False
    assert response.json()["slug"] == public.club.slug  # links keep working
    assert public.client(None).get(f"/api/clubs/{public.club.pk}/").status_code == 404
    refused = public.client("admin").patch(f"/api/clubs/{public.club.pk}/", {"name": " "}, format="json")
    assert refused.status_code == 400 and "name" in refused.json()
    admins = public.client("player").get(f"/api/clubs/{public.club.pk}/members/", {"role": "admin"}).json()
    assert [m["player"]["id"] for m in admins["results"]] == [Player.objects.get(user=public.cast.admin).pk]
    guests = [m for m in public.client("player").get(f"/api/clubs/{public.club.pk}/members/").json()["results"]
              if not m["has_account"]]  # fmt: skip
    assert [m["player"]["name"] for m in guests] == [public.gus.name]


# ---------------------------------------------------------------------------
# Seasons


def test_season_create_makes_a_round_robin(public):
    body = {
        "name": "Summer",
        "players": [public.pat.pk, public.quinn.pk, public.gus.pk],
        "rules": {"preset": "standard", "target": 150},
        "format": "double",
        "ranking": ["net", "wins"],
        "starts_on": "2025-06-01",
        "ends_on": "2025-08-31",
    }
    response = public.client("admin").post(f"/api/clubs/{public.club.pk}/seasons/", body, format="json")
    assert response.status_code == 201, response.content
    season = response.json()
    assert season["rules"]["target"] == 150 and season["ranking"] == ["net", "wins"] and season["format"] == "double"
    assert {p["id"] for p in season["players"]} == {public.pat.pk, public.quinn.pk, public.gus.pk}
    fixtures = public.client(None).get("/api/fixtures/", {"season": season["id"], "page_size": 200}).json()
    assert fixtures["count"] == 6  # three pairs, home and away
    pairs = [frozenset((f["home"]["id"], f["away"]["id"])) for f in fixtures["results"]]
    assert all(pairs.count(pair) == 2 for pair in pairs)
    listed = public.client(None).get(f"/api/clubs/{public.club.pk}/seasons/", {"season_format": "double"}).json()
    assert [s["id"] for s in listed["results"]] == [season["id"]]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"players": "outsider"}, "players"),
        ({"rules": {"preset": "standard", "target": -5}}, "target"),
        ({"rules": {"preset": "snap"}}, "preset"),
        ({"starts_on": "2025-06-01", "ends_on": "2025-05-01"}, "ends_on"),
        ({"ranking": ["wins", "wins"]}, "ranking"),
        ({"players": "one"}, "players"),
    ],
)
def test_season_create_refusal_names_the_field_and_stores_nothing(public, change, field):
    outsider_player = Player.objects.create(name="Otto Outside")
    body = {"name": "Summer", "players": [public.pat.pk, public.quinn.pk], **change}
    if change.get("players") == "outsider":
        body["players"] = [public.pat.pk, outsider_player.pk]
    elif change.get("players") == "one":
        body["players"] = [public.pat.pk]
    seasons_before = Season.objects.count()
    response = public.client("owner").post(f"/api/clubs/{public.club.pk}/seasons/", body, format="json")
    assert response.status_code == 400, response.content
    problem = response.json()
    assert problem["field"] == field and problem["message"] and problem["hand"] is None
    assert Season.objects.count() == seasons_before


def test_season_update_is_all_or_nothing_and_rules_fix_once_play_starts(public):
    fresh = league.season_create(club=public.club, name="Later", players=[public.pat, public.quinn])
    client = public.client("admin")
    # A valid rule change with an invalid ranking: neither is saved.
    bad = client.patch(
        f"/api/seasons/{fresh.pk}/", {"rules": {"preset": "classic"}, "ranking": ["wins", "wins"]}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["field"] == "ranking"
    fresh.refresh_from_db()
    assert fresh.preset == "standard"
    ok = client.patch(f"/api/seasons/{fresh.pk}/", {"rules": {"preset": "classic"}}, format="json")
    assert ok.status_code == 200 and ok.json()["preset"] == "classic"
    # The Spring season has a game: its rules are fixed, its ranking is not.
    fixed = client.patch(f"/api/seasons/{public.season.pk}/", {"rules": {"preset": "classic"}}, format="json")
    assert fixed.status_code == 400 and fixed.json()["field"] == "rules"
    ranked = client.patch(f"/api/seasons/{public.season.pk}/", {"ranking": ["gins"]}, format="json")
    assert ranked.status_code == 200 and ranked.json()["ranking"] == ["gins"]
    assert client.put(f"/api/seasons/{public.season.pk}/", {}, format="json").status_code == 405


def test_season_filters(public, private):
    client = private.client("owner")
    by_club = client.get("/api/seasons/", {"club": private.club.pk}).json()["results"]
    assert {s["name"] for s in by_club} == {"Spring", "Open"}
    assert {s["name"] for s in client.get("/api/seasons/", {"club": private.club.pk, "season_format": "open"}).json()[
        "results"]} == {"Open"}  # fmt: skip
    # Another caller filtering on the private club sees nothing, not an error that would reveal it.
    assert public.client("owner").get("/api/seasons/", {"club": private.club.pk}).json()["count"] == 0
    assert client.get("/api/seasons/", {"season_format": "league"}).status_code == 400


# ---------------------------------------------------------------------------
# Fixtures and games


def test_fixture_start_plays_under_the_season_rules_once(public):
    client = public.client("player")
    response = client.post(
        f"/api/fixtures/{public.fixture.pk}/start/", {"first_dealer": public.pat.pk}, format="json",
        HTTP_IDEMPOTENCY_KEY="start-1",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    game = response.json()
    assert game["season"] == public.season.pk and game["fixture"] == public.fixture.pk
    assert game["league_status"] == "playing" and game["first_dealer"]["id"] == public.pat.pk
    assert game["rules"] == public.season.rules and game["can_edit"] is True
    # A retry of the same request replays; a new request is refused by the service.
    again = client.post(
        f"/api/fixtures/{public.fixture.pk}/start/", {"first_dealer": public.pat.pk}, format="json",
        HTTP_IDEMPOTENCY_KEY="start-1",
    )  # fmt: skip
    assert again.status_code == 201 and again.json()["id"] == game["id"]
    second = public.client("admin").post(f"/api/fixtures/{public.fixture.pk}/start/", {}, format="json")
    assert second.status_code == 400 and second.json()["field"] == "fixture"
    assert Game.objects.filter(fixture=public.fixture).count() == 1
    shown = client.get(f"/api/fixtures/{public.fixture.pk}/").json()
    assert shown["game"]["id"] == game["id"] and shown["game"]["over"] is False


def test_fixture_start_refuses_a_dealer_who_is_not_playing(public):
    response = public.client("admin").post(
        f"/api/fixtures/{public.fixture.pk}/start/", {"first_dealer": public.quinn.pk}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "first_dealer"
    assert not Game.objects.filter(fixture=public.fixture).exists()


def test_fixture_filters(public):
    client = public.client(None)

    def ids(**query):
        response = client.get("/api/fixtures/", {"season": public.season.pk, **query})
        assert response.status_code == 200, response.content
        return {f["id"] for f in response.json()["results"]}

    everything = ids()
    assert len(everything) == 3
    assert ids(played="true") == {public.game.fixture_id}
    assert ids(played="false") == everything - {public.game.fixture_id}
    assert ids(player=public.gus.pk) == set(
        Fixture.objects.filter(season=public.season, home=public.gus).values_list("pk", flat=True)
    ) | set(Fixture.objects.filter(season=public.season, away=public.gus).values_list("pk", flat=True))
    assert len(ids(player=public.gus.pk)) == 2
    assert all(f["round"] == 1 for f in client.get("/api/fixtures/", {"round": 1}).json()["results"])
    for bad in ({"played": "maybe"}, {"round": "0"}, {"player": ""}):
        assert client.get("/api/fixtures/", bad).status_code == 400


def test_open_game_start_refuses_a_player_outside_the_season(public):
    client = public.client("rival")
    refused = client.post(
        f"/api/seasons/{public.open_season.pk}/games/",
        {"player_one": public.quinn.pk, "player_two": public.gus.pk},
        format="json",
    )
    assert refused.status_code == 400 and refused.json()["field"] == "player_two"
    round_robin = client.post(
        f"/api/seasons/{public.season.pk}/games/", {"player_one": public.pat.pk, "player_two": public.quinn.pk},
        format="json",
    )  # fmt: skip
    assert round_robin.status_code == 400 and round_robin.json()["field"] == "season"
    assert Game.objects.count() == 1


def test_confirm_counts_the_result_in_the_standings(public):
    client = public.client(None)
    standings = client.get(f"/api/seasons/{public.season.pk}/standings/").json()
    assert [g["id"] for g in standings["provisional"]] == [public.game.pk]
    assert all(row["played"] == 0 for row in standings["rows"])
    assert [c["key"] for c in standings["ranking"]] == ["wins", "net", "head_to_head"]
    # Pat started the game: Pat cannot confirm it, Quinn (the other player) can.
    assert public.client("player").post(f"/api/games/{public.game.pk}/confirm/", {}, format="json").status_code == 403
    confirmed = public.client("rival").post(f"/api/games/{public.game.pk}/confirm/", {"comment": "ok"}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["league_status"] == "confirmed"
    standings = client.get(f"/api/seasons/{public.season.pk}/standings/").json()
    assert standings["provisional"] == []
    top = standings["rows"][0]
    assert top["player"]["id"] == public.pat.pk and top["position"] == 1
    assert (top["played"], top["won"], top["net"]) == (1, 1, public.game.margin)
    quinn = next(row for row in standings["rows"] if row["player"]["id"] == public.quinn.pk)
    assert (quinn["played"], quinn["lost"], quinn["net"]) == (1, 1, -public.game.margin)
    # Confirmed twice: refused by the service, and the trail has one confirmation.
    again = public.client("admin").post(f"/api/games/{public.game.pk}/confirm/", {}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "game"
    trail = client.get(f"/api/games/{public.game.pk}/audit/").json()["results"]
    assert [(t["action"], t["actor"], t["comment"]) for t in trail] == [
        ("confirmed", public.cast.rival.username, "ok")
    ]


def test_a_confirmed_result_is_corrected_by_admins_only(public):
    league.game_confirm(game=public.game, confirmed_by=public.cast.rival)
    hand = public.game.hands.get()
    body = {"defender_deadwood": 60}
    path = f"/api/games/{public.game.pk}/hands/{hand.pk}/"
    assert public.client("player").patch(path, body, format="json").status_code == 403
    response = public.client("admin").patch(path, {**body, "reason": "miscounted"}, format="json")
    assert response.status_code == 200, response.content
    trail = public.client(None).get(f"/api/games/{public.game.pk}/audit/").json()["results"]
    assert ("hand_edited", "miscounted") in {(t["action"], t["comment"]) for t in trail}


def test_confirming_a_game_still_in_play_is_refused(public):
    game = league.fixture_start(fixture=public.fixture, started_by=public.cast.admin)
    response = public.client("admin").post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert response.status_code == 400 and "not over" in response.json()["message"]
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING


def test_dispute_goes_to_the_admins(public):
    path = f"/api/games/{public.game.pk}/dispute/"
    blank = public.client("rival").post(path, {"comment": "  "}, format="json")
    assert blank.status_code == 400 and "comment" in blank.json()
    disputed = public.client("rival").post(path, {"comment": "Hand 1 was a knock"}, format="json")
    assert disputed.status_code == 200 and disputed.json()["league_status"] == "disputed"
    # Now only an admin may confirm it, and it is not counted meanwhile.
    assert public.client("rival").post(f"/api/games/{public.game.pk}/confirm/", {}, format="json").status_code == 403
    standings = public.client(None).get(f"/api/seasons/{public.season.pk}/standings/").json()
    assert [(g["id"], g["league_status"]) for g in standings["provisional"]] == [(public.game.pk, "disputed")]
    assert public.client("admin").post(f"/api/games/{public.game.pk}/confirm/", {}, format="json").status_code == 200
    trail = public.client(None).get(f"/api/games/{public.game.pk}/audit/").json()["results"]
    assert [t["action"] for t in trail] == ["disputed", "confirmed"]
    assert trail[0]["comment"] == "Hand 1 was a knock"


def test_a_friendly_game_is_not_confirmed_but_has_its_history(public):
    from scoring import services
    from tests.factories import make_game

    friendly = make_game(
        player_one=public.pat,
        player_two=public.quinn,
        created_by=public.cast.player,
        hands=[{"ending": "knock", "by": public.pat.pk, "knocker_deadwood": 3, "defender_deadwood": 13}],
    )
    assert public.client("rival").post(f"/api/games/{friendly.pk}/confirm/", {}, format="json").status_code == 404
    services.hand_version_set_aside(hand=friendly.hands.get(), ending="gin", by=public.quinn.pk, defender_deadwood=7)
    answer = public.client(None).get(f"/api/games/{friendly.pk}/audit/")
    assert answer.status_code == 200, answer.content
    [line] = answer.json()["results"]
    assert (line["action"], line["before"], line["after"]) == (
        "version_set_aside",
        f"Knock by {public.pat.name} deadwood 3 against 13",
        f"Gin by {public.quinn.name} against 7",
    )


def test_game_list_filters_league_games(public):
    league.game_confirm(game=public.game, confirmed_by=public.cast.admin)
    other = league.fixture_start(fixture=public.fixture, started_by=public.cast.admin)
    play(other, public.gus, recorded_by=public.cast.admin)
    client = public.client(None)

    def ids(**query):
        return {g["id"] for g in client.get("/api/games/", query).json()["results"]}

    assert ids(season=public.season.pk) == {public.game.pk, other.pk}
    assert ids(season=public.season.pk, league_status="confirmed") == {public.game.pk}
    assert ids(league_status="playing") == {other.pk}
    assert client.get("/api/games/", {"league_status": "won"}).status_code == 400


def test_standings_follow_the_ranking(public):
    """Two confirmed games: ranked by wins Pat and Gus are level; by net the bigger win comes first."""
    league.game_confirm(game=public.game, confirmed_by=public.cast.admin)  # Pat beat Quinn (gin v 80)
    gus_quinn = public.season.fixtures.get(home__in=[public.gus, public.quinn], away__in=[public.gus, public.quinn])
    start_and_finish(gus_quinn, public.gus, started_by=public.cast.admin, defender_deadwood=90,
                     confirm_by=public.cast.admin)  # fmt: skip
    client = public.client("owner")
    client.patch(f"/api/seasons/{public.season.pk}/", {"ranking": ["net"]}, format="json")
    rows = client.get(f"/api/seasons/{public.season.pk}/standings/").json()["rows"]
    assert [row["player"]["id"] for row in rows][:2] == [public.gus.pk, public.pat.pk]
    assert rows[0]["net"] > rows[1]["net"]
    assert rows[1]["decided_by"] == "net"


def test_every_league_list_is_paginated(public):
    client = public.client("owner")
    for path in ("/api/clubs/", "/api/seasons/", "/api/fixtures/", f"/api/clubs/{public.club.pk}/members/",
                 f"/api/clubs/{public.club.pk}/seasons/", f"/api/games/{public.game.pk}/audit/"):  # fmt: skip
        first = client.get(path, {"page_size": 1})
        assert first.status_code == 200, path
        assert set(first.json()) == {"count", "next", "previous", "results"} and len(first.json()["results"]) <= 1
        assert client.get(path, {"page_size": 0}).status_code == 400, path



# ---------------------------------------------------------------------------
# Ratings and hand history


def test_ratings_move_with_confirmed_results_and_hide_private_clubs(public, private):
    for world in (public, private):
        league.game_confirm(game=world.game, confirmed_by=world.cast.admin)  # Pat beat Quinn
    rows = public.client(None).get(f"/api/clubs/{public.club.pk}/ratings/").json()["results"]
    by_player = {row["player"]["id"]: row for row in rows}
    assert rows[0]["player"]["id"] == public.pat.pk and rows[0]["position"] == 1
    assert by_player[public.pat.pk]["rating"] > 1500 > by_player[public.quinn.pk]["rating"]
    assert by_player[public.gus.pk] | {"position": 0} == {
        "player": {"id": public.gus.pk, "name": public.gus.name}, "rating": 1500.0, "games": 0, "position": 0
    }
    assert private.client("outsider").get(f"/api/clubs/{private.club.pk}/ratings/").status_code == 404
    # A player's ratings: one per club the caller may see.
    mine = private.client("rival").get(f"/api/players/{private.pat.pk}/ratings/").json()["results"]
    assert [(r["club"]["id"], r["games"], [p["game"] for p in r["history"]]) for r in mine] == [
        (private.club.pk, 1, [private.game.pk])
    ]
    assert mine[0]["rating"] == mine[0]["history"][-1]["rating"] > 1500
    assert private.client("outsider").get(f"/api/players/{private.pat.pk}/ratings/").json()["results"] == []


def test_hand_history_filters_like_the_page(public, private):
    other = league.fixture_start(fixture=public.fixture, started_by=public.cast.admin)
    services.hand_record(game=other, ending="knock", by=public.gus, knocker_deadwood=5, defender_deadwood=20)
    client = public.client(None)

    def hands(path, **query):
        response = client.get(path, query)
        assert response.status_code == 200, response.content
        return [(h["game"]["id"], h["number"], h["result"]) for h in response.json()["results"]]

    club_path = f"/api/clubs/{public.club.pk}/hands/"
    assert hands(club_path) == [(other.pk, 1, "knock"), (public.game.pk, 1, "gin")]  # newest game first
    assert hands(club_path, ending="gin") == [(public.game.pk, 1, "gin")]
    assert hands(club_path, opponent=public.gus.pk) == [(other.pk, 1, "knock")]
    assert hands(club_path, points_min=50) == [(public.game.pk, 1, "gin")]
    assert hands(f"/api/players/{public.pat.pk}/hands/", opponent=public.quinn.pk) == [(public.game.pk, 1, "gin")]
    first = client.get(club_path, {"page_size": 1}).json()
    assert len(first["results"]) == 1 and "page=2" in first["next"] and first["previous"] is None
    last = client.get(first["next"]).json()
    assert last["next"] is None and [h["game"]["id"] for h in last["results"]] == [public.game.pk]
    # Refusals name the field, as on the page.
    backwards = client.get(club_path, {"date_from": "2025-05-02", "date_to": "2025-05-01"})
    assert backwards.status_code == 400 and "date_to" in backwards.json()
    for bad in ({"ending": "won"}, {"points_min": "-1"}, {"opponent": ""}, {"page_size": "500"}):
        assert client.get(club_path, bad).status_code == 400, bad
    # A private club's hands are nobody else's business.
    assert hands(f"/api/players/{private.pat.pk}/hands/") == []
    assert private.client("player").get(f"/api/players/{private.pat.pk}/hands/").json()["results"]
