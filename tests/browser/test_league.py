"""A club night in Chromium: the admin opens a season, two players record and confirm a game
from their own phones (two browser contexts), and the standings show it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from players import clubs
from players.models import Player
from scoring import services
from scoring.league import services as league
from scoring.models import Game, LeagueStatus
from tests.browser.conftest import LAPTOP, screenshot, sign_in
from tests.browser.test_kitchen import enter_hand, save_hand
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_club_night_season_game_confirmation_and_standings(new_page, live_server):
    director = UserFactory(username="director")
    UserFactory(username="pat")
    UserFactory(username="quinn")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=False)
    for username in ("pat", "quinn"):
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=type(director).objects.get(username=username))
    clubs.member_add_guest(club=club, name="Gus", added_by=director)
    base = live_server.url

    # The director opens a season for Pat, Quinn and Gus (not playing himself).
    admin = new_page(viewport=LAPTOP)
    sign_in(admin, base, "director")
    admin.goto(f"{base}/clubs/{club.slug}/")
    admin.get_by_role("link", name="New season").click()
    admin.get_by_label("Season name").fill("Spring League")
    admin.get_by_label("Format").select_option("single")
    admin.get_by_label("director", exact=True).uncheck()
    admin.get_by_role("button", name="Create season").click()
    admin.wait_for_url(re.compile(r"/seasons/\d+/$"))
    expect(admin.locator("#fixtures-title")).to_be_visible()
    # Three players meet once each: three rounds of one fixture (one sits out each round).
    expect(admin.locator("#fixtures-title")).to_have_text("Fixtures: round 1 of 3")
    expect(admin.locator("ul.fixtures li")).to_have_count(1)
    season_url = admin.url

    # Pat, on his phone, starts his fixture against Quinn and scores it at the table.
    pat = new_page()
    sign_in(pat, base, "pat")
    pat.goto(season_url)
    mine = pat.locator("ul.fixtures.mine")
    expect(mine.locator("li")).to_have_count(2)  # Pat's own fixtures, whatever the round
    mine.get_by_role("button", name=re.compile(r"^Start (pat v quinn|quinn v pat)$")).click()
    pat.wait_for_url(re.compile(r"/games/\d+/$"))
    enter_hand(pat, ending="Knock", by="quinn", knocker=4, defender=20)
    save_hand(pat, 1)
    enter_hand(pat, ending="Gin", by="pat", defender=90)
    save_hand(pat, 2)
    game = Game.objects.get(season__name="Spring League")
    assert game.over and game.winner.name == "pat"
    assert game.league_status == LeagueStatus.PLAYING

    # The standings do not count it yet: it is provisional.
    pat.goto(season_url)
    expect(pat.locator("ul.provisional")).to_contain_text("awaiting confirmation")
    expect(pat.locator("tr[data-player='pat'] td.won")).to_have_text("0")

    # Quinn, on her own phone, confirms the result.
    quinn = new_page()
    sign_in(quinn, base, "quinn")
    quinn.goto(f"{base}/clubs/games/{game.pk}/")
    expect(quinn.locator(".result")).to_contain_text(f"pat won by {game.margin}")
    screenshot(quinn, "league-confirm")
    quinn.get_by_label("Comment (optional)").fill("Good game")
    quinn.get_by_role("button", name=re.compile(r"^Confirm pat won by")).click()
    expect(quinn.locator(".messages")).to_contain_text("Result confirmed")
    expect(quinn.locator("table.audit")).to_contain_text("Good game")

    # The director's standings (reloaded) now count it: Pat first with the game's margin.
    admin.goto(season_url)
    first = admin.locator("table.standings tbody tr").first
    expect(first).to_have_attribute("data-player", "pat")
    expect(first.locator("td.won")).to_have_text("1")
    expect(first.locator("td.net")).to_have_text(str(game.margin))
    expect(admin.locator("tr[data-player='quinn'] td.net")).to_have_text(str(-game.margin))
    expect(admin.locator("section#standings")).to_contain_text("None: every finished game is confirmed.")
    screenshot(admin, "league-standings")

    # After confirmation Pat's scoresheet no longer offers corrections; an outsider sees no club at all.
    pat.goto(f"{base}/games/{game.pk}/")
    expect(pat.get_by_role("link", name=re.compile("^Edit hand"))).to_have_count(0)
    stranger = new_page()
    UserFactory(username="stranger")
    sign_in(stranger, base, "stranger")
    assert stranger.request.get(season_url).status == 404  # (not page.goto: a 404 page logs a console error)


PHONE_390 = {"width": 390, "height": 844}


def test_the_first_dealer_is_chosen_when_a_fixture_is_started(new_page, live_server):
    """Issue 29, item 10: on a phone, Quinn starts her fixture against Pat and says Pat deals first."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=False)
    for username in ("pat", "quinn"):
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=UserFactory(username=username))
    players = list(Player.objects.filter(memberships__club=club, name__in=["pat", "quinn"]))
    season = league.season_create(club=club, name="Spring League", players=players, created_by=director)
    fixture = season.fixtures.select_related("home", "away").get()

    quinn = new_page(viewport=PHONE_390)
    sign_in(quinn, live_server.url, "quinn")
    quinn.goto(f"{live_server.url}/clubs/{club.slug}/seasons/{season.pk}/")
    mine = quinn.locator("ul.fixtures.mine")
    dealer = mine.get_by_label("First dealer")
    expect(dealer).to_have_value("draw")  # left to chance unless the table says otherwise
    dealer.select_option(label="pat")
    mine.get_by_role("button", name=f"Start {fixture.home.name} v {fixture.away.name}").click()
    quinn.wait_for_url(re.compile(r"/games/\d+/$"))
    expect(quinn.locator(".dealer-name")).to_have_text("pat")
    screenshot(quinn, "first-dealer-chosen")
    assert Game.objects.get(fixture=fixture).first_dealer.name == "pat"


