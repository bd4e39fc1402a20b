"""Found in QA at 390 px: pages with long player names still fit the phone's width."""

from __future__ import annotations

import pytest

from players.models import Player
from tests.browser.conftest import login, screenshot
from tests.factories import UserFactory, make_game

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
    login(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    table_box = page.locator(".table-scroll").first
    assert table_box.evaluate("box => box.scrollWidth > box.clientWidth")  # the table does scroll
    screenshot(page, "qa-sheet-long-name-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
