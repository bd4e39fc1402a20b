"""Small things an organiser saw on the season pages and scoresheets (issue 29, item 11): each failed before."""

import datetime
import re

import pytest
from django.urls import reverse

from scoring.league import services as league
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club, play
from tests.test_api_league import api_client

pytestmark = pytest.mark.django_db


def _season(cast, **dates):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    return league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn, cast.guest], created_by=cast.owner, **dates
    )


def test_a_win_worth_no_points_shows_its_0_on_the_scoresheet(client):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    # A tie is an undercut (standard) and this table plays no undercut bonus: Bob wins the hand, scoring 0.
    game = make_game(
        player_one=ann, player_two=bob, created_by=user, rules={"preset": "standard", "undercut_bonus": 0},
        hands=[{"ending": "knock", "by": ann, "knocker_deadwood": 6, "defender_deadwood": 6}, {"ending": "dead"}],
    )
    client.force_login(user)
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    cells = re.findall(r'<td class="num pts">([^<]*)</td>', page)
    assert cells == ["0", ""]  # the undercut's 0; a dead hand scores nothing to show


def test_a_fixture_in_play_says_in_play_once(client):
    cast = make_club()
    season = _season(cast)
    fixture = season.fixtures.first()
    league.fixture_start(fixture=fixture, started_by=cast.owner)
    client.force_login(cast.owner)
    page = client.get(reverse("league:season", args=[cast.club.slug, season.pk]) + f"?round={fixture.round}")
    line = re.search(rf'<li data-fixture="{fixture.pk}".*?</li>', page.content.decode(), re.S).group(0)
    assert len(re.findall(r"in play", line)) == 1


def test_the_round_due_on_box_holds_the_rounds_current_date(client):
    cast = make_club()
    season = _season(cast, starts_on=datetime.date(2026, 11, 1), ends_on=datetime.date(2026, 11, 30))
    client.force_login(cast.owner)
    page = client.get(reverse("league:season", args=[cast.club.slug, season.pk]) + "?round=1").content.decode()
    first_due = season.fixtures.filter(round=1).first().due_on
    assert re.search(rf'<input type="date" name="due_on" value="{first_due.isoformat()}"', page)


def test_a_rounds_new_due_date_is_said_as_the_fixtures_say_it(client):
    cast = make_club()
    season = _season(cast, starts_on=datetime.date(2026, 11, 1), ends_on=datetime.date(2026, 11, 30))
    client.force_login(cast.owner)
    response = client.post(
        reverse("league:season_due", args=[cast.club.slug, season.pk]),
        {"round": "2", "due_on": "2026-11-28"},
        follow=True,
    )
    text = response.content.decode()
    assert "Round 2 is due 28 Nov." in text
    assert "(due 28 Nov)" in text  # the fixtures say it the same way


def test_play_again_is_offered_on_friendly_games_only(client):
    cast = make_club()
    season = _season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    fixture = season.fixtures.get(home__in=[pat, quinn], away__in=[pat, quinn])
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    friendly = make_game(player_one=pat, player_two=quinn, created_by=cast.player,
                         hands=[{"ending": "gin", "by": pat, "defender_deadwood": 80}])
    client.force_login(cast.player)
    assert "Play again" not in client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Play again" in client.get(reverse("game", args=[friendly.pk])).content.decode()


# --- the first dealer of a fixture is chosen when it is started (issue 29, item 10) --------------------


def test_the_start_form_offers_either_player_or_a_draw_as_first_dealer_and_the_choice_deals(client):
    cast = make_club()
    season = _season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    fixture = season.fixtures.get(home__in=[pat, quinn], away__in=[pat, quinn])
    client.force_login(cast.player)
    page = client.get(reverse("league:season", args=[cast.club.slug, season.pk]) + f"?round={fixture.round}")
    form = re.search(rf'<li data-fixture="{fixture.pk}".*?</form>', page.content.decode(), re.S).group(0)
    assert re.findall(r'<option value="([^"]+)"', form) == ["draw", str(fixture.home_id), str(fixture.away_id)]
    assert "First dealer" in form

    client.post(
        reverse("league:fixture_start", args=[cast.club.slug, season.pk, fixture.pk]),
        {"first_dealer": str(fixture.home_id)},
    )
    game = season.games.get(fixture=fixture)
    assert game.first_dealer_id == game.next_dealer_id == fixture.home_id


def test_a_fixture_left_to_chance_draws_its_first_dealer_on_the_page_and_in_the_api(client, monkeypatch):
    cast = make_club()
    season = _season(cast)
    drawn = []
    monkeypatch.setattr(league.random, "choice", lambda players: drawn.append(players) or players[0])
    first, second = season.fixtures.order_by("round", "pk")[:2]
    client.force_login(cast.owner)
    client.post(reverse("league:fixture_start", args=[cast.club.slug, season.pk, first.pk]), {"first_dealer": "draw"})
    response = api_client(cast.owner).post(f"/api/fixtures/{second.pk}/start/", {}, format="json")
    assert response.status_code == 201
    # Each draw was between the fixture's two players, and the one drawn deals first (here: the home player).
    assert [{p.pk for p in players} for players in drawn] == [
        {first.home_id, first.away_id},
        {second.home_id, second.away_id},
    ]
    assert season.games.get(fixture=first).first_dealer_id == first.home_id
    assert season.games.get(fixture=second).first_dealer_id == second.home_id


def test_the_season_page_names_its_rules_as_the_scoresheet_does_in_the_readers_language(client):
    cast = make_club()
    season = _season(cast)
    url = reverse("league:season", args=[cast.club.slug, season.pk])
    assert "rules: Standard (modern Hoyle)" in client.get(url).content.decode()
    assert "Standard (modernes Hoyle)" in client.get(url, headers={"accept-language": "de"}).content.decode()
