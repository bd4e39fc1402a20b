"""Live parts rendered once per change for every screen (scoring/parts.py), never stale, never shown to
a viewer they were not drawn for; and the "Needs you" badge's to-do topic, which a hand of a game in
play does not move (issue 39, item 3)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring import changes, services
from scoring.league import services as league
from tests.league_setup import make_club, play
from tests.test_wall import open_season


def _season_with_a_result(name="Parts Gin", *, is_public=True):
    cast = make_club(name=name, is_public=is_public)
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    done = play(league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner), pat)
    in_play = league.open_game_start(season=season, player_one=quinn, player_two=cast.guest, started_by=cast.owner)
    return cast, season, done, in_play


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _fetch(client, url, **headers):
    """(the answer's text, its queries, whether a part was rendered) of one GET."""
    with (
        mock.patch("scoring.league.views.render_to_string", wraps=render_to_string) as standings_renders,
        mock.patch("scoring.league.wall.render_to_string", wraps=render_to_string) as board_renders,
        CaptureQueriesContext(connection) as queries,
    ):
        response = client.get(url, **headers)
    assert response.status_code == 200, response.status_code
    return response.content.decode(), len(queries), standings_renders.call_count + board_renders.call_count


@pytest.mark.django_db
@pytest.mark.parametrize("part", ["league:season_standings", "league:wall_board"])
def test_a_second_screen_of_the_same_class_gets_the_part_without_rendering_or_reading_it_again(part):
    cast, season, _, _ = _season_with_a_result()
    url = reverse(part, args=[cast.club.slug, season.pk])
    first, first_queries, first_renders = _fetch(Client(), url)
    second, second_queries, second_renders = _fetch(Client(), url)  # another anonymous screen
    assert first_renders == 1 and second_renders == 0
    assert second == first
    # Only who may see it and the versions it is keyed by: the standings, results and games are not read.
    assert second_queries < first_queries
    # Two members (neither an organiser: the same class) share it too.
    third, _, third_renders = _fetch(_signed_in(cast.player), url)
    fourth, _, fourth_renders = _fetch(_signed_in(cast.rival), url)
    assert third_renders + fourth_renders == 0 and third == fourth == first


@pytest.mark.django_db
def test_the_season_page_itself_renders_its_standings_once_for_every_viewer():
    cast, season, _, _ = _season_with_a_result()
    url = reverse("league:season", args=[cast.club.slug, season.pk])
    _, _, first_renders = _fetch(Client(), url)
    _, _, second_renders = _fetch(_signed_in(cast.player), url)
    assert (first_renders, second_renders) == (1, 0)


@pytest.mark.django_db
def test_a_committed_change_makes_the_next_fetch_fresh():
    cast, season, done, in_play = _season_with_a_result()
    quinn = cast.player_of(cast.rival)
    standings_url = reverse("league:season_standings", args=[cast.club.slug, season.pk])
    board_url = reverse("league:wall_board", args=[cast.club.slug, season.pk])
    anyone = Client()
    standings, _, _ = _fetch(anyone, standings_url)
    board, _, _ = _fetch(anyone, board_url)
    assert "awaiting confirmation" in standings and 'class="num won" data-label="Won">1<' not in standings
    assert "27 – 0" not in board  # the game in play has no hand yet

    # A hand saved in the game in play: the board shows it at the next fetch, not the cached board.
    services.hand_record(game=in_play, ending="knock", by=quinn, knocker_deadwood=4, defender_deadwood=20)
    board, _, renders = _fetch(anyone, board_url)
    assert renders == 1 and "16" in board and changes.season_version(season.pk) in board

    # The result confirmed: the standings count it and the provisional list no longer shows it.
    league.game_confirm(game=done, confirmed_by=cast.owner)
    standings, _, renders = _fetch(anyone, standings_url)
    assert renders == 1 and f'data-version="{changes.season_version(season.pk)}"' in standings
    assert 'class="num won" data-label="Won">1<' in standings
    assert "awaiting confirmation" not in standings


@pytest.mark.django_db
def test_a_part_drawn_for_one_viewer_is_never_shown_to_another():
    cast, season, _, _ = _season_with_a_result()
    page = reverse("league:season", args=[cast.club.slug, season.pk])
    standings_url = reverse("league:season_standings", args=[cast.club.slug, season.pk])

    # The organiser's page first: its ranking form (with the organiser's CSRF token) is theirs alone;
    # the cached standings in it carry no token and nothing of the organiser's.
    organiser_page, _, _ = _fetch(_signed_in(cast.owner), page)
    assert 'name="ranking_1"' in organiser_page
    standings, _, renders = _fetch(Client(), standings_url)
    assert renders == 0  # drawn for the organiser's page, and the same for anyone: nothing of theirs in it
    assert "csrfmiddlewaretoken" not in standings and "ranking_1" not in standings
    anonymous_page, _, _ = _fetch(Client(), page)
    assert 'name="ranking_1"' not in anonymous_page
    member_page, _, _ = _fetch(_signed_in(cast.player), page)
    assert 'name="ranking_1"' not in member_page
    organiser_again, _, _ = _fetch(_signed_in(cast.admin), page)
    assert 'name="ranking_1"' in organiser_again  # an organiser still gets their own form after the others

    # Another language is another part: German first, then English is drawn in English.
    german, _, german_renders = _fetch(Client(), standings_url, HTTP_ACCEPT_LANGUAGE="de")
    english, _, english_renders = _fetch(Client(), standings_url, HTTP_ACCEPT_LANGUAGE="en")
    assert (german_renders, english_renders) == (1, 0)  # English was drawn for the pages above
    assert "Tabelle" in german and "Tabelle" not in english and ">Standings<" in english


@pytest.mark.django_db
def test_a_private_clubs_cached_part_is_still_refused_to_an_outsider():
    cast, season, _, _ = _season_with_a_result(name="Parts Private", is_public=False)
    outsider = make_club(name="Parts Outside").player
    for part in ("league:season_standings", "league:wall_board"):
        url = reverse(part, args=[cast.club.slug, season.pk])
        _fetch(_signed_in(cast.player), url)  # drawn for a member, now in the cache
        assert _signed_in(outsider).get(url).status_code == 404
        assert Client().get(url).status_code == 404


@pytest.mark.django_db
def test_the_to_do_version_moves_with_results_not_with_hands_of_games_in_play():
    cast, season, done, in_play = _season_with_a_result()
    quinn = cast.player_of(cast.rival)

    def todo_version():
        return changes.season_todo_versions([season.pk])[season.pk]

    before = todo_version()
    services.hand_record(game=in_play, ending="knock", by=quinn, knocker_deadwood=4, defender_deadwood=20)
    assert todo_version() == before  # moves no one's list: no badge fetches its count again
    assert changes.topic_versions([changes.todo_topic(season.pk)]) == {f"todo:{season.pk}": before}
    play(in_play, quinn)  # finished: a result for someone to confirm
    finished = todo_version()
    assert finished != before
    league.game_confirm(game=done, confirmed_by=cast.owner)  # off the opponent's list
    assert todo_version() not in (before, finished)
    # A notification of the season is heard for its to-do topic too.
    assert changes.topics_told(f"season:{season.pk}") == (f"season:{season.pk}", f"todo:{season.pk}")
    assert changes.topics_told("game:7") == ("game:7",)
