"""Benchmark: a phone's first load of the scoresheet, the sign-in page and a season page (issue 27).

    .venv/bin/python bench/bench_first_load.py [--runs 3] [--verbose]

Starts the server exactly as `make run` does (the Makefile's own `run` target, on a free port, a
throwaway SQLite database and static folder), then opens each page in headless Chromium at 390x844
with nothing cached (a fresh browser context; signed in through another one) and prints, per page:
- KiB over the wire (headers and bodies, as sent: compressed when the server compresses) that the
  page fetched by its load event: what it takes to show the page and use it;
- KiB fetched after that until everything is settled (network idle and, where it runs, the offline
  app ready: game facts kept, offline scorer loaded), by the page (the to-do count, the game's facts,
  the offline scorer) or by its service worker's first install (the app shell with the offline
  scorer, and copies of the pages kept for offline use), and the total. Which of the two fetches the
  offline scorer depends on which asks first; it is downloaded once either way;
- ms to first paint and first contentful paint (the browser's paint timing), to the load event, and
  (where the page loads it) to the request for the offline scorer (static/js/engine.js).
Target (issue 27): at most 60 KB over the wire for the first load, and a first paint that does not
wait for the offline scorer (loaded after the page is usable). Figures, not pass/fail; medians over
--runs fresh contexts.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
CHROMIUM = next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(path).exists()),
    "/usr/bin/chromium",
)
VIEWPORT = {"width": 390, "height": 844}
PASSWORD = "a-long-bench-password"

# Run in the server's own database: a public club, an open season, a game with a few hands.
SETUP = f"""
import json
from django.contrib.auth import get_user_model
from players import clubs
from scoring import services
from scoring.league import services as league
from scoring.models import SeasonFormat
User = get_user_model()
director = User.objects.create_user("director", password={PASSWORD!r})
club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
players = []
for username in ("pat", "quinn", "robin", "sam"):
    invitation = clubs.invitation_create(club=club, created_by=director)
    user = User.objects.create_user(username, password={PASSWORD!r})
    clubs.invitation_accept(invitation=invitation, user=user)
    players.append(clubs.player_of(user))
season = league.season_create(
    club=club, name="Open Nights", players=players, format=SeasonFormat.OPEN, created_by=director
)
pat, quinn = players[0], players[1]
game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=pat.user)
for n in range(6):
    services.hand_record(game=game, ending="knock", by=(pat if n % 2 else quinn).pk,
                         knocker_deadwood=3, defender_deadwood=12 + n, recorded_by=pat.user)
print(json.dumps({{"club": club.slug, "season": season.pk, "game": game.pk}}))
"""

# Everything measured once the page is settled: the browser's own paint and navigation timings.
TIMINGS = """() => {
    const paint = Object.fromEntries(performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
    const nav = performance.getEntriesByType("navigation")[0];
    const engine = performance.getEntriesByType("resource").find((e) => e.name.includes("/js/engine."));
    return {fp: paint["first-paint"], fcp: paint["first-contentful-paint"], load: nav.loadEventEnd,
            engine: engine ? engine.startTime : null};
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, server: subprocess.Popen, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"make run ended with {server.returncode}")
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"make run did not answer {url} within {seconds} s")


