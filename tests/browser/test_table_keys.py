"""At the table, offline as online (issue 32): the same sheet, the same corrections, fewer keys.

A 390x844 phone, driven by the keyboard where the item is about keys, with the network
switched off (``context.set_offline``) where the item is about scoring offline.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring import services
from scoring.models import FactChange, Game, Hand
from tests.browser.conftest import sign_in
from tests.browser.test_kitchen import enter_hand
from tests.browser.test_offline import open_sheet, ready, save_offline
from tests.browser.test_phone import PHONE_390, ann_v_bob
from tests.factories import UserFactory, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

def focused(page) -> str:
    """The focused element as a player would name it: its label's text, or its own."""
    return page.evaluate(
        """() => {
            const e = document.activeElement;
            if (!e || e === document.body) { return "(nothing)"; }
            const label = e.labels && e.labels[0];
            return ((label ? label.textContent : e.textContent) || e.getAttribute("aria-label") || "").trim();
        }"""
    )


# --- item 8: the sheet opens with the keyboard on the record form ----------------------------------


def test_a_sheet_opened_on_a_phone_starts_on_how_the_hand_ended(new_page, live_server):
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("input[name=ending][value=knock]")).to_be_focused()
    # Space picks Knock at once: no Tab through the header's links first.
    page.keyboard.press("Space")
    expect(page.locator("input[name=ending][value=knock]")).to_be_checked()
    # The top of the sheet (who deals next, the scores) stays in view.
    assert page.evaluate("window.scrollY") == 0


def test_sign_in_and_setup_start_in_the_first_box(new_page, live_server):
    page = new_page(viewport=PHONE_390)
    page.goto(f"{live_server.url}/setup/")
    expect(page.get_by_label("Username")).to_be_focused()
    UserFactory(username="ann")
    page.goto(f"{live_server.url}/login/")
    expect(page.get_by_label("Username")).to_be_focused()


# --- item 9: "Enter the cards instead" after the deadwood boxes --------------------------------------


def test_tab_goes_from_who_went_out_to_the_deadwood_boxes(new_page, live_server):
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("input[name=ending][value=knock]").check()
    page.locator("input[name=by]").first.check()
    page.locator("input[name=by]").first.focus()
    page.keyboard.press("Tab")
    assert focused(page) == "Knocker's deadwood"
    page.keyboard.press("Tab")
    assert focused(page) == "Other player's deadwood"
    page.keyboard.press("Tab")
    assert focused(page) == "Enter the cards instead"  # still there, one Tab later
    expect(page.get_by_role("button", name="Enter the cards instead")).to_be_visible()


# --- a figure that is not a whole number: the browser refuses the box, naming it --------------------------


def refused_before_sending(page, figure: str) -> str:
    """Knock by the first player, ``figure`` in the knocker's box, Enter: what the browser says of the box (the
    message it shows on it), once it has refused to send."""
    page.locator("input[name=ending][value=knock]").check()
    page.locator("input[name=by]").first.check()
    page.get_by_label("Knocker's deadwood").fill(figure)
    page.get_by_label("Other player's deadwood").fill("20")
    page.get_by_label("Knocker's deadwood").press("Enter")
    expect(page.get_by_label("Knocker's deadwood")).to_be_focused()  # the browser's message is on this box
    return page.get_by_label("Knocker's deadwood").evaluate("box => box.validationMessage")


def test_a_figure_that_is_not_a_whole_number_is_refused_on_the_phone_with_the_box_named(new_page, live_server):
    """A phone's number pad may have a point or a minus: "2.5" or "-3" never leaves the phone, and the
    browser's message says which box wants what, online and on a game started offline alike."""
    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    for figure in ("2.5", "-3"):
        assert refused_before_sending(page, figure) == "Knocker's deadwood: enter a whole number."
    expect(page.locator("table.hands")).to_contain_text("No hands yet.")
    assert not Hand.objects.filter(game=game).exists()
    # Filled in by the page since (as the cards' best play is), not typed: Enter saves it, the refusal forgotten.
    page.get_by_label("Knocker's deadwood").evaluate("box => { box.value = '3'; }")
    page.get_by_label("Knocker's deadwood").press("Enter")
    expect(page.locator("table.hands tbody tr")).to_contain_text("deadwood 3 v 20")

    start_offline(page, live_server.url)
    assert refused_before_sending(page, "4,5") == "Knocker's deadwood: enter a whole number."
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)  # no hand kept to be sent
    page.context.set_offline(False)