def test_closing_a_season_warns_what_it_leaves_behind_first(new_page, live_server):
    """Issue 29, item 5: on a phone, the organiser sees the fixtures not played, the result not
    confirmed and the game in play, and what closing does to each, before the season closes."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=False)
    for username in ("pat", "quinn"):
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=UserFactory(username=username))
    clubs.member_add_guest(club=club, name="Gus", added_by=director)
    players = list(Player.objects.filter(memberships__club=club).exclude(name="director"))
    season = league.season_create(club=club, name="Spring League", players=players, created_by=director)
    pat, quinn, gus = (Player.objects.get(name=name) for name in ("pat", "quinn", "Gus"))
    fixtures = {frozenset((f.home_id, f.away_id)): f for f in season.fixtures.all()}
    provisional = league.fixture_start(fixture=fixtures[frozenset((pat.pk, quinn.pk))], started_by=director)
    services.hand_record(game=provisional, recorded_by=director, ending="gin", by=pat, defender_deadwood=80)
    league.fixture_start(fixture=fixtures[frozenset((quinn.pk, gus.pk))], started_by=director)

    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "director")
    page.goto(f"{live_server.url}/clubs/{club.slug}/seasons/{season.pk}/")
    page.get_by_role("link", name="Close the season…").click()
    expect(page.get_by_role("heading", name="Close Spring League")).to_be_visible()
    expect(page.get_by_role("heading", name="Fixtures not played (1)")).to_be_visible()
    expect(page.locator("ul.unplayed li")).to_have_text([re.compile(r"pat v Gus|Gus v pat")])
    expect(page.get_by_role("heading", name="Results not yet confirmed (1)")).to_be_visible()
    expect(page.locator(".left-open")).to_contain_text("leaves them out of the final standings")
    expect(page.get_by_role("heading", name="Games in play (1)")).to_be_visible()
    expect(page.locator(".left-open")).to_contain_text("ends them unfinished")
    screenshot(page, "season-close-warning")
    season.refresh_from_db()
    assert season.closed_at is None

    page.get_by_role("button", name="Close Spring League").click()
    expect(page.get_by_role("heading", name="Season closed")).to_be_visible()
    expect(page.get_by_role("heading", name="Left out of the final standings")).to_be_visible()
    season.refresh_from_db()
    assert season.closed_at is not None
