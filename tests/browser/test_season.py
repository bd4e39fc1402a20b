"""A small season start to finish in Chromium, as an organiser and two players run it: an invitation
by link (a new account), fixtures with dates, results confirmed from the scoresheet, one disputed and
settled with a reason, both players' to-do lists at each step, the season closed with its champion;
then a knockout cup of five (three byes) played to a winner on a bracket that updates live."""

from __future__ import annotations

import datetime
import re

import pytest
from playwright.sync_api import expect

from players import clubs
from scoring.models import Game, LeagueStatus, Season
from tests.browser.conftest import LAPTOP, PASSWORD, screenshot, sign_in
from tests.browser.test_kitchen import enter_hand
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def todo_items(page, base):
    page.goto(f"{base}/todo/")
    return page.locator("ul.todo-list li")


def finish_with_gin(page, winner):
    enter_hand(page, ending="Gin", by=winner, defender=90)  # 25 + 90: the game is over in one hand
    page.get_by_role("button", name="Save hand").click()
    expect(page.locator("main")).to_contain_text("Hand 1 saved")  # a live notice, or a message without JS


def test_a_season_start_to_finish_then_a_knockout_cup(new_page, live_server):
    director = UserFactory(username="director")
    UserFactory(username="pat")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=False)
    clubs.invitation_accept(
        invitation=clubs.invitation_create(club=club, created_by=director),
        user=type(director).objects.get(username="pat"),
    )
    invitation = clubs.invitation_create(club=club, created_by=director)
    base = live_server.url

    # Nina has no account: she opens the invitation link, signs up, and comes back to accept it.
    nina = new_page()
    nina.goto(f"{base}/clubs/join/{invitation.token}/")
    nina.get_by_role("link", name="sign up").click()
    nina.get_by_label("Username").fill("nina")
    nina.get_by_label("Your name at the table").fill("nina")
    nina.get_by_label("Password", exact=True).fill(PASSWORD)
    nina.get_by_label("Password confirmation").fill(PASSWORD)
    nina.get_by_role("button", name="Create my account").click()
    nina.wait_for_url(re.compile(r"/clubs/join/"))
    expect(todo_items(nina, base)).to_have_text([re.compile("Invitation to Thursday Gin")])
    nina.goto(f"{base}/clubs/join/{invitation.token}/")
    nina.get_by_role("button", name="Accept and join").click()
    expect(nina.locator(".messages")).to_contain_text("Welcome to Thursday Gin")
    expect(todo_items(nina, base)).to_have_count(0)

    # The director opens a season with dates for the three of them: the fixtures get due dates.
    today = datetime.date.today()
    admin = new_page(viewport=LAPTOP)
    sign_in(admin, base, "director")
    admin.goto(f"{base}/clubs/{club.slug}/seasons/new/")
    admin.get_by_label("Season name").fill("Spring League")
    admin.get_by_label("Format").select_option("single")
    admin.get_by_label("Starts on").fill((today - datetime.timedelta(days=3)).isoformat())
    admin.get_by_label("Ends on").fill((today + datetime.timedelta(days=3)).isoformat())
    admin.get_by_role("button", name="Create season").click()
    admin.wait_for_url(re.compile(r"/seasons/\d+/$"))
    season_url = admin.url
    season = Season.objects.get(name="Spring League")
    assert all(f.due_on for f in season.fixtures.all())
    expect(admin.locator("ul.fixtures li .due").first).to_contain_text("due")

    pat = new_page()
    sign_in(pat, base, "pat")
    # Pat's fixtures are due within the week: both of them are on his to-do.
    expect(todo_items(pat, base).filter(has_text="Play")).to_have_count(2)
    expect(pat.locator(".nav-count")).to_have_text(re.compile(r"2"))

    # 1. Pat v Nina: Pat scores it; Nina is asked to confirm and confirms from the scoresheet.
    pat.goto(season_url)
    pat.locator("ul.fixtures.mine").get_by_role("button", name=re.compile(r"^Start (nina v pat|pat v nina)$")).click()
    pat.wait_for_url(re.compile(r"/games/\d+/$"))
    finish_with_gin(pat, "pat")
    first = Game.objects.get(fixture__season=season, player_one__name__in=["pat", "nina"],
                             player_two__name__in=["pat", "nina"])
    confirm_item = todo_items(nina, base).filter(has_text="Confirm the result")
    expect(confirm_item).to_have_count(1)
    nina.goto(f"{base}/games/{first.pk}/")
    screenshot(nina, "season-scoresheet-confirm")
    nina.get_by_role("button", name="Confirm the result").click()
    expect(nina.locator(".messages")).to_contain_text("Result confirmed")
    expect(todo_items(nina, base).filter(has_text="Confirm the result")).to_have_count(0)

    # 2. Nina v director: Nina scores it, the director (playing) disputes it. He played, so he does not
    # confirm it himself: he corrects the hand as the club's admin, and the result waits for Nina again.
    nina.goto(season_url)
    nina.locator("ul.fixtures.mine").get_by_role(
        "button", name=re.compile(r"^Start (nina v director|director v nina)$")
    ).click()
    nina.wait_for_url(re.compile(r"/games/\d+/$"))
    finish_with_gin(nina, "nina")
    second = Game.objects.get(fixture__season=season, player_one__name__in=["director", "nina"],
                              player_two__name__in=["director", "nina"])
    expect(todo_items(admin, base).filter(has_text="Confirm the result")).to_have_count(1)
    admin.goto(f"{base}/games/{second.pk}/")
    admin.locator("details.dispute summary").click()
    admin.get_by_label("What is wrong?").fill("I think I had 80 deadwood, not 90")
    admin.get_by_role("button", name="Dispute").click()
    expect(admin.locator(".messages")).to_contain_text("disputed")
    expect(todo_items(nina, base).filter(has_text="Disputed")).to_have_count(1)
    expect(todo_items(admin, base).filter(has_text="Disputed")).to_have_count(1)
    screenshot(nina, "season-todo-disputed")
    admin.goto(f"{base}/games/{second.pk}/")
    expect(admin.get_by_role("button", name="Confirm the result")).to_have_count(0)
    admin.get_by_role("link", name="Edit hand 1").click()
    admin.get_by_label("Other player's deadwood").fill("80")
    admin.get_by_label("Reason for the correction").fill("Checked the paper sheet: 80, not 90")
    admin.get_by_role("button", name="Save correction").click()
    expect(admin.locator(".league-status")).to_contain_text("waiting for nina to confirm")
    nina.goto(f"{base}/games/{second.pk}/")
    nina.get_by_role("button", name="Confirm the result").click()
    expect(nina.locator(".messages")).to_contain_text("Result confirmed")
    admin.goto(f"{base}/clubs/games/{second.pk}/")
    expect(admin.locator("table.audit")).to_contain_text("Checked the paper sheet: 80, not 90")
    expect(todo_items(nina, base)).to_have_count(0)  # her fixtures are played and settled
    second.refresh_from_db()
    assert second.league_status == LeagueStatus.CONFIRMED

    # 3. Pat v director: the director confirms from the scoresheet.
    pat.goto(season_url)
    pat.locator("ul.fixtures.mine").get_by_role(
        "button", name=re.compile(r"^Start (pat v director|director v pat)$")
    ).click()
    pat.wait_for_url(re.compile(r"/games/\d+/$"))
    third_url = pat.url
    finish_with_gin(pat, "pat")
    admin.goto(third_url)
    admin.get_by_role("button", name="Confirm the result").click()
    expect(admin.locator(".messages")).to_contain_text("Result confirmed")
    for page in (pat, nina, admin):
        expect(todo_items(page, base)).to_have_count(0)

    # The director closes the season: Pat (two wins) is champion, the page is the archive.
    admin.goto(season_url)
    admin.get_by_role("link", name="Close the season…").click()  # what closing leaves behind, first
    admin.get_by_role("button", name="Close Spring League").click()
    expect(admin.locator(".season-closed")).to_contain_text("Champion: pat")
    expect(admin.locator("#standings-title")).to_have_text("Final standings")
    pat.goto(season_url)
    expect(pat.locator(".season-closed")).to_contain_text("Champion: pat")
    expect(pat.get_by_role("button", name=re.compile("^Start"))).to_have_count(0)
    pat.goto(f"{base}/games/{first.pk}/")
    expect(pat.get_by_role("link", name=re.compile("^Edit hand"))).to_have_count(0)
    screenshot(admin, "season-closed")

    # A knockout cup of five, seeded by rating: pat, nina first; three byes. (The bracket page's live
    # stream would hold the test's one-request-at-a-time server, so the director's browser runs without
    # JavaScript here: every link and form works without it. The live board is the wall's, tested there.)
    admin = new_page(viewport=LAPTOP, java_script_enabled=False)
    sign_in(admin, base, "director")
    for name in ("Gus", "Hal"):
        clubs.member_add_guest(club=club, name=name, added_by=director)
    admin.goto(f"{base}/clubs/{club.slug}/seasons/new/")
    admin.get_by_label("Season name").fill("Winter Cup")
    admin.get_by_label("Format").select_option("knockout")
    admin.get_by_role("button", name="Create season").click()
    admin.wait_for_url(re.compile(r"/seasons/\d+/$"))
    admin.get_by_role("link", name="Bracket").click()
    admin.wait_for_url(re.compile(r"/bracket/$"))
    expect(admin.locator(".tie-note", has_text="goes through (bye)")).to_have_count(3)
    expect(admin.locator(".bracket-round h3")).to_have_text(["Quarter-finals", "Semi-finals", "Final"])
    bracket_url = admin.url

    winners = []
    while admin.locator(".tie form button").count():
        button = admin.locator(".tie form button").first
        label = button.inner_text()  # "Start A v B"
        one, two = label.removeprefix("Start ").split(" v ")
        winner = one  # the upper slot (the better seed) wins
        button.click()
        admin.wait_for_url(re.compile(r"/games/\d+/$"))
        finish_with_gin(admin, winner)
        # The director confirms, but not a result he played against a player with an account: hers.
        opponents = {one, two} - {"director"} if "director" in (one, two) else set()
        confirmer = {"pat": pat, "nina": nina}.get(opponents.pop() if opponents else "", admin)
        confirmer.goto(admin.url)
        confirmer.get_by_role("button", name="Confirm the result").click()
        expect(confirmer.locator(".messages")).to_contain_text("Result confirmed")
        winners.append(winner)
        admin.goto(bracket_url)
    assert len(winners) == 4  # five entrants, one game per tie: four games
    expect(admin.locator(".bracket-champion")).to_have_text(f"Champion: {winners[-1]}")
    final = admin.locator(".bracket-round").last.locator(".slot.won .name")
    expect(final).to_have_text(winners[-1])
    screenshot(admin, "cup-bracket")
    phone = new_page(java_script_enabled=False)
    sign_in(phone, base, "pat")
    phone.goto(bracket_url)
    expect(phone.locator(".bracket-champion")).to_have_text(f"Champion: {winners[-1]}")
    screenshot(phone, "cup-bracket-phone")

    admin.goto(admin.url.replace("/bracket/", "/"))
    admin.get_by_role("link", name="Close the season…").click()
    expect(admin.locator(".champion-preview")).to_contain_text(winners[-1])
    admin.get_by_role("button", name="Close Winter Cup").click()
    expect(admin.locator(".season-closed")).to_contain_text(f"Champion: {winners[-1]}")


