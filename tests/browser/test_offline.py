"""Scoring without a network (issue 14), in Chromium with the network switched off.

The figures shown offline come from the offline scorer (static/js/engine.js); once synced, the
server's figures (the Python engine) must be the same, and every hand must reach the server once.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from playwright.sync_api import expect

from scoring import services
from scoring.engine.record import parse_record
from scoring.models import FactChange, Game, Hand
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE, kept_by_worker, screenshot, sign_in
from tests.browser.test_kitchen import enter_hand
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def ready(page) -> None:
    """The offline app has registered the worker, kept the game's facts and loaded the offline scorer."""
    expect(page.locator("html[data-offline-ready='1']")).to_have_count(1)


def open_sheet(page, base_url: str, game: Game) -> None:
    """Open a scoresheet and wait until this phone holds what it needs to score it offline."""
    page.goto(f"{base_url}/games/{game.pk}/")
    ready(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    # The worker keeps the page and the game's facts when it sees them: look once more through it.
    page.reload()
    ready(page)
    kept_by_worker(page)


def totals(page) -> list[str]:
    return [text.strip() for text in page.locator(".boards .board .line .pts").all_inner_texts()]


def save_offline(page, rows: int) -> None:
    page.get_by_role("button", name="Save hand").click()
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(rows)


def watch_problems(page, problems: list[str]) -> None:
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "console",
        lambda message: (
            problems.append(f"console: {message.text}")
            if message.type == "error"
            and "Failed to load resource" not in message.text
            and "ERR_INTERNET" not in message.text
            else None
        ),
    )


def test_five_hands_scored_offline_survive_reload_and_restart_then_reach_the_server_once_in_order(
    browser, live_server, tmp_path
):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    profile = tmp_path / "phone"
    playwright_chromium = browser.browser_type
    problems: list[str] = []

    def launch():
        context = playwright_chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, viewport=PHONE
        )
        context.set_default_timeout(20_000)
        page = context.pages[0] if context.pages else context.new_page()
        watch_problems(page, problems)
        return context, page

    context, page = launch()
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)

    context.set_offline(True)
    expect(page.locator("#net-badge")).to_have_text("Offline")
    enter_hand(page, ending="Knock", by="Ann", knocker=5, defender=20)
    save_offline(page, 1)
    enter_hand(page, ending="Gin", by="Bob", defender=12)
    save_offline(page, 2)
    enter_hand(page, ending="Knock", by="Ann", knocker=8, defender=4)  # Bob undercuts
    save_offline(page, 3)
    enter_hand(page, ending="Knock", by="Bob", knocker=3, defender=30)
    save_offline(page, 4)
    enter_hand(page, ending="Knock", by="Ann", knocker=2, defender=10)
    save_offline(page, 5)
    enter_hand(page, ending="Dead hand")  # a slip: undone at once, so it never reaches the server
    save_offline(page, 6)
    page.get_by_role("button", name="Undo hand 6").click()
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(5)
    # A correction offline: hand 4's other player had 25, not 30.
    page.get_by_role("link", name="Edit hand 4").click()
    correction = page.locator("form.offline-edit")
    correction.get_by_label("Other player's deadwood").fill("25")
    correction.get_by_role("button", name="Save correction").click()
    expect(correction).to_have_count(0)

    rows = page.locator("table.hands tbody tr")
    expect(rows).to_have_count(5)
    # In the sheet's own words (issue 32): who went out, what happened, then the points.
    for row, what, points in ((1, "Bob gin", "37"), (2, "Ann knock, undercut by Bob", "29"), (3, "Bob knock", "22")):
        expect(rows.nth(row).locator("td.what")).to_contain_text(what)
        expect(rows.nth(row).locator("td.pts")).to_have_text(points)
    expect(page.locator("#net-badge")).to_have_text("Offline · 5 waiting")
    shown = totals(page)
    assert shown == ["23", "88"], shown
    screenshot(page, "offline-five-hands")
    assert Hand.objects.filter(game=game).count() == 0  # nothing reached the server yet

    # Reload without a network: the sheet and the five hands are still there, scored.
    page.reload()
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(5)
    expect(page.locator("table.hands tbody tr").nth(3).locator("td.what")).to_contain_text("Bob knock")
    expect(page.locator("table.hands tbody tr").nth(3).locator("td.pts")).to_have_text("22")
    assert totals(page) == shown
    expect(page.locator(".offline-note.status")).to_contain_text("5 changes not yet sent")

    # The phone is put away (the browser closes) and opened again later, with the network back.
    context.close()
    context, page = launch()
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("#net-badge")).to_have_text("Online")
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    expect(page.locator("table.hands tbody tr")).to_have_count(5)

    hands = list(Hand.objects.filter(game=game).order_by("number"))
    assert [(h.number, h.ending, h.by.name, h.knocker_deadwood, h.defender_deadwood) for h in hands] == [
        (1, "knock", "Ann", 5, 20),
        (2, "gin", "Bob", None, 12),
        (3, "knock", "Ann", 8, 4),
        (4, "knock", "Bob", 3, 25),
        (5, "knock", "Ann", 2, 10),
    ]
    assert [h.result for h in hands][1:3] == ["gin", "undercut"]
    assert len([url for url in posts if re.search(r"/api/games/\d+/hands/$", url)]) == 5
    game.refresh_from_db()
    score = game.scores.get(number=1)
    assert [str(score.player_one_hand_points), str(score.player_two_hand_points)] == shown
    assert totals(page) == shown  # the server's page now shows the server's figures: the same
    context.close()
    assert not problems, problems


