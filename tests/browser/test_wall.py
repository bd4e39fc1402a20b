"""The wall screen updates by itself: one browser records hands, another watches the wall.

The servers are real ASGI servers (uvicorn), because the wall's Server-Sent
Events stream needs one (pytest-django's live_server is WSGI):

* ``test_wall_follows_hands_saved_on_another_device``: one uvicorn in this
  process, serving both browsers;
* ``test_wall_follows_hands_saved_through_another_server_process``: two uvicorn
  processes on two ports against the same PostgreSQL test database; the hand
  is saved through one, the wall is served by the other, so only PostgreSQL's
  LISTEN/NOTIFY can carry the news.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from playwright.sync_api import expect

from players import clubs
from scoring.league import services as league
from scoring.models import Game, SeasonFormat
from tests.browser.conftest import LAPTOP, PASSWORD, login, screenshot
from tests.browser.test_kitchen import enter_hand, save_hand
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
WITHIN = 2000  # ms: the wall must show a saved hand this soon, without reloading
# Requests the in-process ASGI server holds back before answering (a test appends a function of the
# request's ASGI scope that waits when that request is the one it wants slow, e.g. a part's answer that
# does not come), so a test can put a page through a busy server's timing on purpose.
HOLDS: list = []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, seconds: float = 20.0, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listening on port {port} after {seconds}s")


@pytest.fixture
def asgi_server(transactional_db, _one_request_at_a_time_on_sqlite):
    """uvicorn serving the project's ASGI application (and its static files) from a thread of this process.

    On SQLite its requests are served one at a time, like the live server's (tests/browser/conftest.py)."""
    import uvicorn
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    from ginleague.asgi import OneThreadASGIHandler

    serving = _one_request_at_a_time_on_sqlite

    class Handler(OneThreadASGIHandler):
        def respond(self, scope, body_file):
            for hold in list(HOLDS):
                hold(scope)
            with serving or contextlib.nullcontext():
                return super().respond(scope, body_file)

    port = free_port()
    handler = Handler()
    config = uvicorn.Config(
        ASGIStaticFilesHandler(handler),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for_port(port)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    handler.close()  # its request threads' database connections go back to the pool this process shares


def _database_url() -> str:
    settings = connection.settings_dict
    auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgres://{auth}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"


@pytest.fixture
def two_server_processes(transactional_db):
    """Two uvicorn processes on two ports, both on this test's PostgreSQL database."""
    if connection.vendor == "sqlite":
        pytest.skip(
            "two server processes cannot share pytest's in-memory SQLite test database, and SQLite has no "
            "LISTEN/NOTIFY to test; the PostgreSQL run executes this test"
        )
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DEBUG": "true",  # whitenoise serves the static files from the apps' folders
        "CONN_MAX_AGE": "0",
        "DJANGO_SETTINGS_MODULE": "ginleague.settings",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    processes, urls = [], []
    for _ in range(2):
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "ginleague.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning", "--timeout-graceful-shutdown", "1"],
            cwd=ROOT,
            env=env,
        )  # fmt: skip
        processes.append(process)
        urls.append(f"http://127.0.0.1:{port}")
        wait_for_port(port, process=process)
    yield urls
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@functools.cache
def _production_hash() -> str:
    """Pat's password hashed the production way: about 0.7 s of CPU to make, and as much to check at a sign-in.
    The salt is fixed, so one worker makes it once."""
    return PBKDF2PasswordHasher().encode(PASSWORD, "wall-test-salt")