# --- item 7: the new-game form never keeps Hollywood unseen -------------------------------------------


def test_choosing_classic_after_a_hollywood_game_drops_the_tick_and_the_summary_says_hollywood(
    new_page, live_server
):
    game, ann, bob = ann_v_bob()
    Game.objects.filter(pk=game.pk).update(rules={"preset": "hollywood"})
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/new/?from={game.pk}")
    hollywood = page.get_by_label("Hollywood (three games at once)")
    expect(hollywood).to_be_checked()

    page.get_by_label("Rules", exact=True).select_option("classic")
    expect(hollywood).not_to_be_checked()
    summary = page.locator("#rules-summary .these-rules")
    expect(summary).to_have_text("These rules: Classic (pagat / Bicycle)")

    # Ticked on purpose: the summary says so, as the sheet's rules line will.
    hollywood.check()
    expect(summary).to_have_text("These rules: Classic (pagat / Bicycle) · Hollywood (three games at once): yes")
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    created = Game.objects.order_by("-pk").first()
    assert (created.rule_set.preset, created.rule_set.hollywood) == ("classic", True)
    expect(page.locator(".rules-line")).to_have_text("Classic (pagat / Bicycle) · Hollywood (three games at once): yes")


def test_choosing_another_rule_set_on_a_fresh_form_leaves_no_hollywood(new_page, live_server):
    ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/new/")
    page.get_by_label("Rules", exact=True).select_option("hollywood")
    expect(page.get_by_label("Hollywood (three games at once)")).to_be_checked()
    page.get_by_label("Rules", exact=True).select_option("standard")
    expect(page.get_by_label("Hollywood (three games at once)")).not_to_be_checked()
    expect(page.locator("#rules-summary .these-rules")).to_have_text("These rules: Standard (modern Hoyle)")


# --- item 12: every game keeps and shows its history ----------------------------------------------------


def test_a_casual_games_history_shows_both_phones_versions_and_which_was_kept(new_page, live_server):
    game, ann, bob = ann_v_bob()
    phone = new_page(viewport=PHONE_390)
    sign_in(phone, live_server.url, "ann")
    open_sheet(phone, live_server.url, game)
    phone.context.set_offline(True)
    enter_hand(phone, ending="Knock", by="Ann", knocker=3, defender=33)
    save_offline(phone, 1)
    services.hand_record(game=game, ending="gin", by=bob.pk, defender_deadwood=7, expected_number=1)  # the other phone

    phone.context.set_offline(False)
    conflict = phone.locator(".conflict")
    expect(conflict).to_contain_text("Two versions of hand 1")
    conflict.get_by_role("button", name="Keep this phone's").click()
    expect(phone.locator(".conflict")).to_have_count(0)

    phone.get_by_role("link", name="History of this game").click()
    rows = phone.locator("table.audit tbody tr")
    expect(rows.filter(has_text="Hand 1 ending")).to_contain_text("Gin")
    expect(rows.filter(has_text="Hand 1 ending")).to_contain_text("Knock")
    comment = rows.filter(has_text="Hand 1 ending").locator("td").nth(5)
    expect(comment).to_have_text(
        "Two phones recorded hand 1; the players kept the version scored offline (after), "
        "not the one stored first (before)."
    )
    trail = phone.request.get(f"{live_server.url}/api/games/{game.pk}/audit/")
    assert trail.status == 200, trail.text()
    assert ("Hand 1 ending", "Gin", "Knock") in [
        (line["what"], line["before"], line["after"]) for line in trail.json()["results"]
    ]


def test_the_version_not_kept_is_on_a_casual_games_history_page(new_page, live_server):
    game, ann, bob = ann_v_bob([{"ending": "gin", "by": "bob", "defender_deadwood": 7}])
    services.hand_version_set_aside(
        hand=game.hands.get(), ending="knock", by=ann.pk, knocker_deadwood=3, defender_deadwood=33
    )
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.get_by_role("link", name="History of this game").click()
    row = page.locator("table.audit tbody tr.audit-version_set_aside")
    expect(row).to_contain_text("Version not kept (two phones recorded the hand): Hand 1")
    expect(row).to_contain_text("Gin by Bob against 7")
    expect(row).to_contain_text("Knock by Ann deadwood 3 against 33")
    expect(row).to_contain_text("kept the version stored first (before), not this one (after)")


