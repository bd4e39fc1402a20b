"""The wall screen, profile and hand history run the same number of queries whatever the club's size."""

import random

import pytest
from django.core.cache import cache
from django.db import connection
from django.urls import reverse

from players import clubs
from scoring.engine.rules import resolve_rules
from scoring.league import services as league
from scoring.management.commands.seed_demo import random_game
from scoring.models import Game, SeasonFormat
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db


def club_of_size(players: int, games: int, *, name: str):
    """A public club: ``players`` members in an open season, ``games`` played (most confirmed), one in play."""
    cast = make_club(name=name)
    members = [cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest]
    members += [
        clubs.member_add_guest(club=cast.club, name=f"{name} {n}", added_by=cast.owner).player
        for n in range(len(members), players)
    ]
    season = league.season_create(
        club=cast.club, name="Size", players=members, format=SeasonFormat.OPEN, created_by=cast.owner
    )
    rules, rng = resolve_rules(season.rules), random.Random(players)
    for n in range(games):
        one, two = members[n % players], members[(n + 1 + n // players) % players]
        if one == two:
            two = members[(n + 2) % players]
        hands = random_game(rng, rules, (one.pk, two.pk), two.pk)
        game = league.season_game_import(
            season=season, player_one=one, player_two=two, first_dealer=two, hands=hands, started_by=cast.owner
        )
        if n % 4:
            league.game_confirm(game=game, confirmed_by=cast.owner)
    in_play = league.open_game_start(season=season, player_one=members[0], player_two=members[1], started_by=None)
    return cast, season, members[0], in_play


@pytest.mark.parametrize(("players", "games"), [(3, 2), (12, 30)])
def test_fixed_query_counts(client, django_assert_num_queries, players, games):
    cast, season, player, _ = club_of_size(players, games, name=f"Size {players}")
    assert Game.objects.filter(season=season).count() == games + 1
    slug = cast.club.slug
    client.force_login(cast.player)  # signed in: membership checks cost their queries too
    # The wall's 10 include its session, read for the account's language (players.languages) even though
    # the public wall itself never asks who is looking, and its two versions in three queries (one pass over
    # the season's games for both, standings.season_versions_now; its rounds and its entrants apart).
    pages = {
        "wall": (reverse("league:wall", args=[slug, season.pk]), {}, 10),
        "wall_board": (reverse("league:wall_board", args=[slug, season.pk]), {}, 10),
        # The profile's 12th asks for the player's partnership games (counted apart; two more when there are some).
        "profile": (reverse("stats:profile", args=[player.pk]), {}, 12),
        "history": (reverse("stats:player_hands", args=[player.pk]), {"ending": "knock", "points_min": "5"}, 7),
        "club_history": (reverse("stats:club_hands", args=[slug]), {"season": season.pk}, 7),
    }
    for name, (url, data, expected) in pages.items():
        cache.clear()  # the standings are cached per change of the confirmed results: count the full work
        with django_assert_num_queries(expected):
            response = client.get(url, data)
        assert response.status_code == 200, name
    # Again, with the standings from the cache: the two standings queries are saved (entrants and totals;
    # nobody is level before head-to-head here, so no pairs query). The wall shows no provisional games,
    # and the kept standings read none.
    client.get(pages["wall"][0])
    with django_assert_num_queries(pages["wall"][2] - 2):
        client.get(pages["wall"][0])


def test_cached_standings_follow_a_confirmation(client):
    cast, season, player, in_play = club_of_size(3, 2, name="Cached")
    url = reverse("league:wall_board", args=[cast.club.slug, season.pk])
    client.get(url)
    play(in_play, in_play.player_one)
    before = client.get(url).content.decode()
    league.game_confirm(game=in_play, confirmed_by=cast.owner)
    after = client.get(url).content.decode()
    won = Game.objects.filter(season=season, winner=in_play.player_one, league_status="confirmed").count()
    marker = f'<tr data-player="{in_play.player_one.name}">'
    row_after = after.split(marker)[1].split("</tr>")[0]
    assert f'<td class="num won">{won}</td>' in row_after
    assert before.split(marker)[1].split("</tr>")[0] != row_after


def test_on_postgresql_a_page_viewed_again_and_again_is_no_longer_planned_each_time(client):
    """PostgreSQL keeps the plans of the statements a connection runs again and again (psycopg prepares them
    from their fifth run): at 100,000 games the profile's reads took longer to plan than to run
    (bench/bench_club_scale.py)."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (SQLite's backend keeps its converted statements itself)")
    _cast, _season, player, _ = club_of_size(3, 2, name="Prepared")
    url = reverse("stats:profile", args=[player.pk])
    for _ in range(6):
        assert client.get(url).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    # The profile's hand figures (one aggregate over the player's hands), its values as parameters ($1...).
    assert any('COUNT("scoring_hand"."id") AS "hands"' in statement and "$1" in statement for statement in prepared)
