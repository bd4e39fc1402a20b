"""The record form sends only what the player can see, and the keyboard never sends half a hand (issue 37, item 4).

- After a refused knock, choosing Gin hides the knocker's box: the figure still in it is not sent, so the
  gin is saved, not refused for a value the player cannot see.
- Enter on a choice (a radio) moves on to the next empty box instead of sending an incomplete hand.
- The "Saved" line goes once the next hand is being typed.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.models import Hand
from tests.browser.conftest import sign_in
from tests.browser.test_kitchen import pick
from tests.browser.test_phone import PHONE_390, ann_v_bob

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_box_the_ending_hides_is_not_sent(new_page, live_server):
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    pick(page, "How the hand ended", "Knock")
    pick(page, "Who went out", "Ann")
    page.get_by_label("Knocker's deadwood").fill("5")
    page.get_by_label("Other player's deadwood").fill("200")
    page.get_by_role("button", name="Save hand").click()
    expect(page.locator(".record .has-error")).to_have_count(1)  # 200 is refused
    pick(page, "How the hand ended", "Gin")
    expect(page.get_by_label("Knocker's deadwood")).to_be_hidden()
    page.get_by_label("Other player's deadwood").fill("30")
    page.get_by_role("button", name="Save hand").click()
    expect(page.locator(".notice")).to_contain_text("Hand 1 saved")
    hand = Hand.objects.get(game=game)
    assert (hand.ending, hand.by_id, hand.knocker_deadwood, hand.defender_deadwood) == ("gin", ann.pk, None, 30)


def test_enter_on_a_choice_moves_to_the_next_empty_box_and_saved_goes_with_the_next_hand(new_page, live_server):
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)

    pick(page, "How the hand ended", "Knock")
    page.locator("#record input[name=ending][value=knock]").press("Enter")
    expect(page.locator("#record input[name=by]").first).to_be_focused()  # who went out: not chosen yet
    pick(page, "Who went out", "Ann")
    page.locator("#record input[name=by]:checked").press("Enter")
    expect(page.get_by_label("Knocker's deadwood")).to_be_focused()
    page.get_by_label("Knocker's deadwood").fill("4")
    page.locator("#record input[name=by]:checked").press("Enter")
    expect(page.get_by_label("Other player's deadwood")).to_be_focused()
    assert not [url for url in posts if url.endswith("/hands/")], posts  # nothing half told was sent
    assert not Hand.objects.filter(game=game).exists()

    page.get_by_label("Other player's deadwood").fill("20")
    page.get_by_label("Other player's deadwood").press("Enter")
    expect(page.locator(".notice")).to_contain_text("Hand 1 saved")
    expect(page.locator("#save-status")).to_have_text("Saved")
    pick(page, "How the hand ended", "Gin")  # the next hand
    expect(page.locator("#save-status")).to_be_hidden()
