"""A save that got no answer is sent again with the same form key: stored once, and the player is told.

The first save's answer is lost after the server stored the hand (``page.route``
lets the request through, then aborts it), or the phone is offline when the player
taps Save. The scoresheet says "No connection: will retry", sends the same form
again, and ends with "Saved" and exactly one hand stored.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.models import Hand
from tests.browser.conftest import CHROMIUM_ARGS, login, screenshot  # noqa: F401
from tests.browser.test_kitchen import enter_hand
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sheet(browser, live_server):
    """Ann's scoresheet, signed in, on a phone; a context without the console-error check (requests are cut)."""
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if "Content Security Policy" in message.text
            else None)  # fmt: skip
    login(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    yield page, context, game
    context.close()
    assert not errors, errors


def test_a_save_whose_answer_was_lost_is_sent_again_and_stored_once(sheet):
    page, context, game = sheet
    cut = []

    def lose_the_first_answer(route):
        if route.request.method == "POST" and not cut:
            route.fetch()  # the server gets it and stores the hand...
            cut.append(route.request.post_data)
            route.abort("connectionreset")  # ...and the phone never hears back
        else:
            route.continue_()

    page.route(re.compile(r".*/games/\d+/hands/$"), lose_the_first_answer)
    enter_hand(page, ending="Knock", by="Ann", knocker=4, defender=22)
    page.get_by_role("button", name="Save hand").click()

    expect(page.locator("#save-status")).to_have_text("Saved")
    expect(page.locator(".notice")).to_contain_text("Hand 1 saved")
    assert cut, "the first answer was not cut"
    assert Hand.objects.filter(game=game).count() == 1
    screenshot(page, "save-retry-saved")


def test_a_save_made_offline_waits_and_is_sent_when_back_online(sheet):
    page, context, game = sheet
    enter_hand(page, ending="Knock", by="Ann", knocker=4, defender=22)
    context.set_offline(True)
    page.get_by_role("button", name="Save hand").click()

    expect(page.locator("#save-status")).to_have_text("No connection: will retry")
    screenshot(page, "save-retry-offline")
    assert Hand.objects.filter(game=game).count() == 0
    context.set_offline(False)

    expect(page.locator("#save-status")).to_have_text("Saved")
    assert Hand.objects.filter(game=game).count() == 1