def test_two_phones_record_hand_3_and_the_players_keep_one_nothing_lost(new_page, live_server):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann,
        player_two=bob,
        created_by=user,
        hands=[
            {"ending": "knock", "by": ann.pk, "knocker_deadwood": 4, "defender_deadwood": 14},
            {"ending": "knock", "by": bob.pk, "knocker_deadwood": 6, "defender_deadwood": 16},
        ],
    )
    offline_phone = new_page()
    online_phone = new_page()
    for phone in (offline_phone, online_phone):
        sign_in(phone, live_server.url, "ann")
    open_sheet(offline_phone, live_server.url, game)
    online_phone.goto(f"{live_server.url}/games/{game.pk}/")

    offline_phone.context.set_offline(True)
    enter_hand(offline_phone, ending="Gin", by="Ann", defender=9)
    save_offline(offline_phone, 1)

    enter_hand(online_phone, ending="Knock", by="Bob", knocker=2, defender=12)
    online_phone.get_by_role("button", name="Save hand").click()
    expect(online_phone.locator(".notice")).to_contain_text("Hand 3 saved")

    offline_phone.context.set_offline(False)
    conflict = offline_phone.locator(".conflict")
    expect(conflict).to_contain_text("Two versions of hand 3")
    expect(conflict.locator(".theirs")).to_contain_text("Bob knock 10")
    expect(conflict.locator(".ours")).to_contain_text("Gin by Ann against 9")
    expect(offline_phone.locator("#net-badge")).to_have_text("1 to check")
    rows = offline_phone.locator("table.hands tbody tr")
    expect(rows).to_have_count(3)  # the server's hand 3 stands until the players choose
    expect(rows.nth(2)).to_contain_text("two versions")
    screenshot(offline_phone, "offline-two-versions")
    assert Hand.objects.get(game=game, number=3).ending == "knock"  # nothing replaced before the players chose

    conflict.get_by_role("button", name="Keep this phone's").click()
    expect(offline_phone.locator(".conflict")).to_have_count(0)
    expect(offline_phone.locator("#net-badge")).to_have_text("Online")
    kept = Hand.objects.get(game=game, number=3)
    assert (kept.ending, kept.by_id, kept.defender_deadwood) == ("gin", ann.pk, 9)
    assert Hand.objects.filter(game=game).count() == 3
    # The other phone's version is in the audit trail.
    trail = list(FactChange.objects.filter(game=game, hand_number=3).values_list("what", "before", "after"))
    assert ("Hand 3 ending", "Knock", "Gin") in trail
    assert ("Hand 3 went out", "Bob", "Ann") in trail


