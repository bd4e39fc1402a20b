"""Offline says what online says (issue 37, items 3 and 5): the sheet drawn on the phone without a network
reads as the server's, in the player's language.

- The "Time" button's help ("hand N is the last") follows the hand being typed offline.
- A refusal names the box in words ("Other player's deadwood: ..."), never a field's code.
- A correction saved offline without a reason is stored with a reason in the phone's language, and so is
  the note of a version kept after two phones recorded one hand.
- Hollywood offline: a closed game's badge is the online sheet's one word ("closed", "abgeschlossen"),
  and each game's breakdown has one row per part of the score, as online.
- A page not kept for offline use is named by the link's words, lists the games kept, and keeps the
  signed-in player's navigation even though the worker's copy of it was made signed out.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.models import FactChange, Hand
from tests.browser.conftest import kept_by_worker, screenshot, sign_in
from tests.browser.test_kitchen import enter_hand, pick
from tests.browser.test_offline import open_sheet, save_offline
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_390 = {"width": 390, "height": 844}


def ann_v_bob(*, hands=(), **options):
    """Ann's game against Bob; in ``hands``, "by" names Ann or Bob."""
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    hands = [{**hand, "by": {"Ann": ann.pk, "Bob": bob.pk}.get(hand.get("by"))} for hand in hands]
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user, hands=hands, **options)
    return game, ann, bob


def test_the_time_help_and_refusals_offline_read_as_online(new_page, live_server):
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    expect(page.locator("#call-time-help")).to_contain_text("hand 1 is the last")
    page.context.set_offline(True)
    enter_hand(page, ending="Knock", by="Ann", knocker=5, defender=20)
    save_offline(page, 1)
    enter_hand(page, ending="Gin", by="Bob", defender=10)
    save_offline(page, 2)
    expect(page.locator("#record h2")).to_have_text("Hand 3")
    expect(page.locator("#call-time-help")).to_contain_text("hand 3 is the last")

    enter_hand(page, ending="Knock", by="Ann", knocker=5, defender=200)
    page.get_by_role("button", name="Save hand").click()
    refusal = page.locator(".offline-note.refused")
    expect(refusal).to_have_text("Other player's deadwood: enter a number from 0 to 98, not 200")
    page.get_by_label("Other player's deadwood").fill("20")
    page.get_by_label("Knocker's deadwood").fill("0")
    page.get_by_role("button", name="Save hand").click()
    expect(refusal).to_contain_text("Knocker's deadwood: ")
    expect(refusal).not_to_contain_text("knocker_deadwood")
    expect(refusal).not_to_contain_text("hand 3:")


def test_a_correction_offline_keeps_a_reason_in_the_phones_language(new_page, live_server):
    game, ann, bob = ann_v_bob(hands=[{"ending": "knock", "by": "Ann", "knocker_deadwood": 4, "defender_deadwood": 14}])
    page = new_page(viewport=PHONE_390, locale="de-DE")
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    page.context.set_offline(True)
    page.locator("td.fix a").first.click()
    correction = page.locator("form.offline-edit")
    correction.locator("[name=defender_deadwood]").fill("24")
    correction.locator("button[type=submit]").click()
    expect(correction).to_have_count(0)
    page.context.set_offline(False)
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    assert Hand.objects.get(game=game).defender_deadwood == 24
    comments = set(FactChange.objects.filter(game=game, hand_number=1).values_list("comment", flat=True))
    assert comments == {"Auf einem Handy ohne Netz korrigiert"}, comments


def test_a_hollywood_game_closed_offline_reads_as_online(new_page, live_server):
    game, ann, bob = ann_v_bob(
        rules={"preset": "hollywood"},
        hands=[{"ending": "gin", "by": "Ann", "defender_deadwood": 80}],  # Ann 105 into game 1: it closes
    )
    page = new_page(viewport=PHONE_390, locale="de-DE")
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    online_rows = page.locator("section.game-over table.breakdown tbody tr").all_inner_texts()
    expect(page.locator(".board").first.locator(".closed-mark")).to_have_text("abgeschlossen")
    page.context.set_offline(True)
    pick(page, "Wie das Spiel endete", "Totes Spiel")
    page.locator("#record button.primary[value=save]").click()
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(1)
    badge = page.locator(".board").first.locator("h2 .closed-mark")
    expect(badge).to_have_text("abgeschlossen")
    assert badge.evaluate("node => node.getClientRects().length") == 1  # one box: never broken mid-word
    offline_rows = page.locator("section.game-over table.breakdown tbody tr").all_inner_texts()
    assert offline_rows == online_rows


