"""One rule, one answer: the same input gets the same answer on the pages, the API and import."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from rest_framework.test import APIClient

from scoring import services
from scoring.engine.record import parse_record
from scoring.engine.score import HandFacts
from scoring.league import services as league
from scoring.models import Game, LeagueStatus, Season
from tests.factories import make_game
from tests.league_setup import make_club

pytestmark = pytest.mark.django_db


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def cast():
    return make_club()


@pytest.fixture
def season(cast):
    return league.season_create(
        club=cast.club,
        name="Spring",
        players=[cast.player_of(cast.player), cast.player_of(cast.rival)],
        format="open",
    )


# --- rule overrides: `line_bonus = off` --------------------------------------------------------------


@pytest.mark.parametrize("off", ["off", "OFF ", "none"])
def test_line_bonus_off_means_no_line_bonus_everywhere(cast, off):
    """Let's Play has a line bonus of 50; "off" turns it off on both forms, the API and import."""
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)

    page = page_client(cast.player).post(
        "/games/new/",
        {"player_one": pat.name, "player_two": quinn.name, "first_dealer": "one", "preset": "lets_play",
         "rule_line_bonus": off},
    )
    assert page.status_code == 302, page.content.decode()[:2000]
    assert Game.objects.latest("pk").rules["line_bonus"] is None

    season_page = page_client(cast.owner).post(
        f"/clubs/{cast.club.slug}/seasons/new/",
        {"name": "Summer", "format": "open", "preset": "lets_play", "overrides": f"line_bonus = {off}",
         "players": [pat.pk, quinn.pk], "ranking_1": "wins", "best_of": "1"},
    )
    assert season_page.status_code == 302, season_page.context["form"].errors
    assert Season.objects.get(name="Summer").rules["line_bonus"] is None

    api = api_client(cast.player).post(
        "/api/games/",
        {"player_one": pat.pk, "player_two": quinn.pk, "first_dealer": pat.pk,
         "rules": {"preset": "lets_play", "line_bonus": off}},
        format="json",
    )
    assert api.status_code == 201, api.content
    assert api.json()["rules"]["line_bonus"] is None

    api_season = api_client(cast.owner).post(
        f"/api/clubs/{cast.club.pk}/seasons/",
        {"name": "Autumn", "players": [pat.pk, quinn.pk], "rules": {"preset": "lets_play", "line_bonus": off}},
        format="json",
    )
    assert api_season.status_code == 201, api_season.content
    assert api_season.json()["rules"]["line_bonus"] is None

    record = {"players": ["Ann", "Bob"], "first_dealer": "Ann", "rules": {"preset": "lets_play", "line_bonus": off},
              "hands": []}
    imported = services.game_import(record=parse_record(record))
    assert imported.rules["line_bonus"] is None


def test_a_line_bonus_that_is_not_a_number_is_refused_by_name_everywhere(cast):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    page = page_client(cast.player).post(
        "/games/new/",
        {"player_one": pat.name, "player_two": quinn.name, "first_dealer": "one", "preset": "standard",
         "rule_line_bonus": "lots"},
    )
    assert page.status_code == 422
    assert "Line bonus for a big win: line_bonus must be a whole number, or off" in page.content.decode()
    season_page = page_client(cast.owner).post(
        f"/clubs/{cast.club.slug}/seasons/new/",
        {"name": "Summer", "format": "open", "preset": "standard", "overrides": "line_bonus = lots",
         "players": [pat.pk, quinn.pk], "ranking_1": "wins", "best_of": "1"},
    )
    assert season_page.status_code == 400
    assert "line_bonus must be a whole number, or off" in season_page.content.decode()
    api = api_client(cast.player).post(
        "/api/games/",
        {"player_one": pat.pk, "player_two": quinn.pk, "first_dealer": pat.pk,
         "rules": {"line_bonus": "lots"}},
        format="json",
    )
    assert api.status_code == 400
    assert "line_bonus" in json.dumps(api.json())


# --- a game that is not over cannot be disputed -----------------------------------------------------


def test_an_unfinished_league_game_cannot_be_disputed_by_service_page_or_api(cast, season):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.player)
    services.hand_record(game=game, ending="knock", by=pat, knocker_deadwood=5, defender_deadwood=10)

    with pytest.raises(ValidationError, match="not over"):
        league.game_dispute(game=game, disputed_by=cast.rival, comment="Hand 1 was a gin")

    page = page_client(cast.rival).post(f"/clubs/games/{game.pk}/dispute/", {"comment": "Hand 1 was a gin"})
    assert page.status_code == 400
    assert "not over yet" in page.content.decode()

    api = api_client(cast.rival).post(f"/api/games/{game.pk}/dispute/", {"comment": "Hand 1 was a gin"},
                                      format="json")
    assert api.status_code == 400
    assert api.json()["field"] == "game" and "not over yet" in api.json()["message"]

    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING


