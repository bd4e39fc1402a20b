"""A Swiss night's organiser on a phone (390x844): checks five players in, pairs round 1, swaps a player
with the bye, publishes; the round's tables are on the night page (its clock counting down) and on the
wall (issue 28)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from players import clubs
from scoring.league import night
from scoring.league import services as league
from scoring.models import Fixture, SeasonFormat, SwissRound
from tests.browser.conftest import LAPTOP, screenshot, sign_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE_390 = {"width": 390, "height": 844}


def test_an_organiser_pairs_swaps_and_publishes_a_round_on_a_phone(new_page, live_server):
    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director)
    names = ["Ann", "Bob", "Cy", "Di", "Ed"]
    for name in names:
        clubs.member_add_guest(club=club, name=name, added_by=director)
    night = league.season_create(
        club=club,
        name="Friday night",
        players=[],
        format=SeasonFormat.SWISS,
        round_minutes=30,
        created_by=director,
    )
    base = live_server.url
    page = new_page(viewport=PHONE_390)
    sign_in(page, base, "director")
    page.goto(f"{base}/clubs/{club.slug}/seasons/{night.pk}/night/")
    for name in names:
        page.get_by_role("button", name=f"Check in {name}", exact=True).click()
        expect(page.locator(".messages")).to_contain_text(f"{name} is checked in")
    expect(page.locator("#check-in-title")).to_have_text("Who is here (5)")

    page.get_by_label("Round 1").select_option("rating")
    page.get_by_role("button", name="Pair round 1").click()
    expect(page.locator("#draft-title")).to_have_text("Round 1: pairing to check")
    expect(page.locator("#draft tr[data-table]")).to_have_count(2)
    draft = SwissRound.objects.get()
    by_id = {membership.player_id: membership.player.name for membership in club.memberships.select_related("player")}
    bye, first_table_one = by_id[draft.pairing["bye"]], by_id[sorted(draft.pairing["pairings"])[0][1]]
    expect(page.locator("#draft tr.bye")).to_contain_text(bye)

    page.get_by_label("Swap").select_option(label=first_table_one)
    page.get_by_label("with").select_option(label=bye)
    page.get_by_role("button", name="Swap", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("swapped")
    expect(page.locator("#draft tr.bye")).to_contain_text(first_table_one)  # round 1: no rematch to warn of
    expect(page.locator('#draft tr[data-table="1"]')).to_contain_text(bye)

    page.get_by_role("button", name="Publish round 1").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 is published")
    expect(page.locator("#draft")).to_have_count(0)
    expect(page.locator("#night-rounds")).to_contain_text("Table 1")
    expect(page.locator("#night-rounds")).to_contain_text(f"{first_table_one}: bye")
    expect(page.locator("#night-rounds .round-clock .clock-left")).to_contain_text("left")  # counting down
    assert Fixture.objects.filter(season=night, round=1).count() == 2
    screenshot(page, "swiss-night-organiser-390")

    # The wall as a plain page (no JavaScript: its event stream needs an ASGI server, tests/browser/test_wall.py).
    wall = new_page(viewport=LAPTOP, java_script_enabled=False)
    wall.goto(f"{base}/clubs/{club.slug}/seasons/{night.pk}/wall/")
    expect(wall.locator(".wall-tables li[data-table]")).to_have_count(2)
    expect(wall.locator(".wall-tables .bye")).to_contain_text(first_table_one)
    screenshot(wall, "swiss-night-wall-round-1")


def test_a_forty_member_nights_round_in_play_is_on_the_organisers_first_screen(new_page, live_server):
    """Issue 39: with 40 members the organiser's phone opens on the round in play (its tables, its clock and
    Time for the room), not on the check-in list; the list is a line per member, a fixed table only when
    asked for, and finds a member by name as the organiser types."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director)
    members = [
        clubs.member_add_guest(club=club, name=f"Member {number:02}", added_by=director).player
        for number in range(1, 41)
    ]
    tonight = league.season_create(
        club=club, name="Friday night", players=[], format=SeasonFormat.SWISS, round_minutes=30,
        created_by=director,
    )  # fmt: skip
    for player in members[:12]:
        night.check_in(season=tonight, player=player, checked_in_by=director)
    night.round_pair(season=tonight, paired_by=director)
    night.round_publish(season=tonight, published_by=director)

    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "director")
    page.goto(f"{live_server.url}/clubs/{club.slug}/seasons/{tonight.pk}/night/")
    first_screen = PHONE_390["height"]
    for part in (
        page.locator("#night-rounds h2").first,
        page.locator("#night-rounds .round-clock").first,
        page.get_by_role("button", name="Time (for the room)"),
        page.locator("#night-rounds .fixtures li").first,
    ):
        box = part.bounding_box()
        assert box is not None and box["y"] + box["height"] <= first_screen, (part, box)
    # One thumb: each member's line is one row of the list, its button a finger wide.
    row = page.locator("#night-field li[data-player='Member 20']")
    screenshot(page, "swiss-night-40-members-390", full_page=False)
    row.scroll_into_view_if_needed()
    screenshot(page, "swiss-night-40-members-390-list", full_page=False)
    assert row.bounding_box()["height"] <= 60, row.bounding_box()
    check_in = page.get_by_role("button", name="Check in Member 20", exact=True)
    assert check_in.bounding_box()["height"] >= 44
    expect(page.get_by_label("Fixed table for Member 20")).to_be_hidden()  # only when asked for
    row.locator("summary").click()
    expect(page.get_by_label("Fixed table for Member 20")).to_be_visible()
    # Found as the organiser types; the same form filters on the server without JavaScript.
    page.get_by_label("Find a member").fill("member 3")
    expect(page.locator("#night-field li[data-player]:visible")).to_have_count(10)  # 30 to 39
    screenshot(page, "swiss-night-40-members-390-found", full_page=False)
    plain = new_page(viewport=PHONE_390, java_script_enabled=False)
    sign_in(plain, live_server.url, "director")
    plain.goto(f"{live_server.url}/clubs/{club.slug}/seasons/{tonight.pk}/night/")
    plain.get_by_label("Find a member").fill("Member 17")
    plain.get_by_role("button", name="Find", exact=True).click()
    expect(plain.locator("#night-field li[data-player]")).to_have_count(1)
    plain.get_by_role("button", name="Check in Member 17", exact=True).click()
    expect(plain.locator(".messages")).to_contain_text("Member 17 is checked in")
