"""Printing (issue 17, point 10): the season sheet and a scoresheet on paper have no navigation or
buttons, and their tables are all there."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from players import clubs
from scoring.league import services as league
from tests.browser.conftest import LAPTOP, PHONE, screenshot, sign_in
from tests.factories import UserFactory
from tests.league_setup import start_and_finish

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def season():
    """A club with a season of three: one game confirmed, one provisional, one fixture to play."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=True)
    names = ("Ann", "Bob", "Cy")
    players = [clubs.member_add_guest(club=club, name=name, added_by=director).player for name in names]
    spring = league.season_create(club=club, name="Spring", players=players)
    fixtures = list(spring.fixtures.order_by("round", "pk"))
    confirmed = start_and_finish(fixtures[0], fixtures[0].home, started_by=director, confirm_by=director)
    start_and_finish(fixtures[1], fixtures[1].away, started_by=director)
    return club, spring, confirmed


def _hidden_on_paper(page, *selectors):
    for selector in selectors:
        for element in page.locator(selector).all():
            expect(element).to_be_hidden()


def test_the_season_prints_standings_fixtures_and_results_without_navigation(new_page, live_server, season):
    club, spring, _ = season
    page = new_page(viewport=LAPTOP)
    sign_in(page, live_server.url, "director")
    page.goto(f"{live_server.url}/clubs/{club.slug}/seasons/{spring.pk}/")
    page.get_by_role("link", name="Printable sheet").click()
    expect(page.get_by_role("heading", name="Thursday Gin: Spring")).to_be_visible()
    expect(page.locator("header.site")).to_be_visible()  # on screen the site is all there

    page.emulate_media(media="print")
    _hidden_on_paper(page, "header.site", "nav", "button", "form", ".no-print")
    expect(page.locator("table.standings")).to_be_visible()
    expect(page.locator("table.standings tbody tr")).to_have_count(3)
    fixtures = page.locator("table.fixtures-table")
    expect(fixtures).to_be_visible()
    expect(fixtures.locator("tbody tr")).to_have_count(3)
    expect(fixtures).to_contain_text("confirmed")
    expect(fixtures).to_contain_text("provisional")
    expect(fixtures).to_contain_text("not played")
    screenshot(page, "print-season")
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")

    # The season page itself prints without its buttons and forms too.
    page.goto(f"{live_server.url}/clubs/{club.slug}/seasons/{spring.pk}/")
    _hidden_on_paper(page, "header.site", "nav", "button", "form")
    expect(page.locator("table.standings")).to_be_visible()


def test_a_scoresheet_prints_its_hands_without_buttons(new_page, live_server, season):
    club, spring, game = season
    page = new_page(viewport=PHONE)
    sign_in(page, live_server.url, "director")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()  # a league game: no Play again
    expect(page.get_by_role("link", name="Edit hand 1")).to_be_visible()  # the admin may correct it

    page.emulate_media(media="print")
    _hidden_on_paper(page, "header.site", "nav", "button", "form", "td.fix", "th.fix")
    expect(page.locator("table.hands")).to_be_visible()
    expect(page.locator("table.breakdown")).to_be_visible()
    expect(page.locator(".league-status")).to_contain_text("Result confirmed")
    screenshot(page, "print-scoresheet")


def test_the_opponent_confirms_from_the_scoresheet_on_a_phone(new_page, live_server):
    """Issue 17, defect 2: a finished league game's scoresheet leads to its confirmation."""
    director = UserFactory(username="director")
    quinn_account = UserFactory(username="quinn")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=False)
    clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=director), user=quinn_account)
    quinn = clubs.player_of(quinn_account)
    gus_account = UserFactory(username="gus")
    clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=director), user=gus_account)
    gus = clubs.player_of(gus_account)
    spring = league.season_create(club=club, name="Spring", players=[quinn, gus])
    game = start_and_finish(spring.fixtures.get(), gus, started_by=gus_account)  # Gus recorded it

    page = new_page(viewport={"width": 390, "height": 844})
    sign_in(page, live_server.url, "quinn")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator(".league-status")).to_contain_text(
        f"Provisional: waiting for {quinn.name} or a club organiser to confirm."
    )
    expect(page.get_by_text("Dispute the result…")).to_be_visible()
    screenshot(page, "scoresheet-confirm-phone")
    page.get_by_role("button", name="Confirm the result").click()
    expect(page.locator(".league-status")).to_contain_text("Result confirmed")
