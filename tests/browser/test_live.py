"""Pages that follow changes: two phones on one scoresheet, a season page and a "Needs you" count,
and a private club's stream refused to an outsider. Served by uvicorn (the streams need ASGI)."""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect

from scoring import services
from scoring.models import Game
from tests.browser.conftest import Held, sign_in
from tests.browser.test_kitchen import enter_hand, save_hand
from tests.browser.test_wall import HOLDS, WITHIN, asgi_server, club_night  # noqa: F401 (asgi_server: a fixture)
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE_390 = {"width": 390, "height": 844}
# static/js/wall.js: how long "Live again" shows, and how long a live part's fetch is waited for (ms)
AGAIN, PART_WAIT = 5000, 10_000


def phone(new_page, base: str, username: str, path: str):
    page = new_page(viewport=PHONE_390)
    sign_in(page, base, username)
    page.goto(f"{base}{path}")
    page.evaluate("window.notReloaded = true")
    return page


def test_two_phones_on_one_scoresheet(new_page, asgi_server):  # noqa: F811
    _director, _club, _season, game = club_night()
    pat = phone(new_page, asgi_server, "pat", f"/games/{game.pk}/")
    quinn = phone(new_page, asgi_server, "quinn", f"/games/{game.pk}/")

    # Pat saves hand 1 (knock, 4 against 20: 16 to Pat): Quinn's phone shows it without a reload.
    enter_hand(pat, ending="Knock", by="pat", knocker=4, defender=20)
    save_hand(pat, 1)
    expect(quinn.locator(".board .line").first.locator(".pts")).to_have_text("16", timeout=WITHIN)
    expect(quinn.locator("table.hands tbody tr")).to_have_count(1)
    expect(quinn.locator("#record h2")).to_have_text("Hand 2")  # an untouched form moves on with the sheet

    # Quinn starts typing hand 2; meanwhile Pat records hand 2 (gin against 10: 35 more to Pat).
    enter_hand(quinn, ending="Knock", by="quinn", knocker=5)
    enter_hand(pat, ending="Gin", by="pat", defender=10)
    save_hand(pat, 2)
    expect(quinn.locator(".board .line").first.locator(".pts")).to_have_text("51", timeout=WITHIN)
    expect(quinn.locator("table.hands tbody tr")).to_have_count(2)
    # What Quinn typed is still there, and the phone says the number is taken before Save.
    expect(quinn.get_by_label("Knocker's deadwood")).to_have_value("5")
    expect(quinn.locator("#record input[name=ending][value=knock]")).to_be_checked()
    taken = quinn.locator("#record .hand-taken")
    expect(taken).to_contain_text("Hand 2 was recorded on another phone meanwhile.")
    taken.get_by_role("button", name="Record this as hand 3").click()
    expect(quinn.locator("#record h2")).to_have_text("Hand 3")
    quinn.get_by_label("Other player's deadwood").fill("30")
    save_hand(quinn, 3)  # saved as hand 3: no "behind" refusal
    expect(quinn.locator("table.hands tbody tr")).to_have_count(3)
    expect(pat.locator("table.hands tbody tr")).to_have_count(3, timeout=WITHIN)
    assert Game.objects.get(pk=game.pk).hand_count == 3
    assert quinn.evaluate("window.notReloaded") is True and pat.evaluate("window.notReloaded") is True
    for page in (pat, quinn):
        page.goto("about:blank")  # the browser ends its event stream before the server stops


def typed_and_previewed(page) -> None:
    """The half-typed hand's preview has come back: the test's own write (the other phone) then never meets the
    preview's read in pytest's in-memory SQLite database, whose table locks fail at once instead of waiting."""
    with page.expect_response(lambda answer: "/hands/preview/" in answer.url):
        page.get_by_label("Knocker's deadwood").press("Tab")
    expect(page.locator(".htmx-request")).to_have_count(0)


