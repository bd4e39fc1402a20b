"""Found in QA at 390 px: pages with long player names still fit the phone's width."""

from __future__ import annotations

import pytest

from players.models import Player
from tests.browser.conftest import PASSWORD, screenshot, sign_in
from tests.factories import UserFactory, make_game
from tests.league_setup import make_club

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_390 = {"width": 390, "height": 844}


def test_a_wide_hands_table_scrolls_in_its_box_not_the_page(new_page, live_server):
    # A name too long for the column makes the hands table wider than the phone; the table
    # scrolls in its own box, and nothing in it (the hidden "Correct" heading) widens the page.
    user = UserFactory(username="ann")
    ann = Player.objects.create(name="Ann", user=user)
    long = Player.objects.create(name="Maximiliana-Bartholomew-Featherstonehaugh")
    game = make_game(
        player_one=ann, player_two=long, first_dealer=long, created_by=user,
        hands=[{"ending": "knock", "by": ann.pk, "knocker_deadwood": 5, "defender_deadwood": 20}],
    )
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    table_box = page.locator(".table-scroll").first
    assert table_box.evaluate("box => box.scrollWidth > box.clientWidth")  # the table does scroll
    screenshot(page, "qa-sheet-long-name-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_club_page_fits_a_phone_with_a_long_name_and_big_invitation_boxes(new_page, live_server):
    # A name without spaces (a formula, a URL) wraps instead of pushing the page sideways, and
    # the invitation form's choices are boxes a thumb can hit, like every other form's.
    UserFactory(username="site-owner")  # a fresh install would ask for its owner first
    cast = make_club(name='=HYPERLINK("http://example.com/a-long-address","x")')
    cast.owner.set_password(PASSWORD)
    cast.owner.save()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, cast.owner.username)
    page.goto(f"{live_server.url}/clubs/{cast.club.slug}/")
    screenshot(page, "qa-club-long-name-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for label in ("Role:", "Claims the record of:", "E-mail it to:"):
        box = page.get_by_label(label, exact=True).bounding_box()
        assert box["height"] >= 40, (label, box)


def test_hand_history_fits_a_phone_with_long_club_and_season_names(new_page, live_server):
    # The history filter's season list is as wide as its longest choice: it narrows to 390 px.
    from scoring.league import services as league

    UserFactory(username="site-owner")
    cast = make_club(name='=HYPERLINK("http://example.com/a-long-address","x")')
    ann, bob = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(
        club=cast.club, name="Winter-league-of-the-longest-season-names", players=[ann, bob],
        rules={"preset": "standard"}, created_by=cast.owner,
    )
    page = new_page(viewport=PHONE_390)
    page.goto(f"{live_server.url}/players/{ann.pk}/hands/")
    assert season.name in page.get_by_label("Season").inner_text()
    screenshot(page, "qa-history-long-names-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