def test_a_page_not_kept_is_named_by_its_title_and_lists_only_what_was_kept(new_page, live_server):
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_load_state("networkidle")  # nothing of the page's own still in flight to fail offline
    kept_by_worker(page)
    page.context.set_offline(True)
    page.locator("header.site nav").get_by_role("link", name="Players").click()
    section = page.locator("#not-kept")
    expect(section).to_be_visible()
    expect(section).to_contain_text("\u201cPlayers\u201d was not opened on this phone")
    expect(section).not_to_contain_text("/players/")
    expect(section.locator(".kept-none")).to_be_visible()  # nothing kept: never "these games" over an empty list
    expect(section.locator(".kept-some")).to_be_hidden()

    page.context.set_offline(False)
    open_sheet(page, live_server.url, game)
    page.context.set_offline(True)
    page.locator("header.site nav").get_by_role("link", name="Players").click()
    expect(section.locator(".kept-some")).to_be_visible()
    expect(section.locator("#kept-games")).to_contain_text("Ann v Bob")
    expect(section.locator(".kept-none")).to_be_hidden()


# The words the not-kept screen is read by, in each language the test runs in (the site's own catalogs).
NOT_KEPT_WORDS = {
    "en": {
        "locale": "en-GB",
        "players": "Players",
        "account": "Account",
        "sign_out": "Sign out",
        "sign_in": "Sign in",
        "not_opened": "\u201cPlayers\u201d was not opened on this phone",
        "game": "Ann v Bob",
    },
    "de": {
        "locale": "de-DE",
        "players": "Spieler",
        "account": "Konto",
        "sign_out": "Abmelden",
        "sign_in": "Anmelden",
        "not_opened": "\u201eSpieler\u201c wurde auf diesem Handy nicht ge\u00f6ffnet",
        "game": "Ann gegen Bob",
    },
}


@pytest.mark.parametrize("language", list(NOT_KEPT_WORDS))
def test_a_page_not_kept_keeps_the_signed_in_navigation(new_page, live_server, language):
    """The worker keeps its copy of the waiting page when it is installed, on the phone's first visit: signed
    out. Offline, a page never opened is answered with that copy; it must still read as the signed-in
    player's: their navigation (Account, Sign out; never "Sign in"), no "sign in to send" over their own
    hand, the games this phone keeps, and the page named by the words of the link followed."""
    words = NOT_KEPT_WORDS[language]
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390, locale=words["locale"])
    base = live_server.url
    page.goto(f"{base}/")  # the first visit, signed out: the worker is installed with its app shell
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    nav = page.locator("header.site nav.site-nav")
    expect(nav.get_by_role("link", name=words["sign_in"], exact=True)).to_be_visible()

    sign_in(page, base, "ann")
    page.goto(f"{base}/")
    expect(nav.get_by_role("button", name=words["sign_out"])).to_be_visible()
    open_sheet(page, base, game)
    page.context.set_offline(True)
    # A hand scored without a network: Ann's, waiting to be sent as Ann.
    page.locator("#record label.pick", has=page.locator("input[name=ending][value=gin]")).click()
    page.locator("#record label.pick", has=page.locator(f"input[name=by][value='{ann.pk}']")).click()
    page.locator("#record input[name=defender_deadwood]").fill("12")
    page.locator("#record .buttons button[name=action][value=save]").click()
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(1)

    nav.get_by_role("link", name=words["players"], exact=True).click()
    section = page.locator("#not-kept")
    expect(section).to_be_visible()
    expect(nav.get_by_role("button", name=words["sign_out"])).to_be_visible()
    expect(nav.get_by_role("link", name=words["account"], exact=True)).to_be_visible()
    expect(nav.get_by_role("link", name=words["sign_in"], exact=True)).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text(re.compile(r"\bann\b"))  # never "Sign in as ann to send this hand"
    expect(page.locator("#waiting-list .unsent-mark")).to_have_count(1)
    expect(section).to_contain_text(words["not_opened"])
    expect(section).not_to_contain_text("/players/")
    expect(section.locator("#kept-games")).to_contain_text(words["game"])
    expect(section.locator(".kept-none")).to_be_hidden()
    screenshot(page, f"not-kept-{language}")
