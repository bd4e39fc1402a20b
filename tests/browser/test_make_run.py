"""`make run` serves live wall screens from the first command.

The server is started exactly the way the README says, through the Makefile's
own ``run`` target (``-o .venv/.installed`` only skips re-installing the
packages this test already runs with), on a free port and a fresh SQLite file
named by DATABASE_URL: it migrates, then serves. A wall screen opened on it
must show a hand saved from another page within two seconds, without reloading.
Its static files are sent compressed to a browser that accepts it (a phone's first load
is a third of the size, smaller still in brotli), under names the pages and the service worker both know.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import brotli
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LAPTOP, PASSWORD, login, screenshot
from tests.browser.test_kitchen import enter_hand, save_hand
from tests.browser.test_wall import ROOT, WITHIN, free_port, wait_for_port

pytestmark = pytest.mark.browser

# Run in the server's own database (the same DATABASE_URL): a club, an open season, a game started.
SEED = """
import json
from players import clubs
from scoring.league import services as league
from scoring.models import SeasonFormat
from tests.factories import UserFactory
director = UserFactory(username="director")
club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
players = []
for username in ("pat", "quinn"):
    invitation = clubs.invitation_create(club=club, created_by=director)
    user = UserFactory(username=username)
    clubs.invitation_accept(invitation=invitation, user=user)
    players.append(clubs.player_of(user))
season = league.season_create(
    club=club, name="Open Nights", players=players, format=SeasonFormat.OPEN, created_by=director
)
game = league.open_game_start(season=season, player_one=players[0], player_two=players[1], started_by=players[0].user)
print(json.dumps({"club": club.slug, "season": season.pk, "game": game.pk}))
"""


@pytest.fixture(scope="session")
def make_run(tmp_path_factory, worker_id):
    """`make run` on a free port with a fresh SQLite database; yields (base url, environment).

    One server for the whole run: starting it (migrating, collecting the static files) is the slow part,
    and each xdist worker that ran one of this module's tests used to start its own. The first worker to
    need it starts it and writes where it is in the run's shared temporary folder; a worker that needs it
    later uses that one (each test seeds rows of its own names). Each worker checks the server's output
    for tracebacks and 500s when its session ends, and the last worker using it stops it. Its static files
    are collected into a folder of its own, not the checkout's staticfiles/."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker_id != "master" else base  # xdist: each worker's folder is in the run's
    record = shared / "make-run.json"
    with _locked(shared / "make-run.lock"):
        # A fresh folder for each server started: a second one (the first stopped when no worker was using
        # it) must not find the first one's seeded database.
        server = json.loads(record.read_text()) if record.exists() else _make_run_started(shared)
        server["users"] = server.get("users", 0) + 1
        record.write_text(json.dumps(server))
    try:
        yield server["url"], server["env"]
    finally:
        with _locked(shared / "make-run.lock"):
            server = json.loads(record.read_text())
            server["users"] -= 1
            if server["users"]:
                record.write_text(json.dumps(server))
            else:
                record.unlink()
                _make_run_stopped(server)
        output = Path(server["log"]).read_text()
        assert "Traceback" not in output, output
        assert " 500 " not in output, output


@contextlib.contextmanager
def _locked(path: Path):
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _make_run_started(shared: Path) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="make-run-", dir=shared))
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DJANGO_ALLOW_ASYNC_UNSAFE", "MAKEFLAGS")}
    env["DATABASE_URL"] = f"sqlite:///{folder / 'db.sqlite3'}"
    env["STATIC_ROOT"] = str(folder / "static")
    log = folder / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            ["make", "--no-print-directory", "-o", ".venv/.installed", "run", "HOST=127.0.0.1", f"PORT={port}"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # make, its shell and uvicorn: one process group to stop, from any worker
        )
    try:
        wait_for_port(port, seconds=120, process=server)  # migrating a fresh database comes first
    except BaseException:
        _make_run_stopped({"port": port, "group": server.pid})
        raise
    return {"url": f"http://127.0.0.1:{port}", "env": env, "port": port, "group": server.pid, "log": str(log)}


