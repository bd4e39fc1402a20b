"""Safe defaults and hostile input: error pages, JSON errors under /api/, huge and deeply nested bodies, CSV exports."""

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from players.models import Player
from players.tokens import token_create
from scoring.league import services as league
from scoring.models import Game, SeasonFormat
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db

PROBLEM_KEYS = {"field", "message", "hand"}
THREE_MB = 3 * 1024 * 1024


@pytest.fixture
def api(db):
    user = UserFactory(username="tess")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    client.user = user
    return client


@pytest.fixture
def game(api):
    ann = PlayerFactory(name="Tess", user=api.user)
    return make_game(player_one=ann, player_two=PlayerFactory(name="Ula"), created_by=api.user)


def is_site_page(response) -> bool:
    page = response.content.decode()
    in_layout = 'class="brand"' in page and "Content-Security-Policy" in response
    return response["Content-Type"].startswith("text/html") and in_layout


# --- error pages ------------------------------------------------------------------------------------------


def test_an_unknown_page_is_a_friendly_404_without_the_url_list(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert is_site_page(response)
    assert "Not found" in page and "mistyped" in page
    assert "URLconf" not in page and "api/schema" not in page


def test_a_missing_game_says_what_is_missing(client):
    response = client.get("/games/999999/")
    assert response.status_code == 404
    assert is_site_page(response)


@pytest.mark.urls("tests.urls_failing")
def test_a_crash_is_a_friendly_500_page_without_a_traceback():
    response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page and 'class="brand"' in page
    assert "Traceback" not in page and "/srv/ginleague" not in page and "RuntimeError" not in page


@pytest.mark.urls("tests.urls_failing")
def test_a_refusal_page_says_why():
    response = Client().get("/refused/")
    assert response.status_code == 403
    assert is_site_page(response)
    assert "A disputed game is edited only by a club admin." in response.content.decode()


@pytest.mark.urls("tests.urls_failing")
def test_an_api_crash_is_a_json_500():
    response = Client(raise_request_exception=False).get("/api/broken/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert set(response.json()) == PROBLEM_KEYS
    assert "secret" not in response.content.decode()


def test_an_api_view_that_crashes_answers_json(api, monkeypatch):
    from scoring.api import games

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(games.PlayerViewSet, "list", crash)
    api.raise_request_exception = False
    response = api.get("/api/players/")
    assert response.status_code == 500
    assert set(response.json()) == PROBLEM_KEYS


def test_a_bad_host_under_the_api_is_a_json_400(client):
    response = client.get("/api/players/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert set(response.json()) == PROBLEM_KEYS


def test_a_three_megabyte_api_body_is_a_json_413(api):
    body = json.dumps({"name": "x" * THREE_MB})
    for url in ("/api/players/", "/api/games/import/"):
        response = api.post(url, body, content_type="application/json")
        assert response.status_code == 413, url
        assert set(response.json()) == PROBLEM_KEYS
        assert "too large" in response.json()["message"]


def test_a_three_megabyte_form_is_a_413_page(client, user):
    response = client.post(reverse("login"), {"username": "x" * THREE_MB, "password": "y"})
    assert response.status_code == 413
    assert is_site_page(response)


def test_static_files_are_served_with_debug_off(client, settings):
    assert settings.DEBUG is False
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert b"body" in b"".join(response.streaming_content)


# --- deeply nested JSON ------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1_000, 100_000])
@pytest.mark.parametrize("endpoint", ["/api/players/", "/api/games/", "hands", "/api/games/import/"])
def test_deeply_nested_json_is_a_clear_400_on_every_json_endpoint(api, game, endpoint, depth):
    url = f"/api/games/{game.pk}/hands/" if endpoint == "hands" else endpoint
    for body in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        response = api.post(url, body, content_type="application/json")
        assert response.status_code == 400
        answer = response.json()
        assert "nest at most 32 deep" in answer["message"]
        if endpoint == "/api/games/import/":  # the import answers like `scoresheet --json`
            assert answer["error"] == {"hand": None, "field": "record"}
        else:
            assert set(answer) == PROBLEM_KEYS


def test_brackets_inside_strings_do_not_count_as_nesting(api):
    response = api.post("/api/players/", {"name": "[{" * 20}, format="json")
    assert response.status_code == 201


# --- JSON only ---------------------------------------------------------------------------------------------


def test_the_api_takes_json_only(api):
    response = api.post("/api/players/", {"name": "Form Fred"}, format="multipart")
    assert response.status_code == 415
    assert set(response.json()) == PROBLEM_KEYS
    response = api.post("/api/players/", "name=Form+Fred", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert not Player.objects.filter(name="Form Fred").exists()


def test_the_schema_offers_every_write_body_as_json_only(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    bodies = {
        f"{method.upper()} {path}": set(operation["requestBody"]["content"])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }
    assert bodies, "the schema has write bodies"
    assert {name: kinds for name, kinds in bodies.items() if kinds != {"application/json"}} == {}


# --- CSV formula injection ---------------------------------------------------------------------------------

HOSTILE = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tTab", "\rReturn"]


def csv_cells(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))


@pytest.fixture
def hostile_league():
    cast = make_club(name="Formula Gin")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    Player.objects.filter(pk=pat.pk).update(name=HOSTILE[0])
    Player.objects.filter(pk=quinn.pk).update(name=HOSTILE[1])
    pat.refresh_from_db()
    quinn.refresh_from_db()
    season = league.season_create(
        club=cast.club, name="=cmd()", players=[pat, quinn], format=SeasonFormat.OPEN, created_by=cast.owner
    )
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    play(game, quinn, defender_deadwood=80)
    league.game_confirm(game=game, confirmed_by=cast.owner)
    casual = make_game(player_one=pat, player_two=PlayerFactory(name=HOSTILE[2]))
    play(casual, pat)
    return cast, season, pat


def assert_inert(cells: list[list[str]]):
    for row in cells:
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            if cell.startswith("-"):
                float(cell)  # only a number may start with a minus


def test_standings_csv_neutralises_formulas_and_keeps_numbers(client, hostile_league):
    cast, season, _ = hostile_league
    cells = csv_cells(client.get(reverse("stats:standings_csv", args=[cast.club.slug, season.pk])))
    assert_inert(cells)
    names = [row[2] for row in cells[1:]]
    assert sorted(names) == sorted(["'" + HOSTILE[0], "'" + HOSTILE[1]])
    nets = [row[7] for row in cells[1:]]
    assert any(net.startswith("-") and int(net) < 0 for net in nets)  # a loss stays a number


def test_club_hands_csv_neutralises_formulas(client, hostile_league):
    cast, _, _ = hostile_league
    cells = csv_cells(client.get(reverse("stats:club_hands_csv", args=[cast.club.slug])))
    assert_inert(cells)
    assert "'" + HOSTILE[1] in cells[1] and "'=cmd()" in cells[1]


def test_player_hands_csv_neutralises_formulas(client, hostile_league):
    _, _, pat = hostile_league
    cells = csv_cells(client.get(reverse("stats:player_hands_csv", args=[pat.pk])))
    assert_inert(cells)
    assert any("'" + HOSTILE[2] in row for row in cells[1:])
    assert all(row[5].isdigit() for row in cells[1:])  # hand numbers stay numbers


def test_every_hostile_start_is_neutralised_and_json_keeps_names_as_they_are():
    from scoring.stats.exports import csv_safe

    assert [csv_safe(name) for name in HOSTILE] == ["'" + name for name in HOSTILE]
    assert [csv_safe(value) for value in (-10, "-10", "-3.50", "+4", 7, "Ann")] == [-10, "-10", "-3.50", "+4", 7, "Ann"]


# --- checked and holding: keep them so ----------------------------------------------------------------------


def test_mass_assignment_is_ignored(api):
    other = UserFactory(username="someone-else")
    response = api.post(
        "/api/players/", {"name": "Mass Mo", "id": 999_999, "user": other.pk, "has_account": True}, format="json"
    )
    assert response.status_code == 201
    mo = Player.objects.get(name="Mass Mo")
    assert mo.pk != 999_999 and mo.user_id is None


def test_hostile_names_are_escaped_under_a_nonce_csp(client):
    hostile = PlayerFactory(name='<script>alert("x")</script>')
    response = client.get(reverse("stats:player", args=[hostile.pk]))
    page = response.content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    policy = response["Content-Security-Policy"]
    # No inline script runs: the site's own files only (a page that writes a tag with a nonce, such as htmx's
    # on a signed-in page, adds that response's nonce; this signed-out page writes none, issue 40).
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy


def test_absurd_numbers_ids_and_content_types_are_refused_with_4xx(api, game):
    ann = game.player_one
    huge = api.post(f"/api/games/{game.pk}/hands/", {"ending": "knock", "by": ann.pk, "knocker_deadwood": 10**30,
                                                     "defender_deadwood": 20}, format="json")  # fmt: skip
    assert huge.status_code == 400
    assert api.get(f"/api/games/{10**30}/").status_code == 404
    assert api.get(f"/api/games/{game.pk}/hands/{10**30}/").status_code == 404
    assert api.post("/api/players/", "name: x", content_type="text/plain").status_code == 415
    assert game.hands.count() == 0


def test_only_errors_a_retry_cures_answer_503():
    """A lost connection or a restart answers "try again" (503); a missing table after a forgotten
    migration does not pretend to be temporary (it stays a 500, logged and noticed)."""
    import sqlite3

    import psycopg
    from django.db import InterfaceError, OperationalError

    from ginleague.errors import is_connection_lost

    def wrapped(cause):
        error = OperationalError(str(cause))
        error.__cause__ = cause
        return error

    terminated = psycopg.errors.AdminShutdown("terminating connection due to administrator command")
    assert is_connection_lost(wrapped(terminated))
    assert is_connection_lost(wrapped(psycopg.OperationalError("server closed the connection unexpectedly")))
    assert is_connection_lost(wrapped(sqlite3.OperationalError("database is locked")))
    assert is_connection_lost(InterfaceError("connection already closed"))
    assert not is_connection_lost(wrapped(sqlite3.OperationalError("no such table: scoring_standingtotal")))
    assert not is_connection_lost(ValueError("not a database error"))


# --- NUL characters in addresses ---------------------------------------------------------------------------

STRING_CONVERTERS = {"str", "slug", "path"}


def routes_taking_text() -> list[tuple[str, list[str]]]:
    """Every URL pattern (walking the includes) as a route, and the names of its text-taking parts."""
    import re

    from django.urls import URLPattern, URLResolver, get_resolver
    from django.urls.resolvers import RoutePattern

    found = []

    def walk(patterns, prefix: str):
        for entry in patterns:
            if not isinstance(entry.pattern, RoutePattern):
                continue  # the admin's regex routes take no free text that reaches the database
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern):
                texts = [name for kind, name in re.findall(r"<(?:(\w+):)?(\w+)>", route) if (kind or "str") in
                         STRING_CONVERTERS]  # fmt: skip
                if texts:
                    found.append((route, texts))

    walk(get_resolver().url_patterns, "/")
    return found


def url_with_nul(route: str, nul_in: str) -> str:
    import re

    def part(match):
        kind, name = match.group(1) or "str", match.group(2)
        if kind not in STRING_CONVERTERS:
            return "1"
        return "abc%00def" if name == nul_in else "abc"

    return re.sub(r"<(?:(\w+):)?(\w+)>", part, route)


def test_routes_taking_text_are_found():
    routes = dict(routes_taking_text())
    assert "/clubs/join/<str:token>/" in routes  # the invitation link of #30
    assert any(route.startswith("/clubs/<slug:") for route in routes)
    assert len(routes) >= 10


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_nul_character_in_any_text_part_of_an_address_is_a_404_never_a_500(method, db):
    from django.test import Client

    staff = UserFactory(username="nul-staff", is_staff=True, is_superuser=True)
    visitors = {"anonymous": Client(raise_request_exception=False), "staff": Client(raise_request_exception=False)}
    visitors["staff"].force_login(staff)
    for route, texts in routes_taking_text():
        for name in texts:
            url = url_with_nul(route, name)
            for who, visitor in visitors.items():
                response = getattr(visitor, method)(url)
                assert response.status_code == 404, (url, who, response.status_code)


def test_the_nul_invitation_link_is_the_sites_404_page(client, user):
    client.force_login(user)
    response = client.get("/clubs/join/%00/")
    assert response.status_code == 404
    assert is_site_page(response)
    assert client.get("/api/clubs/%00/").json()["message"]


QUERIES = [  # the list, search and filter pages' parameters ({player} and {game} are the fixture's)
    "/?show=%00",
    "/games/new/?from=%00",
    "/games/{game}/?cards=%00",
    "/players/{player}/hands/?ending=%00",
    "/players/{player}/hands/?opponent=%00",
    "/login/?next=%00",
    "/api/players/?name=%00",
    "/api/games/?player=%00",
    "/api/games/?preset=%00",
    "/api/games/?page=%00",
    "/api/players/{player}/hands/?ending=%00",
    "/api/players/{player}/hands/?page_size=%00",
    "/api/players/?%00=1",
]


@pytest.mark.parametrize("query", QUERIES)
def test_a_nul_character_in_a_query_is_a_400_naming_the_parameter(query, api, game):
    url = query.format(player=game.player_one.pk, game=game.pk)
    api.raise_request_exception = False
    assert api.get(url.replace("%00", "x")).status_code < 500  # the same query without the NUL is answered
    response = api.get(url)
    assert response.status_code == 400, response.content
    name = query.split("?", 1)[1].split("=", 1)[0].replace("%00", "\\u0000")
    if query.startswith("/api/"):
        assert response.json()["field"] == name
        assert "NUL" in response.json()["message"]
    else:
        assert is_site_page(response)


def test_a_nul_character_in_a_static_file_address_is_a_404(client):
    assert client.get("/static/css/site%00.css").status_code == 404
    assert client.get("/static/%00").status_code == 404


# --- lone UTF-16 surrogates and duplicate keys in JSON -----------------------------------------------------


def raw_json(data) -> str:
    """JSON text as a client would send it: json.dumps writes a lone surrogate as its \\u escape."""
    return json.dumps(data)


def test_a_lone_surrogate_in_a_hand_is_a_400_naming_the_field(api, game):
    api.raise_request_exception = False
    response = api.post(f"/api/games/{game.pk}/hands/", raw_json({"ending": "\ud800"}), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["field"] == "ending"
    assert "surrogate" in response.json()["message"]
    assert game.hands.count() == 0


def test_a_lone_surrogate_in_a_season_format_is_a_400_naming_the_field(db):
    cast = make_club(name="Surrogate Gin")
    api = APIClient()
    api.force_authenticate(cast.owner)
    api.raise_request_exception = False
    players = [cast.player_of(cast.player).pk, cast.player_of(cast.rival).pk]
    body = raw_json({"name": "Summer", "players": players, "format": "\udfff"})
    response = api.post(f"/api/clubs/{cast.club.pk}/seasons/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["field"] == "format"
    assert cast.club.seasons.count() == 0


def test_a_lone_surrogate_deep_in_a_record_or_in_a_key_is_named_by_its_path(api):
    api.raise_request_exception = False
    record = {"players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": [{"ending": "dead"}, {"ending": "\ud83d"}]}
    response = api.post("/api/games/import/", raw_json(record), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "hands[1].ending"
    keyed = api.post("/api/players/", raw_json({"name": "Ann", "\ud800": 1}), content_type="application/json")
    assert keyed.status_code == 400 and keyed.json()["field"] == "\\ud800"


def test_a_surrogate_pair_is_ordinary_text(api):
    response = api.post("/api/players/", '{"name": "Ace \\ud83c\\udca1"}', content_type="application/json")
    assert response.status_code == 201
    assert response.json()["name"] == "Ace \U0001f0a1"


@pytest.mark.parametrize("number", ["1e999999", "5", "-0.5"])
def test_a_name_sent_as_a_json_number_is_refused(api, number):
    for url in ("/api/players/", "/api/clubs/"):
        response = api.post(url, f'{{"name": {number}}}', content_type="application/json")
        assert response.status_code == 400, url
        assert "not a number" in " ".join(response.json()["name"])
    assert not Player.objects.filter(name__in=["inf", number]).exists()


def test_a_key_given_twice_in_a_json_body_is_refused_naming_it(api):
    response = api.post("/api/players/", '{"name": "Ann", "name": "Bob"}', content_type="application/json")
    assert response.status_code == 400
    assert response.json()["field"] == "name"
    assert "given twice" in response.json()["message"]
    assert not Player.objects.filter(name__in=["Ann", "Bob"]).exists()
    record = '{"players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": [{"ending": "dead", "ending": "gin"}]}'
    imported = api.post("/api/games/import/", record, content_type="application/json")
    assert imported.status_code == 400
    assert imported.json()["error"]["field"] == "ending"


BIDI = "\u202e\u2066\u200f"


def test_bidi_controls_are_taken_out_of_names_sent_to_the_api(api):
    response = api.post("/api/players/", {"name": f"Ann{BIDI[0]}eb{BIDI[1]}Bob{BIDI[2]}"}, format="json")
    assert response.status_code == 201
    assert response.json()["name"] == "AnnebBob"
    again = api.post("/api/players/", {"name": "\u202dAnneb\u202cBob"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == response.json()["id"]  # the same player
    assert api.post("/api/players/", {"name": "\u202e\u2069"}, format="json").status_code == 400
    club = api.post("/api/clubs/", {"name": f"Gin{BIDI[0]} Club"}, format="json")
    assert club.status_code == 201 and club.json()["name"] == "Gin Club"


INVISIBLE = "\u200b\ufeff\u3164\u2060"  # a zero-width space, a byte-order mark, a Hangul filler, a word joiner


def test_a_name_of_nothing_visible_is_refused_naming_the_seat_and_invisible_ends_are_dropped(client, user):
    """Pasted from a chat, "Ann" can carry a zero-width space: it is still Ann, not a second Ann who looks the
    same; and a name that shows nothing is refused as an empty one, with the seat named."""
    client.force_login(user)
    ann = Player.objects.create(name="Ann")
    start = {"player_two": "Bob", "first_dealer": "one", "preset": "standard", "action": "start"}
    blank = client.post(reverse("game_new"), {**start, "player_one": INVISIBLE})
    assert blank.status_code == 422
    assert "First player: enter a name." in blank.content.decode()
    started = client.post(reverse("game_new"), {**start, "player_one": f"{INVISIBLE}Ann\u200b"})
    assert started.status_code == 302
    game = Game.objects.get()
    assert game.player_one == ann
    assert Player.objects.filter(name__startswith="Ann").count() == 1
    # Joined emoji keep their joiners: only the ends are trimmed.
    family = "\U0001f469\u200d\U0001f467"
    client.post(reverse("game_new"), {**start, "player_one": f"Cy {family}"})
    assert Player.objects.filter(name=f"Cy {family}").exists()


def test_a_name_too_long_for_a_seat_is_refused_naming_the_seat(client, user):
    client.force_login(user)
    response = client.post(reverse("game_new"), {"player_one": "Ann", "player_two": "B" * 61, "first_dealer": "one",
                                                 "preset": "standard", "action": "start"})  # fmt: skip
    assert response.status_code == 422
    assert "Second player: A name has at most 60 characters." in response.content.decode()
    assert not Game.objects.exists()


def test_the_api_takes_no_player_whose_name_shows_nothing(api):
    assert api.post("/api/players/", {"name": INVISIBLE}, format="json").status_code == 400
    ann = api.post("/api/players/", {"name": "\u200bAnn"}, format="json")
    assert ann.status_code == 201 and ann.json()["name"] == "Ann"
    assert api.post("/api/clubs/", {"name": "\u3164"}, format="json").status_code == 400


def test_bidi_controls_are_taken_out_of_names_typed_on_the_pages(client, user):
    client.force_login(user)
    client.post(reverse("game_new"), {"player_one": f"Zed{BIDI[0]}", "player_two": f"{BIDI[1]}Yan",
                                      "first_dealer": "one", "preset": "standard", "action": "start"})  # fmt: skip
    assert set(Player.objects.values_list("name", flat=True)) >= {"Zed", "Yan"}
    assert not Player.objects.filter(name__contains="\u202e").exists()
    client.logout()
    client.post(reverse("signup"), {"username": "rtl", "password1": "a-long-test-password",
                                    "password2": "a-long-test-password", "player_name": f"Rita{BIDI[2]}"})  # fmt: skip
    assert Player.objects.get(user__username="rtl").name == "Rita"