def test_keeping_the_other_phones_version_notes_this_phones_in_the_history(new_page, live_server):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, created_by=user)
    offline_phone = new_page()
    sign_in(offline_phone, live_server.url, "ann")
    open_sheet(offline_phone, live_server.url, game)
    offline_phone.context.set_offline(True)
    enter_hand(offline_phone, ending="Knock", by="Ann", knocker=3, defender=33)
    save_offline(offline_phone, 1)
    Hand.objects.filter(game=game).delete()
    from scoring import services

    services.hand_record(game=game, ending="gin", by=bob.pk, defender_deadwood=7, expected_number=1)

    offline_phone.context.set_offline(False)
    conflict = offline_phone.locator(".conflict")
    expect(conflict).to_contain_text("Two versions of hand 1")
    conflict.get_by_role("button", name="Keep the other phone's").click()
    expect(offline_phone.locator(".conflict")).to_have_count(0)
    expect(offline_phone.locator("table.hands tbody tr")).to_have_count(1)
    expect(offline_phone.locator("table.hands tbody tr").first).to_contain_text("Bob gin")
    assert Hand.objects.get(game=game).ending == "gin"
    line = FactChange.objects.get(game=game, action="version_set_aside")
    assert (line.hand_number, line.before, line.after) == (
        1,
        "Gin by Bob against 7",
        "Knock by Ann deadwood 3 against 33",
    )


def test_a_confirmed_league_result_is_not_changed_offline(page, live_server):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann,
        player_two=bob,
        created_by=user,
        hands=[{"ending": "knock", "by": ann.pk, "knocker_deadwood": 4, "defender_deadwood": 14}],
    )
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    # Confirmed meanwhile (by the other player, say): this phone learns it on its next look.
    Game.objects.filter(pk=game.pk).update(league_status="confirmed")
    page.reload()
    ready(page)
    page.context.set_offline(True)
    undo = page.get_by_role("button", name="Undo hand 1")
    if undo.count():
        undo.click()
        expect(page.locator(".offline-note.refused")).to_contain_text("confirmed")
    page.get_by_role("link", name="Edit hand 1").click()
    expect(page.locator(".offline-note.refused")).to_contain_text("This league result is confirmed")
    expect(page.locator("form.offline-edit")).to_have_count(0)
    page.context.set_offline(False)
    assert Hand.objects.get(game=game).knocker_deadwood == 4


def test_installable_manifest_and_service_worker(page, live_server):
    UserFactory(username="ann")
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/")
    ready(page)
    manifest = page.evaluate(
        """async () => {
            const link = document.querySelector('link[rel=manifest]');
            const answer = await fetch(link.href);
            return {type: answer.headers.get('content-type'), body: await answer.json()};
        }"""
    )
    assert manifest["type"].startswith("application/manifest+json")
    body = manifest["body"]
    assert body["name"] == "GinLeague" and body["short_name"]
    assert body["display"] == "standalone"
    assert body["start_url"] == "/"
    assert re.fullmatch(r"#[0-9a-f]{6}", body["theme_color"])
    sizes = {icon["sizes"] for icon in body["icons"]}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in body["icons"])
    for icon in body["icons"]:  # each icon is a PNG of the size it claims
        width, height = page.evaluate(
            """async (src) => {
                const image = new Image(); image.src = src; await image.decode();
                return [image.naturalWidth, image.naturalHeight];
            }""",
            icon["src"],
        )
        assert f"{width}x{height}" == icon["sizes"]

    registration = page.evaluate(
        """async () => {
            const reg = await navigator.serviceWorker.ready;
            return {scope: reg.scope, script: reg.active.scriptURL, controlled: !!navigator.serviceWorker.controller};
        }"""
    )
    assert registration["scope"] == f"{live_server.url}/"
    assert registration["script"] == f"{live_server.url}/sw.js"
    worker = page.request.get(f"{live_server.url}/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript")
    assert "no-cache" in worker.headers["cache-control"]
    csp = (
        worker.headers.get("content-security-policy", "")
        or page.request.get(f"{live_server.url}/").headers["content-security-policy"]
    )
    assert "worker-src 'self'" in csp and "manifest-src 'self'" in csp
    assert page.evaluate("document.querySelector('meta[name=theme-color]').content") == body["theme_color"]

    # The start page opens without a network once seen, and the waiting page too.
    page.reload()
    page.wait_for_load_state("networkidle")  # the header's to-do count has been fetched
    page.context.set_offline(True)
    page.goto(f"{live_server.url}/")
    expect(page.locator("header.site .brand")).to_have_text("GinLeague")
    expect(page.locator("#net-badge")).to_have_text("Offline")
    page.goto(f"{live_server.url}/waiting/")
    expect(page.locator("#waiting-list")).to_contain_text("Nothing is waiting")
    page.context.set_offline(False)