def _make_run_stopped(server: dict) -> None:
    """The server's process group stopped, by whichever worker (the one that started it may be gone, so it
    is not waited for: its port closing is the sign)."""
    for sig, seconds in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(server["group"], sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", server["port"]), timeout=0.2).close()
            except OSError:
                return
            time.sleep(0.1)


def fetch(url: str, **headers) -> tuple[int, Message, bytes]:
    """One GET with these headers (urllib adds no Accept-Encoding of its own); the answer's headers by any case."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_make_run_serves_a_wall_screen_that_follows_the_table(new_page, make_run):
    base, env = make_run
    seeded = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "manage.py", "shell", "-c", SEED],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    ids = json.loads(seeded.stdout.strip().splitlines()[-1])

    wall = new_page(viewport=LAPTOP)
    wall.goto(f"{base}/clubs/{ids['club']}/seasons/{ids['season']}/wall/")
    expect(wall.locator("#wall-status")).to_have_text("Live")  # the stream's script (a static file) is running
    wall.evaluate("window.wallNotReloaded = true")
    board = wall.locator(f"li[data-game='{ids['game']}'] .points")
    expect(board).to_have_text("0\u20130")

    pat = new_page()
    login(pat, base, "pat")
    pat.goto(f"{base}/games/{ids['game']}/")
    enter_hand(pat, ending="Knock", by="pat", knocker=4, defender=20)
    started = time.monotonic()
    save_hand(pat, 1)
    expect(board).to_have_text("16\u20130", timeout=WITHIN)
    assert time.monotonic() - started < 2 + 1.5  # the save itself took part of it (and its own check)
    assert wall.evaluate("window.wallNotReloaded") is True
    screenshot(wall, "make-run-wall")
    wall.goto("about:blank")  # the browser ends its event stream before the server stops


def test_make_run_sends_the_static_files_compressed_to_a_browser_that_accepts_it(make_run):
    base, _env = make_run
    status, _headers, body = fetch(f"{base}/login/")
    assert status == 200
    page = body.decode()
    scripts = re.findall(r'<script(?: type="module")? src="([^"]+)"', page)
    styles = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page)
    assert any("site" in src for src in scripts), scripts
    # The sign-in page loads neither htmx nor the offline app (issue 40). The waiting page names the offline
    # app's entry point, an ES module its site script loads after the load event; htmx comes with signed-in
    # pages, and is in the service worker's shell (checked below).
    status, _headers, waiting = fetch(f"{base}/waiting/")
    assert status == 200
    waiting = waiting.decode()
    offline_app = re.search(r'data-offline-app="([^"]+)"', waiting).group(1)
    assert re.search(r"/js/offline/main\.[0-9a-f]{12}\.js$", offline_app), offline_app
    status, _headers, worker = fetch(f"{base}/sw.js")
    assert status == 200
    shell = json.loads(worker.decode().split("\n", 1)[0].removeprefix("self.GINLEAGUE = ").rstrip(";"))["shell"]
    htmx = [url for url in shell if "htmx" in url]
    assert htmx, shell
    # Brotli to a browser that accepts it (every browser does), else gzip, else the file as it is; the
    # language's catalog, a page of Django's, goes gzipped (GZipMiddleware) to both.
    for url in scripts + styles + [offline_app, *htmx]:
        status, headers, plain = fetch(base + url)
        assert status == 200 and "Content-Encoding" not in headers, (url, dict(headers))
        status, headers, gzipped = fetch(base + url, **{"Accept-Encoding": "gzip, deflate"})
        assert status == 200 and headers.get("Content-Encoding") == "gzip", (url, dict(headers))
        assert gzip.decompress(gzipped) == plain
        assert len(gzipped) < len(plain) / 2, url
        status, headers, squeezed = fetch(base + url, **{"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200, url
        if url.startswith("/static/"):
            assert headers.get("Content-Encoding") == "br", (url, dict(headers))
            assert brotli.decompress(squeezed) == plain
            assert len(squeezed) < len(gzipped), url
        else:  # the catalog
            assert headers.get("Content-Encoding") == "gzip", (url, dict(headers))

    # The offline scorer the page loads later and everything the service worker keeps are there too,
    # under the names the page asks for (hashed: a browser keeps them for good).
    engine = re.search(r'data-engine="([^"]+)"', waiting).group(1)
    assert re.search(r"/js/engine\.[0-9a-f]{12}\.js$", engine), engine
    assert engine in shell and offline_app in shell and set(scripts) <= set(shell), shell
    for url in shell:
        assert fetch(base + url)[0] == 200, url


# A friendly game of the server's own database, for the offline test below (names apart from SEED's).
SHEET_SEED = """
import json
from tests.factories import PlayerFactory, UserFactory, make_game
user = UserFactory(username="olga")
olga, pete = PlayerFactory(name="Olga", user=user), PlayerFactory(name="Pete")
game = make_game(player_one=olga, player_two=pete, first_dealer=pete, created_by=user)
print(json.dumps({"game": game.pk}))
"""


def test_under_make_run_a_scoresheet_seen_once_scores_offline(new_page, make_run):
    """The service worker keeps the collected files under their hashed names: the sheet opens and
    scores with no network, from what the first (online) visit kept."""
    base, env = make_run
    seeded = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "manage.py", "shell", "-c", SHEET_SEED],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    game = json.loads(seeded.stdout.strip().splitlines()[-1])["game"]

    phone = new_page()
    # Signed in without opening a page: the sheet is the first page, fetched before the worker is in
    # control, so offline its files can only come from what the worker keeps on install (its shell).
    form = phone.request.get(f"{base}/login/").text()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    signed_in = phone.request.post(
        f"{base}/login/",
        form={"csrfmiddlewaretoken": token, "username": "olga", "password": PASSWORD},
        headers={"Referer": f"{base}/login/"},
        max_redirects=0,
    )
    assert signed_in.status == 302, signed_in.text()
    phone.goto(f"{base}/games/{game}/")
    expect(phone.locator("html[data-offline-ready='1']")).to_have_count(1)
    phone.evaluate("navigator.serviceWorker.ready.then(() => true)")  # installed: its shell is kept
    kept = phone.evaluate(  # the worker keeps the sheet itself when the page asks (static/js/offline/): let it finish
        """async (url) => {
            for (let tries = 0; tries < 400; tries++) {
                if (await caches.match(url)) { return true; }
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            return false;
        }""",
        f"/games/{game}/",
    )
    assert kept
    # Online, the worker hands the page its copy of a hashed file and does not fetch it again (it cannot
    # change; fetching it, then writing it to the cache again, at every page only cost the phone time). Its
    # copy of the stylesheet is marked: a fetch behind it would overwrite the mark.
    stylesheet = phone.evaluate(
        """async () => {
            const url = document.querySelector('link[rel=stylesheet]').href;
            const shell = (await caches.keys()).find((name) => name.startsWith('ginleague-shell-'));
            const cache = await caches.open(shell);
            const copy = await (await cache.match(url)).text();
            await cache.put(url, new Response(copy + '\\n/* marked */', {headers: {'Content-Type': 'text/css'}}));
            return url;
        }"""
    )
    phone.reload()
    expect(phone.locator("html[data-offline-ready='1']")).to_have_count(1)
    phone.wait_for_load_state("networkidle")
    kept_copy = phone.evaluate("async (url) => (await caches.match(url)).text()", stylesheet)
    assert kept_copy.endswith("/* marked */")
    # Only the worker's copies from here on: the browser's own cache would keep hashed files for good.
    devtools = phone.context.new_cdp_session(phone)
    devtools.send("Network.clearBrowserCache")
    devtools.detach()
    phone.context.set_offline(True)
    phone.reload()
    expect(phone.locator("#net-badge")).to_have_text("Offline")
    enter_hand(phone, ending="Knock", by="Olga", knocker=4, defender=20)
    phone.get_by_role("button", name="Save hand").click()
    expect(phone.locator("table.hands tbody tr.unsent")).to_have_count(1)
    expect(phone.locator(".boards .line .pts").first).to_have_text("16")
    phone.context.set_offline(False)
    expect(phone.locator("table.hands tbody tr.unsent")).to_have_count(0)  # sent and stored once back online
