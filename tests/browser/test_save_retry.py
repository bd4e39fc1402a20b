"""A save that got no answer is sent again with the same form key: stored once, and the player is told.

The first save's answer is lost after the server stored the hand (``page.route``
lets the request through, then aborts it): the scoresheet says "No connection: will
retry", sends the same form again and ends with "Saved", exactly one hand stored.
Once the browser reports no network, static/js/offline/ owns the save: the hand
is kept on the phone ("not yet sent") and sent when the network is back, once.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.models import Hand
from tests.browser.conftest import CHROMIUM_ARGS, screenshot, sign_in  # noqa: F401
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
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    yield page, context, game
    context.close()
    assert not errors, errors


def test_a_save_whose_answer_was_lost_is_sent_again_and_stored_once(sheet):
    page, context, game = sheet
    cut, again = [], []

    def lose_the_first_answer(route):
        if route.request.method == "POST" and not cut:
            route.fetch()  # the server gets it and stores the hand...
            cut.append(route.request.post_data)
            route.abort("connectionreset")  # ...and the phone never hears back
        else:
            if route.request.method == "POST":
                again.append(route.request.post_data)
            route.continue_()

    page.route(re.compile(r".*/games/\d+/hands/$"), lose_the_first_answer)
    enter_hand(page, ending="Knock", by="Ann", knocker=4, defender=22)
    page.get_by_role("button", name="Save hand").click()

    expect(page.locator("#save-status")).to_have_text("Saved")
    expect(page.locator(".notice")).to_contain_text("Hand 1 saved")
    assert cut, "the first answer was not cut"
    assert again[:1] == cut, "the repeat did not send the same form (values and key)"
    assert "idempotency_key=" in cut[0]
    assert Hand.objects.filter(game=game).count() == 1
    screenshot(page, "save-retry-saved")


def test_a_save_answered_503_is_sent_again_and_a_refusal_is_not(sheet):
    page, context, game = sheet
    answers = iter([503, 500])  # a server restarting, then a server error

    def busy_then_broken(route):
        if route.request.method != "POST":
            route.continue_()
            return
        status = next(answers, None)
        if status:
            route.fulfill(status=status, body="busy", headers={"Retry-After": "1"})
        else:
            route.continue_()

    page.route(re.compile(r".*/games/\d+/hands/$"), busy_then_broken)
    enter_hand(page, ending="Knock", by="Ann", knocker=4, defender=22)
    page.get_by_role("button", name="Save hand").click()

    # 503: retried; the 500 that answers the repeat is not retried, and the player is told.
    expect(page.locator("#save-status")).to_contain_text("Could not save: the server answered 500")
    assert Hand.objects.filter(game=game).count() == 0
    page.get_by_role("button", name="Save hand").click()  # the player tries again: the same form, now answered
    expect(page.locator("#save-status")).to_have_text("Saved")
    assert Hand.objects.filter(game=game).count() == 1


def ready(page) -> None:
    """the offline app holds the game's facts and the offline scorer (what a save without a network needs)."""
    expect(page.locator("html[data-offline-ready='1']")).to_have_count(1)


def test_a_save_made_offline_waits_on_the_phone_and_is_sent_once_when_back_online(sheet):
    page, context, game = sheet
    ready(page)
    enter_hand(page, ending="Knock", by="Ann", knocker=4, defender=22)
    context.set_offline(True)
    page.get_by_role("button", name="Save hand").click()

    row = page.locator("table.hands tbody tr").first
    expect(row).to_contain_text("not yet sent")
    expect(page.locator(".offline-note.status")).to_contain_text("1 change not yet sent")
    expect(page.locator("#save-status")).to_be_hidden()  # the offline note speaks; no "will retry" left behind
    screenshot(page, "save-retry-offline")
    assert Hand.objects.filter(game=game).count() == 0
    context.set_offline(False)

    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    expect(page.locator("table.hands tbody tr")).to_have_count(1)
    expect(page.locator("table.hands tbody tr").first).to_contain_text("Ann knock")
    hand = Hand.objects.get(game=game)
    assert (hand.number, hand.knocker_deadwood, hand.defender_deadwood) == (1, 4, 22)


def test_a_save_still_unanswered_when_the_network_drops_is_kept_on_the_phone_and_stored_once(sheet):
    page, context, game = sheet
    ready(page)
    cut = []

    def lose_the_answer_and_the_network(route):
        if route.request.method == "POST" and not cut:
            route.fetch()  # the server stores the hand...
            cut.append(route.request.post_data)
            context.set_offline(True)  # ...and the phone loses its network before the answer arrives
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route(re.compile(r".*/games/\d+/hands/$"), lose_the_answer_and_the_network)
    enter_hand(page, ending="Knock", by="Ann", knocker=4, defender=22)
    page.get_by_role("button", name="Save hand").click()

    expect(page.locator("table.hands tbody tr").first).to_contain_text("not yet sent")
    expect(page.locator("#save-status")).to_be_hidden()
    assert cut, "the answer was not cut"
    assert Hand.objects.filter(game=game).count() == 1  # the server has it; the phone does not know yet
    context.set_offline(False)

    # the offline app sends it as hand 1; the server already has that very hand, so it is not stored twice.
    # "Online" alone means nothing is left waiting: every queued copy has been sent or dropped.
    expect(page.locator("#net-badge")).to_have_text("Online")
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    expect(page.locator("table.hands tbody tr")).to_have_count(1)
    assert Hand.objects.filter(game=game).count() == 1