def test_a_scoresheet_the_worker_serves_is_downloaded_once_per_visit(page, live_server):
    """The worker keeps each page it serves (network first), so the page does not ask for a second
    copy to keep, and the waiting page, kept once in this tab, is not downloaded at every visit: a
    phone's data, and a server's requests, are not doubled."""
    from django.core.signals import request_started

    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)  # the worker is in control from here on
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)  # what the worker fetches in the background is not the page's network
    downloads: Counter[str] = Counter()

    def count(sender, environ=None, **kwargs):
        if environ and environ["REQUEST_METHOD"] == "GET":
            downloads[environ["PATH_INFO"]] += 1

    request_started.connect(count)
    try:
        for _ in range(2):
            page.reload()
            ready(page)
            page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)
    finally:
        request_started.disconnect(count)
    assert downloads[f"/games/{game.pk}/"] == 2, downloads  # once per visit, through the worker
    assert downloads["/waiting/"] == 0, downloads


def test_a_game_started_offline_is_sent_with_its_hands(page, live_server):
    UserFactory(username="ann")
    sign_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/new/")
    ready(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # seen through the worker, so kept
    ready(page)

    page.context.set_offline(True)
    page.get_by_label("First player", exact=True).fill("Cleo")
    page.get_by_label("Second player", exact=True).fill("Dan")
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#sheet h1")).to_have_text("Cleo v Dan")
    enter_hand(page, ending="Gin", by="Dan", defender=14)
    save_offline(page, 1)
    enter_hand(page, ending="Knock", by="Cleo", knocker=7, defender=9)
    save_offline(page, 2)
    expect(page.locator(".boards .line .pts")).to_have_text(["2", "39"])
    assert not Game.objects.exists()
    screenshot(page, "offline-new-game")

    page.context.set_offline(False)
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get()
    assert (game.player_one.name, game.player_two.name, game.first_dealer.name) == ("Cleo", "Dan", "Cleo")
    hands = list(game.hands.order_by("number"))
    assert [(h.ending, h.by.name, h.points) for h in hands] == [("gin", "Dan", 39), ("knock", "Cleo", 2)]
    expect(page.locator("table.hands tbody tr")).to_have_count(2)
    expect(page.locator("#net-badge")).to_have_text("Online")


# --- issue 29, item 8: a shared phone forgets the previous person -------------------------------------

SHARED_PHONE = {"width": 390, "height": 844}


def shared_phone(browser, problems: list[str]):
    """A phone-sized page in its own context; requests the test cuts off are not problems."""
    context = browser.new_context(viewport=SHARED_PHONE)
    context.set_default_timeout(20_000)
    page = context.new_page()
    watch_problems(page, problems)
    return context, page


def test_a_shared_phone_forgets_the_previous_person_when_they_sign_out(browser, live_server):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, created_by=user)
    problems: list[str] = []
    context, page = shared_phone(browser, problems)
    base = live_server.url

    # Ann scores on the club's phone: her sheet is kept for offline use.
    sign_in(page, base, "ann")
    open_sheet(page, base, game)
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/")
    expect(page.locator("header.site")).to_contain_text("Sign in")
    page.wait_for_load_state("networkidle")
    # Signed out, and signing out forgot Ann: the offline app is not even loaded (issue 40).
    expect(page.locator("script[type=module]")).to_have_count(0)

    # The next person picks the phone up with no network: nothing of Ann's is left on it.
    context.set_offline(True)
    page.goto(f"{base}/games/{game.pk}/")
    expect(page.locator("body")).to_contain_text("not opened on this phone")
    expect(page.locator("#sheet")).to_have_count(0)
    page.goto(f"{base}/")
    expect(page.locator("header.site")).to_contain_text("Sign in")
    expect(page.locator("header.site")).not_to_contain_text("Sign out")
    expect(page.locator("header.site .nav-todo")).to_have_count(0)
    kept = page.evaluate(
        "caches.has('ginleague-pages').then(async (has) => has && "
        "(await (await caches.open('ginleague-pages')).keys()).map(r => r.url))"
    )
    assert kept in (False, [f"{base}/"]), kept  # at most the signed-out start page, seen since

    # Ann again, with a hand the server has not taken when she signs out: she is asked first.
    context.set_offline(False)
    sign_in(page, base, "ann")
    open_sheet(page, base, game)
    context.set_offline(True)
    enter_hand(page, ending="Knock", by="Ann", knocker=5, defender=20)
    save_offline(page, 1)
    page.route("**/api/**", lambda route: route.abort())  # the network is back, the server does not answer
    context.set_offline(False)
    questions: list[str] = []
    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    with page.expect_event("dialog"):
        page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#net-badge")).to_contain_text("1 waiting")
    assert questions and "1 hand scored on this phone is waiting to be sent" in questions[0], questions
    expect(page.locator("header.site")).to_contain_text("Sign out")  # Cancel: still Ann, the hand still here

    page.once("dialog", lambda dialog: dialog.accept())  # OK: discard it and sign out
    with page.expect_navigation(url=f"{base}/"):
        page.get_by_role("button", name="Sign out").click()
    expect(page.locator("header.site")).to_contain_text("Sign in")
    page.unroute("**/api/**")
    page.goto(f"{base}/waiting/")
    expect(page.locator("#waiting-list")).to_contain_text("Nothing is waiting")
    assert not Hand.objects.filter(game=game).exists()
    context.close()
    assert not problems, problems