def test_a_hand_removed_on_the_other_phone_is_said_as_removed_on_the_half_typed_form(new_page, asgi_server):  # noqa: F811
    _director, _club, _season, game = club_night()
    pat_player = game.player_one
    for defender in (20, 25):
        services.hand_record(game=game, ending="knock", by=pat_player, knocker_deadwood=4, defender_deadwood=defender)
    quinn = phone(new_page, asgi_server, "quinn", f"/games/{game.pk}/")
    expect(quinn.locator("#record h2")).to_have_text("Hand 3")
    enter_hand(quinn, ending="Knock", by="quinn", knocker=5)
    typed_and_previewed(quinn)

    services.hand_remove_last(game=Game.objects.get(pk=game.pk), removed_by=pat_player.user)  # on Pat's phone
    expect(quinn.locator("table.hands tbody tr")).to_have_count(1, timeout=WITHIN)
    taken = quinn.locator("#record .hand-taken")
    expect(taken).to_contain_text("A hand was removed on another phone meanwhile.")
    expect(taken).not_to_contain_text("recorded")
    taken.get_by_role("button", name="Record this as hand 2").click()
    expect(quinn.locator("#record h2")).to_have_text("Hand 2")
    expect(quinn.get_by_label("Knocker's deadwood")).to_have_value("5")
    quinn.get_by_label("Other player's deadwood").fill("30")
    save_hand(quinn, 2)
    assert Game.objects.get(pk=game.pk).hand_count == 2
    assert quinn.evaluate("window.notReloaded") is True
    quinn.goto("about:blank")


def test_discard_what_i_typed_gives_the_sheet_as_the_server_has_it(new_page, asgi_server):  # noqa: F811
    _director, _club, _season, game = club_night()
    services.hand_record(game=game, ending="knock", by=game.player_one, knocker_deadwood=4, defender_deadwood=20)
    quinn = phone(new_page, asgi_server, "quinn", f"/games/{game.pk}/")
    enter_hand(quinn, ending="Knock", by="quinn", knocker=5)
    typed_and_previewed(quinn)
    services.hand_record(game=Game.objects.get(pk=game.pk), ending="gin", by=game.player_two, defender_deadwood=10)
    taken = quinn.locator("#record .hand-taken")
    expect(taken).to_contain_text("Hand 2 was recorded on another phone meanwhile.", timeout=WITHIN)
    taken.get_by_role("button", name="Discard what I typed").click()
    expect(quinn.locator("#record h2")).to_have_text("Hand 3", timeout=WITHIN)
    expect(quinn.get_by_label("Knocker's deadwood")).to_have_value("")
    expect(quinn.locator("#record .hand-taken")).to_have_count(0)
    assert quinn.evaluate("window.notReloaded") is True
    quinn.goto("about:blank")


@pytest.mark.parametrize("late", ["site.js", "wall.js"])
def test_a_hand_typed_before_the_pages_scripts_came_stays_when_the_other_phone_moves_the_sheet(
    new_page,
    asgi_server,  # noqa: F811
    late,
):
    """A slow phone: the player types the next hand before the page's own script (site.js) or its live script
    (wall.js, which comes after the load event) is there. The form still counts as being typed: the sheet redrawn
    for the other phone's hand keeps it and says its number was taken (it was cleared)."""
    _director, _club, _season, game = club_night()
    services.hand_record(game=game, ending="knock", by=game.player_one, knocker_deadwood=4, defender_deadwood=20)
    quinn = new_page(viewport=PHONE_390, service_workers="block")  # the scripts come from the server, held here
    sign_in(quinn, asgi_server, "quinn")
    script = Held(quinn, re.compile(rf"/static/js/{re.escape(late)}$"))
    # site.js comes before the page's DOMContentLoaded, wall.js after its load event: the page is typed in as it opens
    quinn.goto(f"{asgi_server}/games/{game.pk}/", wait_until="commit" if late == "site.js" else "load")
    enter_hand(quinn, ending="Knock", by="quinn", knocker=5)
    if late == "wall.js":
        typed_and_previewed(quinn)  # htmx is there; the preview's read is over before the write below
    held = script.asked()
    services.hand_record(game=Game.objects.get(pk=game.pk), ending="gin", by=game.player_two, defender_deadwood=10)
    held.continue_()
    expect(quinn.locator("table.hands tbody tr")).to_have_count(2, timeout=WITHIN)
    expect(quinn.locator("#record .hand-taken")).to_contain_text("Hand 2 was recorded on another phone meanwhile.")
    expect(quinn.get_by_label("Knocker's deadwood")).to_have_value("5")
    expect(quinn.locator("#record input[name=ending][value=knock]")).to_be_checked()
    quinn.goto("about:blank")


