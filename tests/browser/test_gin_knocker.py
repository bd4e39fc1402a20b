"""A gin typed over a knock: the leftover knocker's deadwood is refused in view, not silently dropped."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.models import Hand
from tests.browser.conftest import screenshot, sign_in
from tests.browser.test_kitchen import enter_hand, pick, save_hand, start_game
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_gin_with_a_leftover_knocker_deadwood_shows_the_field_and_why(new_page, live_server):
    page = new_page(viewport={"width": 390, "height": 844})
    UserFactory(username="ann")
    sign_in(page, live_server.url, "ann")
    game = start_game(page, live_server.url, one="Ann", two="Bob")

    enter_hand(page, ending="Knock", by="Ann", knocker=6, defender=12)
    pick(page, "How the hand ended", "Gin")  # it was a gin after all; the 6 stays in the hidden box
    expect(page.get_by_label("Knocker's deadwood")).to_be_hidden()
    page.get_by_role("button", name="Save hand").click()

    knocker = page.locator(".deadwood .knocker")
    expect(knocker.locator(".error")).to_contain_text("Knocker's deadwood: a gin has no knocker deadwood")
    expect(page.get_by_label("Knocker's deadwood")).to_be_visible()  # shown, so it can be cleared
    assert not Hand.objects.filter(game=game).exists()
    screenshot(page, "gin-with-knocker-deadwood-390")

    page.get_by_label("Knocker's deadwood").fill("")
    save_hand(page, 1)
    assert Hand.objects.get(game=game).result == "gin"