def test_a_hand_waiting_when_nobody_is_signed_in_asks_for_its_account_by_name(browser, live_server):
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, created_by=user)
    problems: list[str] = []
    context, page = shared_phone(browser, problems)
    base = live_server.url
    sign_in(page, base, "ann")
    open_sheet(page, base, game)
    context.set_offline(True)
    enter_hand(page, ending="Knock", by="Ann", knocker=5, defender=20)
    save_offline(page, 1)

    context.clear_cookies()  # meanwhile Ann's session ended (signed out elsewhere, or expired)
    context.set_offline(False)
    note = page.locator(".offline-note.status")
    expect(note).to_contain_text("Sign in as ann to send this hand")
    expect(page.locator("table.hands tbody tr.unsent")).to_contain_text("Sign in as ann to send this hand")
    expect(page.locator("#sheet")).not_to_contain_text("credentials")
    expect(page.locator(".conflict")).to_have_count(0)  # not refused: it waits for Ann
    page.goto(f"{base}/waiting/")
    expect(page.locator("#waiting-list")).to_contain_text("Sign in as ann to send this hand")
    assert not Hand.objects.filter(game=game).exists()

    sign_in(page, base, "ann")
    page.goto(f"{base}/games/{game.pk}/")
    expect(page.locator("#net-badge")).to_have_text("Online")
    expect(page.locator("table.hands tbody tr")).to_have_count(1)
    hand = Hand.objects.get(game=game)
    assert (hand.ending, hand.by_id, hand.knocker_deadwood, hand.defender_deadwood) == ("knock", ann.pk, 5, 20)
    context.close()
    assert not problems, problems