# --- a gin entered with a knocker's deadwood --------------------------------------------------------


GIN_WITH_KNOCKER = {"ending": "gin", "knocker_deadwood": 7, "defender_deadwood": 12}


def test_a_gin_with_a_knocker_deadwood_is_refused_naming_the_field_on_the_page(cast):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = make_game(player_one=pat, player_two=quinn, created_by=cast.player)
    page = page_client(cast.player).post(f"/games/{game.pk}/hands/", {**GIN_WITH_KNOCKER, "by": pat.pk})
    assert page.status_code == 422
    assert "Knocker&#x27;s deadwood: a gin has no knocker deadwood" in page.content.decode()  # not dropped


def test_a_gin_with_a_knocker_deadwood_is_refused_naming_the_field_by_the_api(cast):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = make_game(player_one=pat, player_two=quinn, created_by=cast.player)
    api = api_client(cast.player).post(f"/api/games/{game.pk}/hands/", {**GIN_WITH_KNOCKER, "by": pat.pk},
                                       format="json")
    assert api.status_code == 400
    assert api.json()["field"] == "knocker_deadwood"


def test_a_gin_with_a_knocker_deadwood_is_refused_naming_the_field_by_import(cast, season):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    with pytest.raises(services.HandRefused) as refusal:
        league.season_game_import(
            season=season, player_one=pat, player_two=quinn, first_dealer=pat,
            hands=[HandFacts(**GIN_WITH_KNOCKER, by=pat.pk)],
        )
    assert (refusal.value.hand, refusal.value.field) == (1, "knocker_deadwood")
    assert not season.games.exists()
    record = {"players": ["Ann", "Bob"], "first_dealer": "Ann", "hands": [{**GIN_WITH_KNOCKER, "by": "Ann"}]}
    imported = api_client(cast.player).post("/api/games/import/", record, format="json")
    assert imported.status_code == 400
    assert imported.json()["error"] == {"hand": 1, "field": "knocker_deadwood"}


def test_a_gin_own_deadwood_of_0_is_accepted_everywhere_and_not_stored(cast, season):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = make_game(player_one=pat, player_two=quinn, created_by=cast.player)
    page = page_client(cast.player).post(
        f"/games/{game.pk}/hands/", {"ending": "gin", "by": pat.pk, "knocker_deadwood": "0", "defender_deadwood": "12"}
    )
    assert page.status_code in (200, 302)
    api = api_client(cast.player).post(
        f"/api/games/{game.pk}/hands/",
        {"ending": "gin", "by": pat.pk, "knocker_deadwood": 0, "defender_deadwood": 12},
        format="json",
    )
    assert api.status_code == 201, api.content
    record = {"players": ["Ann", "Bob"], "first_dealer": "Ann",
              "hands": [{"ending": "gin", "by": "Ann", "knocker_deadwood": 0, "defender_deadwood": 12}]}
    imported = services.game_import(record=parse_record(record))
    seeded = league.season_game_import(
        season=season, player_one=pat, player_two=quinn, first_dealer=pat,
        hands=[HandFacts(ending="gin", by=pat.pk, knocker_deadwood=0, defender_deadwood=12)],
    )
    for stored in (*game.hands.all(), *imported.hands.all(), *seeded.hands.all()):
        assert (stored.result, stored.points, stored.knocker_deadwood) == ("gin", 37, None)


# --- a player's hands: one selector, the same words on every page -----------------------------------


def test_a_players_hands_read_the_same_on_the_player_page_and_the_history(client):
    game = make_game()
    services.hand_record(game=game, ending="knock", by=game.player_one, knocker_deadwood=8, defender_deadwood=6)
    services.hand_record(game=game, ending="gin", by=game.player_two, defender_deadwood=10)
    ann, bob = game.player_one, game.player_two
    undercut = f"{ann.name}</a> knock, undercut by {bob.name}"
    for url in (f"/players/{ann.pk}/", f"/players/{ann.pk}/hands/"):
        page = client.get(url).content.decode()
        assert undercut in page, url
        assert f"{bob.name}</a> gin" in page, url
