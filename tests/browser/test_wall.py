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
import os
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


def club_night():
    """A public club, an open season for Pat and Quinn, and their game just started."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
    for username in ("pat", "quinn"):
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=UserFactory(username=username))
    pat, quinn = (clubs.player_of(type(director).objects.get(username=name)) for name in ("pat", "quinn"))
    # Pat signs in on a server that may be another process, with the production hashers: a real hash.
    pat.user.password = PBKDF2PasswordHasher().encode(PASSWORD, "wall-test-salt")
    pat.user.save(update_fields=["password"])
    season = league.season_create(
        club=club, name="Open Nights", players=[pat, quinn], format=SeasonFormat.OPEN, created_by=director
    )
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=pat.user)
    return director, club, season, game


def watch_wall_while_recording(new_page, recorder_base: str, wall_base: str, name: str) -> None:
    director, club, season, game = club_night()
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
    expect(wall.locator(f"li[data-game='{game.pk}'] .hands")).to_have_text("hand 1")
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
    watch_wall_while_recording(new_page, recorder_server, wall_server, "wall-two-processes")


def test_wall_without_javascript_is_a_plain_page_with_a_reload_link(new_page, asgi_server):
    _, club, season, game = club_night()
    page = new_page(viewport=LAPTOP, java_script_enabled=False)
    page.goto(f"{asgi_server}/clubs/{club.slug}/seasons/{season.pk}/wall/")
    expect(page.locator("#wall-status")).to_have_text("Not live: reload for the latest")
    page.get_by_role("link", name="Reload").click()
    expect(page.locator(f"li[data-game='{game.pk}']")).to_contain_text("pat v quinn")