# Each EventSource the page opens, kept where the test can reach it (window.streams).
KEEP_STREAMS = """
(() => {
  const Original = window.EventSource;
  window.streams = [];
  window.EventSource = function (url, options) {
    const source = new Original(url, options);
    window.streams.push(source);
    return source;
  };
  window.EventSource.prototype = Original.prototype;
  Object.assign(window.EventSource, { CONNECTING: 0, OPEN: 1, CLOSED: 2 });
})();
"""


def test_word_of_an_earlier_change_coming_after_a_save_keeps_hand_saved_on_the_sheet(new_page, asgi_server):  # noqa: F811
    """The stream's word of a change made before the save (the organiser's, on a busy night) can reach the
    phone after the save's own answer: the sheet then already shows what the server has, and is not redrawn.
    Before, the redraw took away "Hand 1 saved" a moment after it showed (seen on a nine-player night)."""
    _director, _club, _season, game = club_night()
    quinn = new_page(viewport=PHONE_390)
    quinn.add_init_script(KEEP_STREAMS)
    sign_in(quinn, asgi_server, "quinn")
    quinn.goto(f"{asgi_server}/games/{game.pk}/")
    quinn.wait_for_function("() => window.streams.length && window.streams.at(-1).readyState === 1")
    before = quinn.locator("#sheet").get_attribute("data-version")
    enter_hand(quinn, ending="Knock", by="quinn", knocker=4, defender=20)
    save_hand(quinn, 1)
    saved = quinn.locator("#sheet").get_attribute("data-version")
    assert saved != before

    with quinn.expect_response(
        lambda answer: answer.url.endswith(f"/games/{game.pk}/") and answer.request.method == "GET"
    ):
        quinn.evaluate("v => window.streams.at(-1).dispatchEvent(new MessageEvent('game', {data: v}))", before)
    quinn.evaluate("() => new Promise(done => setTimeout(done, 200))")  # the answer is drawn, or not
    expect(quinn.locator(".notice")).to_contain_text("Hand 1 saved")
    expect(quinn.locator("#sheet")).to_have_attribute("data-version", saved)
    expect(quinn.locator("table.hands tbody tr")).to_have_count(1)
    quinn.goto("about:blank")


def test_a_scoresheet_says_quietly_when_it_is_not_live_and_when_it_is_live_again(new_page, asgi_server):  # noqa: F811
    _director, _club, _season, game = club_night()
    pat = new_page(viewport=PHONE_390)
    pat.clock.install()  # the page's timers run on time, and the test moves its clock on past the waits it knows
    sign_in(pat, asgi_server, "pat")
    # The page opens its stream once loaded. (A stream's entry in the page's resource timing comes only when
    # it ends: waiting for one here waited 10 s for nothing.)
    with pat.expect_response(lambda answer: "/live/" in answer.url and answer.ok):
        pat.goto(f"{asgi_server}/games/{game.pk}/")
    pat.evaluate("window.notReloaded = true")
    status = pat.locator("#live-status")
    expect(status).to_be_hidden()  # live: nothing to say

    # The stream goes down and stays down (every stream it opens ends at once, as behind a proxy whose
    # server is gone): the page says so.
    pat.route("**/live/**", lambda route: route.fulfill(status=200, content_type="text/event-stream", body=""))
    pat.evaluate("window.dispatchEvent(new Event('offline')); window.dispatchEvent(new Event('online'))")
    expect(status).to_have_text("Not live: reconnecting…", timeout=10_000)
    expect(status).to_be_visible()

    pat.unroute("**/live/**")  # the server is back: the page follows again and says so, then goes quiet
    expect(status).to_have_text("Live again", timeout=15_000)
    # And it is live: another phone's hand shows.
    services.hand_record(game=Game.objects.get(pk=game.pk), ending="gin", by=game.player_two, defender_deadwood=10)
    expect(pat.locator("table.hands tbody tr")).to_have_count(1, timeout=WITHIN)
    pat.clock.fast_forward(AGAIN)  # "Live again" shows this long
    expect(status).to_be_hidden()
    assert pat.evaluate("window.notReloaded") is True
    pat.goto("about:blank")