def test_an_offline_save_empties_the_preview_with_the_form_and_a_win_worth_0_shows_its_0(page, live_server):
    """Issue 29, item 11: the preview typed online no longer sits under the emptied form once the
    hand is kept on the phone; a tie undercut without a bonus (0 points) shows its 0 in the row."""
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann, player_two=bob, first_dealer=bob, created_by=user,
        rules={"preset": "standard", "undercut_bonus": 0},
    )
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    enter_hand(page, ending="Knock", by="Ann", knocker=6, defender=6)
    expect(page.locator("#preview")).to_contain_text("Bob")  # the live preview, while online

    page.context.set_offline(True)
    expect(page.locator("#net-badge")).to_have_text("Offline")
    save_offline(page, 1)
    expect(page.get_by_label("Knocker's deadwood")).to_have_value("")
    expect(page.locator("#preview")).to_have_text("")
    expect(page.locator("table.hands tbody tr.unsent td.pts")).to_have_text("0")

def test_a_long_sheet_redrawn_offline_keeps_showing_its_latest_hands(page, live_server):
    """The page shows a long sheet's latest 100 hands; a hand scored offline redraws the same window,
    its totals still counted from hand 1."""
    user = UserFactory(username="ann")
    knock = {"ending": "knock", "by": "Ann", "knocker_deadwood": 1, "defender_deadwood": 10}  # Ann 9
    record = {"players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": [knock, *[{"ending": "dead"}] * 149]}
    game = services.game_import(record=parse_record(record), created_by=user)
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    rows = page.locator("table.hands tbody tr")
    expect(rows).to_have_count(100)
    page.context.set_offline(True)
    enter_hand(page, ending="Dead hand")
    save_offline(page, 1)
    expect(rows).to_have_count(100)
    expect(rows.first.locator("td").first).to_have_text("52")
    expect(rows.first.locator("td.run")).to_have_text(["9", "0"])
    expect(rows.last.locator("td").first).to_have_text("151")
    page.context.set_offline(False)

def test_the_offline_scorer_is_fetched_only_once_the_page_has_loaded(page, live_server):
    """The offline scorer (static/js/engine.js, the largest script) is no part of a page's first
    load: the new-game page and the scoresheet are shown, and loaded, before it is asked for."""
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    sign_in(page, live_server.url, "ann")
    for path in ("/games/new/", f"/games/{game.pk}/"):
        page.goto(f"{live_server.url}{path}")
        ready(page)  # the scorer is loaded by now
        loaded, asked = page.evaluate(
            """() => [performance.getEntriesByType("navigation")[0].loadEventStart,
                      performance.getEntriesByType("resource").filter((e) => e.name.includes("/js/engine."))
                        .map((e) => e.startTime)]"""
        )
        assert asked, path
        assert min(asked) >= loaded, (path, asked, loaded)


def test_a_game_whose_time_was_called_ends_offline_as_on_the_server(page, live_server):
    """Issue 28: the offline sheet ends a timed game after the hand in progress, as the server does, even
    when a hand from before the call was undone on the phone (the call moves down with it)."""
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann, player_two=bob, first_dealer=bob, created_by=user,
        hands=[{"ending": "knock", "by": ann, "knocker_deadwood": 5, "defender_deadwood": 30}],
    )
    services.game_call_time(game=game)  # after hand 1
    sign_in(page, live_server.url, "ann")
    open_sheet(page, live_server.url, game)
    expect(page.locator(".time-called")).to_contain_text("hand 2 is the last")

    page.context.set_offline(True)
    expect(page.locator("#net-badge")).to_have_text("Offline")
    page.get_by_role("button", name="Undo hand 1").click()  # entered by mistake: time was called during hand 1
    expect(page.locator("table.hands tbody tr")).to_have_text(["No hands yet."])
    enter_hand(page, ending="Gin", by="Bob", defender=10)
    save_offline(page, 1)
    # Bob leads 35 to 0 after the hand in progress: 35 + 25 box + 100 timed game bonus + 100 shutout.
    expect(page.locator(".dealer.is-over")).to_contain_text("Bob wins by 260")
    expect(page.locator("table.breakdown")).to_contain_text("Game bonus (time called)")

    page.context.set_offline(False)
    expect(page.locator("#net-badge")).to_have_text("Online")
    expect(page.locator("table.hands tbody tr.unsent")).to_have_count(0)
    game.refresh_from_db()
    assert (game.over, game.winner_id, game.margin, game.time_called_after) == (True, bob.pk, 260, 0)
    assert game.scores.get().by_time