def measure(browser, url: str, state: dict | None, verbose: bool) -> dict:
    """One first load of ``url`` in a fresh context (``state``: the signed-in cookies)."""
    context = browser.new_context(viewport=VIEWPORT, storage_state=state, service_workers="allow")
    context.set_default_timeout(60_000)
    page = context.new_page()
    client = context.new_cdp_session(page)
    client.send("Network.enable")
    page_bytes: list[int] = []
    client.on("Network.loadingFinished", lambda event: page_bytes.append(event["encodedDataLength"]))
    if verbose:
        urls: dict[str, str] = {}
        client.on("Network.requestWillBeSent", lambda event: urls.update({event["requestId"]: event["request"]["url"]}))
        client.on(
            "Network.loadingFinished",
            lambda event: print("  page", urls.get(event["requestId"]), event["encodedDataLength"]),
        )
    worker_requests: list = []
    context.on("requestfinished", lambda request: request.service_worker and worker_requests.append(request))
    page.goto(url, wait_until="load")
    by_load = sum(page_bytes)
    page.wait_for_load_state("networkidle")
    if page.locator("script[type=module]").count():  # the offline app, loaded by site.js where it has a use
        page.locator("html[data-offline-ready='1']").wait_for(state="attached")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.wait_for_load_state("networkidle")
    timings = page.evaluate(TIMINGS)
    worker_bytes = 0
    for request in worker_requests:
        sizes = request.sizes()
        worker_bytes += sizes["responseHeadersSize"] + sizes["responseBodySize"]
        if verbose:  # a negative body size: the browser's cached copy (its headers were counted, not sent)
            print("  worker", request.url, sizes["responseHeadersSize"] + sizes["responseBodySize"])
    context.close()
    after = sum(page_bytes) - by_load + worker_bytes
    return {"by_load": by_load, "after": after, "total": by_load + after, **timings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--verbose", action="store_true", help="print each response and its bytes")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="bench-first-load-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    env |= {
        "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "STATIC_ROOT": str(work / "static"),
        "SECRET_KEY": "bench-first-load-not-secret",
    }
    log = (work / "server.log").open("w")
    started = time.perf_counter()
    server = subprocess.Popen(
        # -o: the packages are installed already (this script runs with them): make does not reinstall.
        ["make", "--no-print-directory", "-o", ".venv/.installed", "run", "HOST=127.0.0.1", f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(f"{base}/login/", server)
        print(f"make run answered after {time.perf_counter() - started:.1f} s (migrate, then serve)")
        seeded = subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", SETUP], cwd=ROOT, env=env, check=True, capture_output=True, text=True
        )
        ids = json.loads(seeded.stdout.strip().splitlines()[-1])
        pages = {
            "scoresheet": f"{base}/games/{ids['game']}/",
            "sign-in": f"{base}/login/",
            "season page": f"{base}/clubs/{ids['club']}/seasons/{ids['season']}/",
        }
        figures: dict[str, list[dict]] = {name: [] for name in pages}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            signing = browser.new_context(viewport=VIEWPORT)
            page = signing.new_page()
            page.goto(f"{base}/login/")
            page.get_by_label("Username").fill("pat")
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(lambda url: "/login/" not in url)
            signed_in = {"cookies": signing.cookies(), "origins": []}
            signing.close()
            for _ in range(args.runs):
                for name, url in pages.items():
                    figures[name].append(measure(browser, url, None if name == "sign-in" else signed_in, args.verbose))
            browser.close()

        def median(name: str, key: str) -> float:
            return statistics.median(run[key] or 0 for run in figures[name])

        print(f"first load under `make run`, Chromium {VIEWPORT['width']}x{VIEWPORT['height']}, nothing cached")
        print("              KiB over the wire          | ms from the start")
        print("page          by load  after¹   total    | first paint  first contentful  load  offline scorer asked")
        for name in pages:
            engine = f"{median(name, 'engine'):.0f}" if all(run["engine"] is not None for run in figures[name]) else "-"
            print(
                f"{name:12} {median(name, 'by_load') / 1024:8.1f} {median(name, 'after') / 1024:7.1f}"
                f" {median(name, 'total') / 1024:7.1f}    | {median(name, 'fp'):11.0f} {median(name, 'fcp'):17.0f}"
                f" {median(name, 'load'):5.0f} {engine:>21}"
            )
        print(
            "¹ after the load event: the page's to-do count, game facts and offline scorer, and its service\n"
            "  worker's first install (the app shell, copies kept for offline use)"
        )
        print(f"(medians of {args.runs} runs; KiB = 1024 bytes)")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
