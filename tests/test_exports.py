"""CSV and JSON exports: what a spreadsheet or another GinLeague gets, and re-importing the JSON."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from scoring.league import services as league
from scoring.models import Game, SeasonFormat
from scoring.selectors import game_record, games_for_export
from tests.league_setup import make_club, play
from tests.test_stats import worked_example

pytestmark = pytest.mark.django_db


@pytest.fixture
def abc():
    """Ann, Bob and Cy's games (see tests/test_stats.py)."""
    return worked_example()


def body(response) -> str:
    assert response.streaming, "exports are streamed"
    return b"".join(response.streaming_content).decode()


def rows_of(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body(response))))


@pytest.fixture
def league_club():
    cast = make_club(name="Export Gin")
    pat, quinn, gus = cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest
    season = league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn, gus], format=SeasonFormat.OPEN, created_by=cast.owner
    )
    for one, two, winner, deadwood in ((pat, quinn, pat, 80), (quinn, gus, quinn, 90), (pat, gus, gus, 80)):
        game = league.open_game_start(season=season, player_one=one, player_two=two, started_by=cast.owner)
        play(game, winner, defender_deadwood=deadwood)
        league.game_confirm(game=game, confirmed_by=cast.owner)
    return cast, season


def test_standings_csv_has_a_row_per_player_in_rank_order(client, league_club):
    cast, season = league_club
    response = client.get(reverse("stats:standings_csv", args=[cast.club.slug, season.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = rows_of(response)
    # Everyone won once. A gin v 80 wins 105 + box 25 + game 100 + shutout 100 = 330; v 90: 340.
    # Net: Quinn +340 - 330 = 10, Gus +330 - 340 = -10, Pat +330 - 330 = 0.
    assert [(row["position"], row["player"], row["won"], row["net"]) for row in rows] == [
        ("1", cast.player_of(cast.rival).name, "1", "10"),
        ("2", cast.player_of(cast.player).name, "1", "0"),
        ("3", cast.guest.name, "1", "-10"),
    ]


def test_hands_csv_follows_the_history_filters(client, abc):
    url = reverse("stats:player_hands_csv", args=[abc["ann"].pk])
    rows = rows_of(client.get(url))
    assert len(rows) == 9
    undercuts = rows_of(client.get(url, {"ending": "undercut"}))
    assert [(row["result"], row["winner"], row["points"]) for row in undercuts] == [
        ("undercut", "Cy", "25"),
        ("undercut", "Ann", "28"),
    ]
    bad = client.get(url, {"points_min": "x"})
    assert bad.status_code == 400 and "Enter a whole number." in bad.content.decode()


def test_private_club_exports_are_for_members_only(client):
    cast = make_club(name="Quiet Gin", is_public=False)
    season = league.season_create(
        club=cast.club,
        name="Q",
        players=[cast.player_of(cast.player), cast.player_of(cast.rival)],
        format=SeasonFormat.OPEN,
        created_by=cast.owner,
    )
    urls = [
        reverse("stats:standings_csv", args=[cast.club.slug, season.pk]),
        reverse("stats:season_games_json", args=[cast.club.slug, season.pk]),
        reverse("stats:club_games_json", args=[cast.club.slug]),
        reverse("stats:club_hands_csv", args=[cast.club.slug]),
    ]
    for url in urls:
        assert client.get(url).status_code == 404
    client.force_login(cast.player)
    for url in urls:
        assert client.get(url).status_code == 200


def test_json_export_reimports_to_the_same_games(client, abc, tmp_path):
    response = client.get(reverse("stats:player_games_json", args=[abc["ann"].pk]))
    records = json.loads(body(response))
    assert len(records) == 4  # G1-G3 and the game still in play
    assert records[0]["players"] == ["Ann", "Bob"] and records[0]["expect"]["games"][0]["winner"] == "Bob"
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    before = set(Game.objects.values_list("pk", flat=True))

    call_command("import_games", str(path), stdout=io.StringIO())

    imported = games_for_export().exclude(pk__in=before)
    assert [game_record(game) for game in imported] == records
    again = {game.pk: game for game in Game.objects.exclude(pk__in=before)}
    originals = [abc[name] for name in ("g2", "g1", "g3", "g4")]
    for original, copy in zip(originals, sorted(again.values(), key=lambda game: game.pk), strict=True):
        original.refresh_from_db()
        assert (copy.over, copy.margin, copy.hand_count) == (original.over, original.margin, original.hand_count)
        assert copy.winner_id == original.winner_id


def test_season_and_club_json_exports(client, league_club):
    cast, season = league_club
    season_records = json.loads(body(client.get(reverse("stats:season_games_json", args=[cast.club.slug, season.pk]))))
    club_records = json.loads(body(client.get(reverse("stats:club_games_json", args=[cast.club.slug]))))
    assert len(season_records) == len(club_records) == 3
    assert {record["expect"]["games"][0]["winner"] for record in season_records} == {
        cast.player_of(cast.player).name,
        cast.player_of(cast.rival).name,
        cast.guest.name,
    }