# --- item 4: offline and online hands read the same -------------------------------------------------------


def what_cells(page) -> list[str]:
    """Each hand's "What happened" as read ("what | the line under it"), without the "not yet sent" mark."""
    return page.locator("table.hands tbody td.what").evaluate_all(
        """cells => cells.map(cell => {
            const copy = cell.cloneNode(true);
            copy.querySelectorAll(".unsent-mark").forEach(mark => mark.remove());
            const meta = copy.querySelector(".meta");
            const under = meta ? meta.textContent : "";
            if (meta) { meta.remove(); }
            return (copy.textContent + " | " + under).replace(/\\s+/g, " ").trim();
        })"""
    )


def test_a_hand_drawn_offline_reads_as_the_servers_rows_do(new_page, live_server):
    game, ann, bob = ann_v_bob(
        [
            {"ending": "knock", "by": "ann", "knocker_deadwood": 3, "defender_deadwood": 13},
            {"ending": "knock", "by": "bob", "knocker_deadwood": 8, "defender_deadwood": 5},  # Ann undercuts
        ]
    )
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    online = what_cells(page)
    assert online == [
        "Ann knock | deadwood 3 v 13 · Bob dealt",
        "Bob knock, undercut by Ann | deadwood 8 v 5 · Bob dealt",
    ]

    page.context.set_offline(True)
    enter_hand(page, ending="Gin", by="Bob", defender=9)
    save_offline(page, 1)  # the whole table is now drawn by the phone
    offline = what_cells(page)
    assert offline[:2] == online
    assert offline[2] == "Bob gin | deadwood 0 v 9 · Bob dealt"
    expect(page.locator("table.hands tbody td.what strong")).to_have_text("undercut")

    page.context.set_offline(False)
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    assert what_cells(page) == offline


# --- item 5: the pending notice and the badge agree -------------------------------------------------------


def test_the_not_yet_sent_notice_counts_what_the_badge_counts(new_page, live_server):
    game, ann, bob = ann_v_bob([{"ending": "knock", "by": "ann", "knocker_deadwood": 3, "defender_deadwood": 13}])
    other = make_game(player_one=ann, player_two=bob, first_dealer=ann, created_by=game.created_by)
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, other)
    open_sheet(page, live_server.url, game)
    page.context.set_offline(True)

    page.goto(f"{live_server.url}/games/{other.pk}/")  # the phone's kept copy
    enter_hand(page, ending="Gin", by="Bob", defender=9)
    save_offline(page, 1)
    notice = page.locator(".offline-note.status")
    expect(page.locator("#net-badge")).to_have_text("Offline · 1 waiting")
    expect(notice).to_have_text("1 change not yet sent: scored on this phone, sent when the network is back.")

    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("#net-badge")).to_have_text("Offline · 1 waiting")
    expect(notice).to_have_text(
        "1 change not yet sent (none to this game): scored on this phone, sent when the network is back."
    )
    page.get_by_role("link", name="Edit hand 1").click()
    correction = page.locator("form.offline-edit")
    correction.get_by_label("Other player's deadwood").fill("15")
    correction.get_by_role("button", name="Save correction").click()
    expect(correction).to_have_count(0)
    expect(page.locator("#net-badge")).to_have_text("Offline · 2 waiting")
    expect(notice).to_have_text(
        "2 changes not yet sent (1 to this game): scored on this phone, sent when the network is back."
    )


# --- item 2: a game started offline opens from the waiting page -------------------------------------------


