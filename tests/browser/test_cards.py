"""Entering a knock by tapping the cards, in Chromium at phone and laptop width.

The hand is the hand-worked knock of tests/test_cards_facts.py: Ann melds all
but 2D (deadwood 2); Bob lays 6H 7H on Ann's hearts and keeps AD 10D
(deadwood 11), so Ann scores 9.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from players.models import Player
from scoring.models import Hand
from tests.browser.conftest import LAPTOP, PHONE, Held, screenshot, sign_in
from tests.browser.test_kitchen import pick
from tests.factories import UserFactory, make_game
from tests.test_cards_facts import DEFENDER, KNOCKER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def tap(page, grid: str, code: str) -> None:
    page.locator(f"label[for=id_{grid}_{code}]").click()


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["360", "1280"])
def test_knock_entered_by_tapping_cards(new_page, live_server, viewport):
    user = UserFactory(username="ann")
    ann = Player.objects.create(name="Ann")
    bob = Player.objects.create(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    page = new_page(viewport=viewport)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")

    pick(page, "How the hand ended", "Knock")
    pick(page, "Who went out", "Ann")
    page.get_by_role("button", name="Enter the cards instead").click()
    ann_grid = page.locator("fieldset.card-grid", has_text="Ann's cards")
    expect(ann_grid.locator("input[type=checkbox]")).to_have_count(52)
    expect(page.locator("input[name=ending][value=knock]")).to_be_checked()  # kept through the toggle

    for code in KNOCKER:
        tap(page, "cards_one", code)
    expect(page.locator("#id_cards_two_3H")).to_be_disabled()  # in Ann's hand, so not Bob's to pick
    expect(ann_grid.locator("[data-count]")).to_have_text("10 picked")
    for code in DEFENDER:
        tap(page, "cards_two", code)

    expect(page.get_by_label("Knocker's deadwood")).to_have_value("2")
    expect(page.get_by_label("Other player's deadwood")).to_have_value("11")
    result = page.locator("#worked .card-result")
    ann_side, bob_side = result.locator(".cards-side").nth(0), result.locator(".cards-side").nth(1)
    expect(ann_side.locator(".meld")).to_have_count(3)
    expect(ann_side.locator(".dw")).to_contain_text("2 of diamonds")
    expect(ann_side.locator(".dw")).to_contain_text("= 2")
    expect(bob_side.locator(".layoff")).to_contain_text("laid off")
    expect(bob_side.locator(".layoff")).to_contain_text("6 of hearts")
    expect(bob_side.locator(".layoff .meld")).to_contain_text("3 of hearts")
    expect(bob_side.locator(".dw")).to_contain_text("= 11")
    expect(page.locator("#preview")).to_have_text("Ann knocks and scores 9.")
    width = viewport["width"]
    # caret="initial": hiding the caret leaves style="" on the inputs, which htmx's settle then
    # copies onto the swapped-in inputs, and the CSP (style-src 'self') reports that.
    screenshot(page, f"cards-entry-{width}", caret="initial")
    screenshot(page.locator(".record"), f"cards-form-{width}", caret="initial")

    page.get_by_role("button", name="Save hand").click()
    expect(page.locator(".notice")).to_contain_text("Hand 1 saved: Ann knock 9.")
    hand = Hand.objects.get(game=game)
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (2, 11, 9)
    assert sorted(hand.cards["by"]) == sorted(KNOCKER)
    expect(page.locator("fieldset.card-grid")).to_have_count(2)  # the next hand is entered by cards too
    expect(page.locator("#id_cards_one_2D")).not_to_be_checked()

    row = page.locator("table.hands tbody tr").first
    row.locator("details.cards-of-hand summary").click()
    expect(row.locator(".layoff")).to_contain_text("7 of hearts")
    expect(row.locator(".cards-side").first).to_contain_text(re.compile(r"Ann\s*\(knocked\)"))
    row.scroll_into_view_if_needed()
    screenshot(page, f"cards-sheet-{width}", caret="initial")


def ann_knocks_by_cards(new_page, live_server):
    """The knock of tests/test_table_play.py entered card by card on a phone: best play K 6, D 83."""
    from tests.test_table_play import DEFENDER as PLAYED_DEFENDER
    from tests.test_table_play import KNOCKER as PLAYED_KNOCKER

    user = UserFactory(username="ann")
    ann = Player.objects.create(name="Ann")
    bob = Player.objects.create(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    page = new_page(viewport=PHONE)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    pick(page, "How the hand ended", "Knock")
    pick(page, "Who went out", "Ann")
    page.get_by_role("button", name="Enter the cards instead").click()
    for code in PLAYED_KNOCKER.split():
        tap(page, "cards_one", code)
    for code in PLAYED_DEFENDER.split():
        tap(page, "cards_two", code)
    return page, game


def test_a_figure_selected_to_be_typed_over_is_still_selected_when_the_cards_answer_lands(new_page, live_server):
    """The player selects the app's 83 to type over it just as the answer to a tap comes back and redraws
    the boxes: what they type replaces the figure (htmx alone put the caret before it: "7683")."""
    page, game = ann_knocks_by_cards(new_page, live_server)
    defender = page.get_by_label("Other player's deadwood")
    expect(defender).to_have_value("83")
    page.wait_for_load_state("networkidle")

    # The answer to the next change, kept back until the figure is selected.
    answer = Held(page, re.compile(rf"/games/{game.pk}/hands/cards/$"))
    page.evaluate("""() => {
        window.swapped = new Promise(done => document.addEventListener("htmx:afterSwap", done, {once: true}));
        const box = document.getElementById("id_defender_deadwood");
        box.closest(".record-fields").dispatchEvent(new Event("change", {bubbles: true}));
        box.focus();
        box.select();
    }""")
    answer.asked().continue_()
    page.evaluate("() => window.swapped")
    expect(defender).to_be_focused()
    page.keyboard.insert_text("76")
    expect(defender).to_have_value("76")


def test_the_player_changes_the_best_play_figures_to_what_was_played(new_page, live_server):
    """As played, 7C went on the run (D 76), not the best play's 83."""
    from tests.test_table_play import DEFENDER as PLAYED_DEFENDER

    page, game = ann_knocks_by_cards(new_page, live_server)
    knocker, defender = page.get_by_label("Knocker's deadwood"), page.get_by_label("Other player's deadwood")
    expect(knocker).to_have_value("6")
    expect(defender).to_have_value("83")  # the best play, filled by the app

    # An impossible figure: refused next to its box, nothing stored.
    knocker.fill("7")
    with page.expect_response(lambda response: response.url.endswith(f"/games/{game.pk}/hands/")):
        knocker.press("Enter")  # Enter saves (the live check shows the same message even before)
    expect(page.locator("#preview")).to_have_text("")  # the refused save's sheet is in place
    knocker_field = page.locator(".deadwood .field.knocker")
    expect(knocker_field.locator(".error")).to_have_text(
        "Knocker's deadwood: the cards allow the knocker 6 or 9 deadwood (knock limit 10), not 7"
    )
    assert not Hand.objects.filter(game=game).exists()

    # What was played: the knocker's 6, and the defender laid 7C off (76).
    page.get_by_label("Knocker's deadwood").fill("6")
    page.get_by_label("Other player's deadwood").fill("76")
    page.get_by_label("Other player's deadwood").press("Tab")
    expect(page.locator("#preview")).to_have_text("Ann knocks and scores 70.")
    expect(page.locator(".deadwood .error")).to_have_count(0)
    # Tapping cards again works out the melds again but keeps the figure the player typed.
    tap(page, "cards_two", "7C")
    expect(page.get_by_label("Other player's deadwood")).to_have_value("76")
    expect(page.get_by_label("Knocker's deadwood")).to_have_value("")  # still the app's: emptied, 9 cards
    tap(page, "cards_two", "7C")
    expect(page.get_by_label("Knocker's deadwood")).to_have_value("6")
    expect(page.get_by_label("Other player's deadwood")).to_have_value("76")
    screenshot(page.locator(".record"), "cards-played-figures-390", caret="initial")

    page.get_by_role("button", name="Save hand").click()
    expect(page.locator(".notice")).to_contain_text("Hand 1 saved: Ann knock 70.")
    hand = Hand.objects.get(game=game)
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (6, 76, 70)
    assert sorted(hand.cards["defender"]) == sorted(PLAYED_DEFENDER.split())
    expect(page.locator("table.hands tbody tr").first).to_contain_text("best play: K 6, D 83")
