"""A gin typed over a knock: the knocker's deadwood, hidden by the change, is not sent with the hand."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.models import Hand
from tests.browser.conftest import screenshot, sign_in
from tests.browser.test_kitchen import enter_hand, pick, save_hand, start_game
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_gin_typed_over_a_knock_is_saved_as_the_gin_the_player_sees(new_page, live_server):
    page = new_page(viewport={"width": 390, "height": 844})
    UserFactory(username="ann")
    sign_in(page, live_server.url, "ann")
    game = start_game(page, live_server.url, one="Ann", two="Bob")

    enter_hand(page, ending="Knock", by="Ann", knocker=6, defender=12)
    pick(page, "How the hand ended", "Gin")  # it was a gin after all; the 6 stays in the hidden box
    expect(page.get_by_label("Knocker's deadwood")).to_be_hidden()
    save_hand(page, 1)  # a box the player cannot see is never sent: no refusal for a value out of sight

    hand = Hand.objects.get(game=game)
    assert (hand.result, hand.knocker_deadwood, hand.defender_deadwood) == ("gin", None, 12)
    expect(page.locator(".deadwood .knocker .error")).to_have_count(0)
    screenshot(page, "gin-over-a-knock-390")
