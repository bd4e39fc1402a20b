"""Knockout cups and round robin + playoffs: seeds stored, bracket derived, pages and live board."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from players import clubs
from scoring.league import services as league
from scoring.league.standings import season_knockout, season_standings
from scoring.models import Fixture, SeasonFormat, Seed
from tests.league_setup import make_club, play, start_and_finish

pytestmark = pytest.mark.django_db


def _five(cast):
    extra = [clubs.member_add_guest(club=cast.club, name=name, added_by=cast.owner).player for name in ("Eve", "Fay")]
    return [cast.player_of(u) for u in (cast.player, cast.rival, cast.admin)] + extra


def _win_tie(season, tie, winner, *, by):
    one, two = (tie.one, tie.two)
    players = {p.pk: p for p in season.players.all()}
    game = league.knockout_game_start(season=season, player_one=players[one], player_two=players[two], started_by=by)
    play(game, players[winner], recorded_by=by)
    league.game_confirm(game=game, confirmed_by=by)
    return game


def test_a_cup_of_five_is_seeded_by_rating_gives_three_byes_and_plays_to_a_champion():
    cast = make_club()
    entrants = _five(cast)
    pat, quinn = entrants[0], entrants[1]
    # A past season gives Quinn the best rating, Pat the second best.
    past = league.season_create(
        club=cast.club, name="Warm-up", players=[pat, quinn, entrants[2]], created_by=cast.owner
    )
    for fixture in past.fixtures.select_related("home", "away"):
        winner = quinn if quinn in (fixture.home, fixture.away) else pat
        start_and_finish(fixture, winner, started_by=cast.owner, confirm_by=cast.owner)

    cup = league.season_create(
        club=cast.club, name="Cup", players=entrants, format=SeasonFormat.KNOCKOUT, created_by=cast.owner
    )
    assert list(Seed.objects.filter(season=cup).values_list("player__name", flat=True)[:2]) == [quinn.name, pat.name]
    assert cup.fixtures.count() == 0
    knockout = season_knockout(cup)
    first = knockout.bracket.rounds[0]
    assert sum(tie.bye for tie in first) == 3
    with pytest.raises(ValidationError, match="do not meet"):
        league.knockout_game_start(season=cup, player_one=quinn, player_two=pat, started_by=cast.owner)

    champion_game = None
    while (ready := season_knockout(cup).bracket.ready_ties()):
        for tie in ready:
            winner = tie.one if tie.seed_one < tie.seed_two else tie.two  # the better seed wins
            champion_game = _win_tie(cup, tie, winner, by=cast.owner)
    assert season_knockout(cup).bracket.champion == quinn.pk
    assert champion_game.name == "Cup, final"
    league.season_close(season=cup, closed_by=cast.owner)
    cup.refresh_from_db()
    assert cup.champion == quinn


def test_a_tie_waits_for_its_game_to_be_confirmed_and_best_of_three_needs_two_wins():
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    cup = league.season_create(
        club=cast.club, name="Duel", players=[pat, quinn], format=SeasonFormat.KNOCKOUT, best_of=3,
        created_by=cast.owner,
    )
    game = league.knockout_game_start(season=cup, player_one=pat, player_two=quinn, started_by=cast.player)
    with pytest.raises(ValidationError, match="still in play"):
        league.knockout_game_start(season=cup, player_one=pat, player_two=quinn, started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    league.game_confirm(game=game, confirmed_by=cast.rival)
    tie = season_knockout(cup).bracket.rounds[0][0]
    assert (tie.winner, {tie.wins_one, tie.wins_two}) == (None, {0, 1})
    for winner in (quinn, pat):
        game = league.knockout_game_start(season=cup, player_one=pat, player_two=quinn, started_by=cast.player)
        play(game, winner, recorded_by=cast.player)
        league.game_confirm(game=game, confirmed_by=cast.rival)
    assert season_knockout(cup).bracket.champion == pat.pk
    with pytest.raises(ValidationError, match="do not meet"):
        league.knockout_game_start(season=cup, player_one=pat, player_two=quinn, started_by=cast.player)


def test_round_robin_plus_playoffs_takes_the_top_n_and_keeps_playoff_games_out_of_the_standings():
    cast = make_club()
    entrants = _five(cast)[:4]
    season = league.season_create(
        club=cast.club, name="League", players=entrants, format=SeasonFormat.PLAYOFFS, playoff_size=2,
        created_by=cast.owner,
    )
    with pytest.raises(ValidationError, match="still to be played"):
        league.playoffs_start(season=season, started_by=cast.owner)
    order = {p.pk: n for n, p in enumerate(entrants)}  # the first listed beats the others
    for fixture in Fixture.objects.filter(season=season).select_related("home", "away"):
        winner = min((fixture.home, fixture.away), key=lambda p: order[p.pk])
        start_and_finish(fixture, winner, started_by=cast.owner, confirm_by=cast.owner)
    seeds = league.playoffs_start(season=season, started_by=cast.owner)
    assert [seed.player for seed in seeds] == entrants[:2]
    final = season_knockout(season).bracket.rounds[0][0]
    _win_tie(season, final, entrants[1].pk, by=cast.owner)  # the second seed wins the final
    standings = {row.player_id: row.played for row in season_standings(season).rows}
    assert standings[entrants[1].pk] == 3  # the playoff game is not a standings result
    league.season_close(season=season, closed_by=cast.owner)
    season.refresh_from_db()
    assert season.champion == entrants[1]


def test_a_playoff_needs_a_sensible_size():
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        league.season_create(
            club=cast.club, name="L", players=_five(cast), format=SeasonFormat.PLAYOFFS, created_by=cast.owner
        )
    assert "playoff_size" in refused.value.message_dict


def test_bracket_page_and_board_show_byes_and_offer_the_players_their_tie(client):
    cast = make_club()
    entrants = _five(cast)
    cup = league.season_create(
        club=cast.club, name="Cup", players=entrants, format=SeasonFormat.KNOCKOUT, created_by=cast.owner
    )
    url = reverse("league:bracket", args=[cast.club.slug, cup.pk])
    page = client.get(url).content.decode()
    assert page.count("goes through (bye)") == 3 and "Quarter-finals" in page and "Final" in page
    assert "Start " not in page  # anonymous
    ready = season_knockout(cup).bracket.ready_ties()[0]
    client.force_login(cast.owner)
    page = client.get(url).content.decode()
    assert page.count('name="player_one"') == 2  # two ties are ready; the owner may start either
    response = client.post(
        reverse("league:tie_game_start", args=[cast.club.slug, cup.pk]),
        {"player_one": ready.one, "player_two": ready.two},
    )
    assert response.status_code == 302 and response["Location"].startswith("/games/")
    board = client.get(reverse("league:bracket_board", args=[cast.club.slug, cup.pk])).content.decode()
    assert 'id="wall-board"' in board and "in play" in board and "<html" not in board
    season_page = client.get(reverse("league:season", args=[cast.club.slug, cup.pk])).content.decode()
    assert "Bracket" in season_page


def test_season_page_marks_overdue_fixtures_and_an_organiser_closes_it(client):
    cast = make_club()
    players = [cast.player_of(u) for u in (cast.player, cast.rival, cast.owner)]
    yesterday = datetime.date.today() - datetime.timedelta(days=1)
    season = league.season_create(
        club=cast.club, name="Spring", players=players, starts_on=yesterday - datetime.timedelta(days=30),
        ends_on=yesterday, created_by=cast.owner,
    )
    url = reverse("league:season", args=[cast.club.slug, season.pk])
    client.force_login(cast.player)
    page = client.get(url).content.decode()
    assert "overdue" in page and "Close the season" not in page
    assert client.post(reverse("league:season_close", args=[cast.club.slug, season.pk])).status_code == 403

    client.force_login(cast.owner)
    response = client.post(reverse("league:season_close", args=[cast.club.slug, season.pk]), follow=True)
    page = response.content.decode()
    assert "Season closed" in page and "Final standings" in page
    assert "overdue" not in page and "Start " not in page and "Close the season" not in page
    club_page = client.get(reverse("league:club", args=[cast.club.slug])).content.decode()
    assert "closed" in club_page