def club_night(*, production_hash: bool = False):
    """A public club, an open season for Pat and Quinn, and their game just started.

    ``production_hash``: Pat signs in on a server in another process, whose hashers are the production ones;
    the servers in this process also check the tests' fast hash."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
    for username in ("pat", "quinn"):
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=UserFactory(username=username))
    pat, quinn = (clubs.player_of(type(director).objects.get(username=name)) for name in ("pat", "quinn"))
    if production_hash:
        pat.user.password = _production_hash()
        pat.user.save(update_fields=["password"])
    season = league.season_create(
        club=club, name="Open Nights", players=[pat, quinn], format=SeasonFormat.OPEN, created_by=director
    )
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=pat.user)
    return director, club, season, game


def watch_wall_while_recording(
    new_page, recorder_base: str, wall_base: str, name: str, *, production_hash: bool = False
) -> None:
    director, club, season, game = club_night(production_hash=production_hash)
    wall = new_page(viewport=LAPTOP)
    wall.goto(f"{wall_base}/clubs/{club.slug}/seasons/{season.pk}/wall/")
    expect(wall.locator("#wall-status")).to_have_text("Live")
    wall.evaluate("window.wallNotReloaded = true")
    expect(wall.locator(f"li[data-game='{game.pk}'] .points")).to_have_text("0\u20130")

    pat = new_page()
    login(pat, recorder_base, "pat")
    pat.goto(f"{recorder_base}/games/{game.pk}/")

    # Hand 1: Pat knocks with 4 against 20: 16 to Pat. The wall shows it within two seconds.
    enter_hand(pat, ending="Knock", by="pat", knocker=4, defender=20)
    started = time.monotonic()
    save_hand(pat, 1)
    expect(wall.locator(f"li[data-game='{game.pk}'] .points")).to_have_text("16\u20130", timeout=WITHIN)
    expect(wall.locator(f"li[data-game='{game.pk}'] .hands")).to_have_text("1 hand played")
    assert time.monotonic() - started < 2 + 1.5  # the save itself took part of it (and its own check)

    # Hand 2: Quinn goes gin against 90: the game is over and moves to the latest results.
    enter_hand(pat, ending="Gin", by="quinn", defender=90)
    save_hand(pat, 2)
    expect(wall.locator(".wall-games.recent")).to_contain_text("quinn beat pat", timeout=WITHIN)
    expect(wall.locator(".wall-games.recent")).to_contain_text("provisional")
    expect(wall.locator(f".wall-playing li[data-game='{game.pk}']")).to_have_count(1)  # only in the results

    # Pat (another device: this test) confirms Quinn's win: the standings count it.
    league.game_confirm(game=Game.objects.get(pk=game.pk), confirmed_by=director)
    expect(wall.locator("tr[data-player='quinn'] td.won")).to_have_text("1", timeout=WITHIN)
    expect(wall.locator("table.wall-table tbody tr").first).to_have_attribute("data-player", "quinn")
    assert wall.evaluate("window.wallNotReloaded") is True
    screenshot(wall, name)
    wall.goto("about:blank")  # the browser ends its event stream before the servers stop


def test_a_page_that_asks_while_the_test_writes_through_the_services_gets_its_answer(asgi_server):
    """A wall screen asks for its board while another device's write is half done (here the test's own
    transaction, as a game confirmed through the services): it gets the board, never a 503 from tables the
    write had locked (SQLite's test database, where the answer waits for the write); then the board shows it."""
    import urllib.error
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    from django.db import transaction

    from scoring import services

    _director, club, season, game = club_night()
    board = f"{asgi_server}/clubs/{club.slug}/seasons/{season.pk}/wall/board/"

    def ask() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(board, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, ""

    with ThreadPoolExecutor(1) as wall:
        with transaction.atomic():  # Pat knocks with 4 against 20, and the hand's tables are the write's
            services.hand_record(game=game, ending="knock", by=game.player_one, knocker_deadwood=4,
                                 defender_deadwood=20, recorded_by=None)  # fmt: skip
            asked = wall.submit(ask)
            time.sleep(0.5)  # the request reaches the server while the write is open
        status, text = asked.result()
    assert status == 200 and "pat v quinn" in text  # the board, from before the write (PostgreSQL) or after it
    status, text = ask()
    assert status == 200 and "16&ndash;0" in text and "1 hand played" in text


def test_the_in_process_server_answers_requests_that_arrive_together(asgi_server):
    """Phones and a wall screen reach the server at once: every answer is the application's own, never
    a 503 from a test database that refused two threads at once."""
    import json
    import urllib.error
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    from players.tokens import token_create

    _director, club, season, game = club_night()
    token = token_create(user=game.player_one.user).key

    def send(number: int) -> int:
        if number % 2:  # the wall's board, read while hands are written
            request = urllib.request.Request(f"{asgi_server}/clubs/{club.slug}/seasons/{season.pk}/wall/board/")
        else:
            body = {"ending": "knock", "by": game.player_one_id, "knocker_deadwood": 8, "defender_deadwood": 10}
            request = urllib.request.Request(
                f"{asgi_server}/api/games/{game.pk}/hands/",
                data=json.dumps(body).encode(),
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
            )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    with ThreadPoolExecutor(8) as phones:
        statuses = list(phones.map(send, range(48)))
    assert statuses == [201, 200] * 24, statuses  # every hand saved (2 points each: the game goes on)
    assert Game.objects.get(pk=game.pk).hand_count == 24


def test_wall_follows_hands_saved_on_another_device(new_page, asgi_server):
    watch_wall_while_recording(new_page, asgi_server, asgi_server, "wall-one-server")


def test_wall_follows_hands_saved_through_another_server_process(new_page, two_server_processes):
    recorder_server, wall_server = two_server_processes
    watch_wall_while_recording(new_page, recorder_server, wall_server, "wall-two-processes", production_hash=True)


def test_wall_without_javascript_is_a_plain_page_with_a_reload_link(new_page, asgi_server):
    _, club, season, game = club_night()
    page = new_page(viewport=LAPTOP, java_script_enabled=False)
    page.goto(f"{asgi_server}/clubs/{club.slug}/seasons/{season.pk}/wall/")
    expect(page.locator("#wall-status")).to_have_text("Not live: reload for the latest")
    page.get_by_role("link", name="Reload").click()
    expect(page.locator(f"li[data-game='{game.pk}']")).to_contain_text("pat v quinn")


# --- a wall that fits its screen (issue 39) -------------------------------------------------------------------

SCREENS = {
    "1920x1080": {"width": 1920, "height": 1080},
    "1280x720": {"width": 1280, "height": 720},  # a projector
    "1080x1920": {"width": 1080, "height": 1920},  # a TV on its side
}
WALL_PAGE_SECONDS = 12  # PAGE_SECONDS in static/js/wall-fit.js


def twenty_player_season(more: int = 0):
    """A public club's open season of 20 players (and ``more``): 8 games over (5 confirmed), 10 in play."""
    from scoring import services

    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
    players = [
        clubs.member_add_guest(club=club, name=name, added_by=director).player
        for name in (
            "Annabelle Fairweather", "Bob", "Cyrille Montgomery", "Di", "Ed", "Fatima Okonkwo", "Gus", "Hana",
            "Ivo", "Jo", "Kiri", "Lou", "Maximilian Oberhauser", "Ned", "Oona", "Pat", "Quinn", "Rosalind",
            "Sam", "Tove", *(f"Member {number}" for number in range(21, 21 + more)),
        )
    ]  # fmt: skip
    season = league.season_create(
        club=club, name="Winter League", players=players, format=SeasonFormat.OPEN, created_by=director
    )
    for number in range(8):  # finished: gin against 90 ends a game to 100 at once
        one, two = players[number], players[19 - number]
        game = league.open_game_start(season=season, player_one=one, player_two=two, started_by=director)
        services.hand_record(game=game, ending="gin", by=two if number % 3 else one, defender_deadwood=90,
                             recorded_by=director)  # fmt: skip
        if number < 5:
            league.game_confirm(game=Game.objects.get(pk=game.pk), confirmed_by=director)
    for number in range(10):  # in play: 1 to 10 hands each
        one, two = players[number], players[(number + 10) % 20]
        game = league.open_game_start(season=season, player_one=one, player_two=two, started_by=director)
        for _hand in range(number + 1):
            services.hand_record(game=game, ending="knock", by=one, knocker_deadwood=8, defender_deadwood=10,
                                 recorded_by=director)  # fmt: skip
    return club, season


def _every_row_seen(page) -> set[str]:
    """The standings rows (by player) and the games (in play, over) seen wholly within the viewport, now."""
    return set(
        page.evaluate(
            """() => {
              const height = window.innerHeight, width = window.innerWidth;
              const inside = (element) => {
                const box = element.getBoundingClientRect();
                const style = getComputedStyle(element);
                return box.height > 0 && style.visibility !== "hidden" && box.top >= 0 && box.bottom <= height + 0.5
                  && box.left >= 0 && box.right <= width + 0.5;
              };
              const seen = [];
              document.querySelectorAll("table.wall-table tbody tr[data-player]").forEach((row) => {
                if (inside(row)) seen.push("row:" + row.getAttribute("data-player"));
              });
              document.querySelectorAll(".wall-tables li[data-table]").forEach((item) => {
                if (inside(item)) seen.push("table:" + item.dataset.table);
              });
              document.querySelectorAll(".wall-playing li[data-game]").forEach((item) => {
                if (inside(item)) seen.push((item.closest(".recent") ? "result:" : "playing:") + item.dataset.game);
              });
              return seen;
            }"""
        )
    )


def _what_the_wall_holds(page) -> set[str]:
    rows = page.locator("table.wall-table tbody tr[data-player]").evaluate_all(
        "rows => rows.map(row => row.dataset.player)"
    )
    games = page.locator(".wall-playing li[data-game]").evaluate_all(
        "items => items.map(item => (item.closest('.recent') ? 'result:' : 'playing:') + item.dataset.game)"
    )
    tables = page.locator(".wall-tables li[data-table]").evaluate_all("items => items.map(item => item.dataset.table)")
    return {f"row:{row}" for row in rows} | set(games) | {f"table:{table}" for table in tables}


def _wall_opened(page, url: str) -> None:
    """The wall at ``url`` with the page's clock in the test's hands (Playwright's clock: time still runs,
    and ``_next_page`` moves it on by a page's time), so a paging wall is not waited for in real time."""
    page.clock.install()
    page.goto(url)


def _next_page(page) -> None:
    """The time a wall shows a page for (PAGE_SECONDS in static/js/wall-fit.js) passes at once."""
    page.clock.fast_forward(WALL_PAGE_SECONDS * 1000)


def _seen_on_every_page(page) -> tuple[set[str], int]:
    """What the wall showed on the screen, through each of its pages (if it pages), and how many pages."""
    expect(page.locator("body.wall")).to_have_attribute("data-fitted", re.compile("."))
    seen = _every_row_seen(page)
    pages = int(page.locator("body.wall").get_attribute("data-pages") or 1)
    for _turn in range(pages - 1):  # each page comes round by itself
        current = page.locator("body.wall").get_attribute("data-page")
        _next_page(page)
        expect(page.locator("body.wall")).not_to_have_attribute("data-page", current)
        seen |= _every_row_seen(page)
    return seen, pages


@pytest.mark.parametrize("screen", SCREENS)
def test_a_twenty_player_wall_fits_its_screen(new_page, asgi_server, screen):
    """Every standings row, every game in play and every latest result is on the screen (or, where the type
    would grow too small to read across a room, comes round on the screen's own pages), at three sizes."""
    club, season = twenty_player_season()
    page = new_page(viewport=SCREENS[screen])
    _wall_opened(page, f"{asgi_server}/clubs/{club.slug}/seasons/{season.pk}/wall/")
    expect(page.locator("#wall-status")).to_have_text("Live")
    expect(page.locator("table.wall-table tbody tr[data-player]")).to_have_count(20)
    expect(page.locator(".wall-playing li[data-game]")).to_have_count(18)
    wanted = _what_the_wall_holds(page)
    seen, pages = _seen_on_every_page(page)
    assert wanted - seen == set(), f"never on the screen at {screen}: {sorted(wanted - seen)}"
    assert pages == 1, f"20 players paged at {screen}: the type could have been smaller"
    # Readable from across the room: the standings' type is at least 1/60 of the screen's shorter side.
    size = page.locator("table.wall-table tbody td.net").first.evaluate(
        "cell => parseFloat(getComputedStyle(cell).fontSize)"
    )
    assert size >= min(SCREENS[screen].values()) / 60, size

    # In play: how many hands were played, not the number of the hand in play.
    expect(page.locator(".wall-playing li[data-game] .hands").first).to_have_text(re.compile(r"^\d+ hands? played$"))
    screenshot(page, f"wall-20-players-{screen}", full_page=False)
    page.goto("about:blank")


@pytest.mark.parametrize("screen", SCREENS)
def test_a_twenty_player_swiss_nights_wall_fits_its_screen_with_the_rounds_tables(new_page, asgi_server, screen):
    """A Swiss night of 20 (long names): the round's 10 tables and its clock on the screen, and every standings
    row on it or on the page that comes round (the tables take room: at 1920x1080 and 1280x720 the standings
    page)."""
    from scoring.league import night

    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
    tonight = league.season_create(
        club=club, name="Friday night", players=[], format=SeasonFormat.SWISS, round_minutes=30, created_by=director
    )
    for number in range(1, 21):
        player = clubs.member_add_guest(club=club, name=f"Member {number:02} Fairweather", added_by=director).player
        night.check_in(season=tonight, player=player, checked_in_by=director)
    night.round_pair(season=tonight, paired_by=director)
    night.round_publish(season=tonight, published_by=director)
    page = new_page(viewport=SCREENS[screen])
    _wall_opened(page, f"{asgi_server}/clubs/{club.slug}/seasons/{tonight.pk}/wall/")
    expect(page.locator(".wall-tables li[data-table]")).to_have_count(10)
    wanted = _what_the_wall_holds(page)
    seen, _pages = _seen_on_every_page(page)
    assert wanted - seen == set(), f"never on the screen at {screen}: {sorted(wanted - seen)}"
    expect(page.locator(".wall-round .round-clock")).to_be_in_viewport()
    screenshot(page, f"wall-swiss-night-20-players-{screen}", full_page=False)
    page.goto("about:blank")


def test_a_wall_too_long_for_its_screen_pages_through_the_standings(new_page, asgi_server):
    """40 players, every row asked for (?rows=all), on a projector: the type stays readable and the
    standings come round a screenful at a time, saying which page is shown."""
    club, season = twenty_player_season(more=20)
    page = new_page(viewport=SCREENS["1280x720"])
    _wall_opened(page, f"{asgi_server}/clubs/{club.slug}/seasons/{season.pk}/wall/?rows=all")
    expect(page.locator("table.wall-table tbody tr[data-player]")).to_have_count(40)
    wanted = _what_the_wall_holds(page)
    seen, pages = _seen_on_every_page(page)
    assert pages >= 2
    assert wanted - seen == set(), f"never on the screen: {sorted(wanted - seen)}"
    _next_page(page)
    expect(page.locator("#wall-page")).to_contain_text(f"Page 1 of {pages}")  # round again
    screenshot(page, "wall-40-players-1280x720-paged", full_page=False)
    page.goto("about:blank")