def test_a_season_page_and_a_to_do_count_follow_a_confirmation_in_another_context(new_page, asgi_server):  # noqa: F811
    _director, club, season, game = club_night()
    play(Game.objects.get(pk=game.pk), game.player_one)  # Pat wins: provisional, Quinn is to confirm it
    quinn = phone(new_page, asgi_server, "quinn", f"/clubs/{club.slug}/seasons/{season.pk}/")
    expect(quinn.locator(".nav-count")).to_have_text(re.compile(r"^\s*1$"))
    expect(quinn.locator("tr[data-player='pat'] td.won")).to_have_text("0")
    expect(quinn.locator("ul.provisional")).to_contain_text("awaiting confirmation")

    # The club's director confirms the result on their own device.
    director = phone(new_page, asgi_server, "director", f"/games/{game.pk}/")
    director.get_by_role("button", name="Confirm the result").click()
    expect(director.get_by_text("Result confirmed: it counts in the standings now.")).to_be_visible()

    expect(quinn.locator("tr[data-player='pat'] td.won")).to_have_text("1", timeout=WITHIN)
    expect(quinn.locator("#standings")).to_contain_text("None: every finished game is confirmed.")
    expect(quinn.locator(".nav-count")).to_have_count(0, timeout=WITHIN)  # nothing needs Quinn now
    assert quinn.evaluate("window.notReloaded") is True
    for page in (quinn, director):
        page.goto("about:blank")


def stream_opens(page, url: str) -> bool:
    """Whether an EventSource on ``url`` opened by ``page`` hears the stream's "ready"."""
    return page.evaluate(
        """url => new Promise(resolve => {
            const source = new EventSource(url);
            source.addEventListener("ready", () => { source.close(); resolve(true); });
            source.addEventListener("error", () => { source.close(); resolve(false); });
        })""",
        url,
    )


def test_a_private_clubs_scoresheet_stream_is_refused_to_an_outsider(new_page, asgi_server):  # noqa: F811
    _director, club, season, game = club_night()
    club.is_public = False
    club.save(update_fields=["is_public"])
    UserFactory(username="otto")
    otto = phone(new_page, asgi_server, "otto", "/")
    for query in (f"game={game.pk}", f"season={season.pk}", f"club={club.slug}"):
        assert otto.request.get(f"{asgi_server}/live/?{query}").status == 404
    assert otto.request.get(f"{asgi_server}/games/{game.pk}/").status == 404
    pat = phone(new_page, asgi_server, "pat", f"/games/{game.pk}/")  # a member's phone follows it
    assert stream_opens(pat, f"/live/?game={game.pk}") is True
    for page in (otto, pat):
        page.goto("about:blank")


def test_a_part_whose_answer_never_comes_is_asked_again(new_page, asgi_server):  # noqa: F811
    """No screen stays behind (#39), even when the server never answers one of its fetches: the scoresheet's
    first fetch after a change is held in the server far longer than a page waits (a request stuck in a busy
    server, a stalled connection); the page gives it up, asks again, and ends on the newest sheet, the second
    change included. Before, the unanswered fetch marked the page busy for good (every later look found it
    busy) and the phone stayed behind until the answer came."""
    user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=user), PlayerFactory(name="Bob")
    game = make_game(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    page = new_page(viewport=PHONE_390)
    page.clock.install()  # the page's timers run on time, and the test moves its clock on past its wait for an answer
    sign_in(page, asgi_server, "ann")
    page.goto(f"{asgi_server}/games/{game.pk}/")
    expect(page.locator("html[data-offline-ready='1']")).to_have_count(1)
    release, held = threading.Event(), threading.Event()

    def first_part_fetch_never_answered(scope):
        # A live part's fetch (static/js/wall.js asks for text/html alone; a page load, a worker's copy ask for more).
        if (
            scope["path"] == f"/games/{game.pk}/"
            and dict(scope["headers"]).get(b"accept") == b"text/html"
            and not held.is_set()
        ):
            held.set()
            release.wait(120)

    HOLDS.append(first_part_fetch_never_answered)
    try:
        services.hand_record(game=game.pk, ending="gin", by=ann.pk, defender_deadwood=10, recorded_by=user)
        services.hand_record(
            game=game.pk, ending="knock", by=bob.pk, knocker_deadwood=3, defender_deadwood=20, recorded_by=user
        )
        assert held.wait(30)  # the page did ask, and gets no answer
        page.clock.fast_forward(PART_WAIT)
        # Long before the held answer would come (it never does while the test runs).
        expect(page.locator("table.hands tbody tr td.pts")).to_have_count(2, timeout=40_000)
        expect(page.locator("#record h2")).to_have_text("Hand 3")
    finally:
        release.set()
        HOLDS.remove(first_part_fetch_never_answered)
        page.goto("about:blank")  # the browser ends its event stream before the server stops