def start_offline(page, base_url: str, *, one="Ann", two="Cat", preset=None, hollywood=False) -> None:
    """Start a game on the new-game form with the network off (the form seen through the worker first)."""
    page.goto(f"{base_url}/games/new/")
    ready(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    ready(page)
    page.context.set_offline(True)
    page.get_by_label("First player", exact=True).fill(one)
    page.get_by_label("Second player", exact=True).fill(two)
    if preset:
        page.get_by_label("Rules", exact=True).select_option(preset)
    if hollywood:
        page.get_by_label("Hollywood (three games at once)").check()
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#sheet h1")).to_have_text(f"{one} v {two}")


def test_a_game_started_offline_opens_from_the_waiting_page(new_page, live_server):
    UserFactory(username="ann")
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    start_offline(page, live_server.url)
    enter_hand(page, ending="Gin", by="Cat", defender=14)
    save_offline(page, 1)

    page.goto(f"{live_server.url}/waiting/")
    page.get_by_role("link", name="Ann v Cat").click()
    expect(page.locator("#sheet h1")).to_have_text("Ann v Cat")
    expect(page.locator("table.hands tbody tr")).to_have_count(1)
    expect(page.locator("#sheet form#record")).to_be_visible()
    page.go_back()
    expect(page.locator("#waiting-list")).to_contain_text("New game: Ann v Cat")


# --- item 6: a page never kept says so, and leads to the games that were ----------------------------------


def test_the_home_page_never_kept_says_so_offline_and_links_the_kept_games(new_page, live_server):
    game, ann, bob = ann_v_bob([{"ending": "knock", "by": "ann", "knocker_deadwood": 3, "defender_deadwood": 13}])
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)  # the only page this phone has seen
    page.context.set_offline(True)

    page.goto(f"{live_server.url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("This page was not kept for offline use")
    # Named as the page's own link names it (the brand leads home), not by its address (issue 37).
    expect(page.locator("#not-kept")).to_contain_text("\u201cGinLeague\u201d was not opened on this phone while it had")
    page.get_by_role("link", name="Ann v Bob").click()
    expect(page).to_have_url(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("table.hands tbody tr")).to_have_count(1)
    # The waiting page itself is unchanged.
    page.goto(f"{live_server.url}/waiting/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Waiting to be sent")
    expect(page.locator("#not-kept")).to_be_hidden()


# --- item 3: the sheet of a game started offline is the online sheet -------------------------------------


def sheet_outline(page) -> dict:
    """What a player reads of a sheet's frame: the rules line, the endings offered, the hands table's head."""
    return {
        "rules": page.locator("#sheet .rules-line").inner_text(),
        "endings": page.locator("#record fieldset.endings label.pick").all_inner_texts(),
        "who": page.locator("#record fieldset.who legend").inner_text(),
        "boxes": page.locator("#record .deadwood label").all_inner_texts(),
        "head": [text.strip() for text in page.locator("table.hands thead th").all_inner_texts()],
    }


def test_a_game_started_offline_gets_the_online_sheet_of_its_rules(new_page, live_server):
    UserFactory(username="ann")
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    start_offline(page, live_server.url, preset="classic", hollywood=True)
    offline = sheet_outline(page)
    assert offline["rules"] == "Classic (pagat / Bicycle) · Hollywood (three games at once): yes"
    assert offline["endings"] == ["Knock", "Gin", "Dead hand"]  # Classic allows no big gin
    enter_hand(page, ending="Gin", by="Cat", defender=14)
    save_offline(page, 1)
    row = page.locator("table.hands tbody tr").first
    offline_row = [text.strip() for text in row.locator("td.run").all_inner_texts()]

    page.context.set_offline(False)
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    expect(page.locator("table.hands tbody tr")).to_have_count(1)
    assert sheet_outline(page) == offline
    online_row = page.locator("table.hands tbody tr").first.locator("td.run").all_inner_texts()
    assert [text.strip() for text in online_row] == offline_row
    game = Game.objects.get()
    assert (game.rule_set.preset, game.rule_set.hollywood) == ("classic", True)


# --- item 10: the correction preview says when boxes or a later hand's dealer change ----------------------


def test_the_correction_preview_names_the_boxes_and_the_later_dealers_that_change(new_page, live_server):
    game, ann, bob = ann_v_bob(
        [
            {"ending": "knock", "by": "ann", "knocker_deadwood": 3, "defender_deadwood": 13},  # Bob deals, loses
            {"ending": "knock", "by": "ann", "knocker_deadwood": 2, "defender_deadwood": 12},  # so Bob deals again
        ]
    )
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/hands/1/edit/")
    page.get_by_label("Knocker's deadwood").fill("")  # a gin has none
    page.locator("input[name=ending][value=gin]").check()
    page.locator(f"input[name=by][value='{bob.pk}']").check()
    page.get_by_label("Other player's deadwood").fill("9")
    page.get_by_label("Other player's deadwood").press("Tab")
    changes = page.locator("#preview .preview-changes li")
    expect(changes.filter(has_text="Hand 2 dealer")).to_have_text("Hand 2 dealer Bob → Ann")
    expect(changes.filter(has_text="Ann, boxes")).to_have_text("Ann, boxes 2 → 1")
    expect(changes.filter(has_text="Bob, boxes")).to_have_text("Bob, boxes 0 → 1")


# --- item 1: a correction made offline previews and takes a reason, as online ----------------------------


def test_an_offline_correction_previews_like_online_and_sends_its_reason(new_page, live_server):
    game, ann, bob = ann_v_bob(
        [
            {"ending": "knock", "by": "ann", "knocker_deadwood": 3, "defender_deadwood": 13},
            {"ending": "knock", "by": "ann", "knocker_deadwood": 2, "defender_deadwood": 12},
        ]
    )
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    # Online: the edit page's preview of hand 1 as Bob's gin against 9.
    page.goto(f"{live_server.url}/games/{game.pk}/hands/1/edit/")
    page.get_by_label("Knocker's deadwood").fill("")
    page.locator("input[name=ending][value=gin]").check()
    page.locator(f"input[name=by][value='{bob.pk}']").check()
    page.get_by_label("Other player's deadwood").fill("9")
    page.get_by_label("Other player's deadwood").press("Tab")
    expect(page.locator("#preview p")).to_have_text("Gin! Bob scores 34.")  # the answer to the last change
    page.wait_for_load_state("networkidle")
    online = page.locator("#preview p, #preview li").all_inner_texts()
    assert "Hand 2 dealer Bob → Ann" in online

    open_sheet(page, live_server.url, game)
    page.context.set_offline(True)
    page.get_by_role("link", name="Edit hand 1").click()
    correction = page.locator("form.offline-edit")
    correction.get_by_label("How it ended").select_option("gin")
    correction.get_by_label("Who went out").select_option(str(bob.pk))
    correction.get_by_label("Knocker's deadwood").fill("")
    correction.get_by_label("Other player's deadwood").fill("9")
    expect(correction.locator(".preview p, .preview li")).to_have_text(online)
    correction.get_by_label("Reason for the correction").fill("Bob went gin; Ann had misread her cards")
    correction.get_by_role("button", name="Save correction").click()
    expect(correction).to_have_count(0)

    page.context.set_offline(False)
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    hand = Hand.objects.get(game=game, number=1)
    assert (hand.ending, hand.by_id, hand.defender_deadwood) == ("gin", bob.pk, 9)
    comments = set(FactChange.objects.filter(game=game, hand_number=1).values_list("comment", flat=True))
    assert comments == {"Bob went gin; Ann had misread her cards"}


# --- item 11: card entry says at once when a typed figure is not the best play ----------------------------


def test_card_entry_says_at_once_when_a_typed_figure_is_not_the_best_play(new_page, live_server):
    from tests.test_table_play import DEFENDER as PLAYED_DEFENDER
    from tests.test_table_play import KNOCKER as PLAYED_KNOCKER

    game, ann, bob = ann_v_bob()
    page = new_page(viewport=PHONE_390)
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("input[name=ending][value=knock]").check()
    page.locator(f"input[name=by][value='{ann.pk}']").check()
    page.get_by_role("button", name="Enter the cards instead").click()
    for grid, codes in (("cards_one", PLAYED_KNOCKER), ("cards_two", PLAYED_DEFENDER)):
        for code in codes.split():
            page.locator(f"label[for=id_{grid}_{code}]").click()
    defender = page.get_by_label("Other player's deadwood")
    expect(defender).to_have_value("83")  # the best play, filled in by the app
    notes = page.locator(".card-result .card-typed")
    expect(notes).to_have_count(0)

    defender.fill("76")  # as played: 7C went on the run
    defender.press("Tab")
    expect(notes).to_have_text(["Other player's deadwood: you typed 76; best play 83"])
    assert not Hand.objects.exists()  # said before any save