def test_each_standings_line_says_what_decided_it_against_the_next(page, live_server):
    """Issue 29, item 9: the season page says why a player is above the next one."""
    from scoring.league import services as league
    from tests.league_setup import make_club, start_and_finish

    cast = make_club()
    pat, quinn, ada = (cast.player_of(user) for user in (cast.player, cast.rival, cast.admin))
    gus = cast.guest
    season = league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn, gus, ada], ranking=["wins", "head_to_head", "net"]
    )

    def fixture(one, two):
        return season.fixtures.get(home__in=[one, two], away__in=[one, two])

    # Pat, Quinn and Gus win one game each; among those three only Pat v Gus was played (Pat won it).
    start_and_finish(fixture(pat, gus), pat, started_by=cast.owner, defender_deadwood=76, confirm_by=cast.owner)
    start_and_finish(fixture(gus, ada), gus, started_by=cast.owner, defender_deadwood=90, confirm_by=cast.owner)
    start_and_finish(fixture(quinn, ada), quinn, started_by=cast.owner, defender_deadwood=80, confirm_by=cast.owner)

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/clubs/{cast.club.slug}/seasons/{season.pk}/")
    standings = page.locator("table.standings")
    expect(standings.locator("thead")).to_contain_text("Decided by")
    rows = standings.locator("tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(0)).to_contain_text(pat.name)
    expect(rows.nth(0).locator("td.decided")).to_have_text("on head-to-head")
    expect(rows.nth(1)).to_contain_text(quinn.name)
    expect(rows.nth(1).locator("td.decided")).to_have_text("on head-to-head")
    expect(rows.nth(2)).to_contain_text(gus.name)
    expect(rows.nth(2).locator("td.decided")).to_have_text("on games won")
    expect(rows.nth(3).locator("td.decided")).to_have_text("")
    screenshot(page, "standings-decided-by")
