"""Benchmark: scoring without a network (issue 14), in headless Chromium at 390x844.

    .venv/bin/python bench/bench_offline.py [--runs 3] [--hands 20]

Serves the app with uvicorn (as `make run` does) on a throwaway SQLite database and prints:
- the scoresheet's first load online: bytes over the wire (page, CSS, JS, icons; the offline
  scorer is fetched after the page is usable) and ms to the load event and to "ready offline"
  (worker registered, game facts kept, offline scorer loaded);
- a reload of the scoresheet with the network off (served by the service worker): ms to the
  sheet redrawn with its queued hands;
- with N hands queued offline, ms from the network coming back to every hand stored by the server.
Figures, not pass/fail; medians over --runs fresh browser profiles.
"""

from __future__ import annotations

import argparse
import json
import os
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
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 390, "height": 844}
PASSWORD = "a-long-bench-password"

SETUP = f"""
from django.contrib.auth import get_user_model
from players.models import Player
from scoring import services
user = get_user_model().objects.create_user("bench", password={PASSWORD!r})
ann, bob = Player.objects.create(name="Ann"), Player.objects.create(name="Bob")
games = [services.game_create(player_one=ann, player_two=bob, first_dealer=bob,
         rules={{"preset": "standard", "target": 1000}}, created_by=user) for _ in range({{runs}})]
for game in games:
    for n in range(3):
        services.hand_record(game=game, ending="knock", by=ann.pk if n % 2 else bob.pk,
                             knocker_deadwood=2, defender_deadwood=9, recorded_by=user)
print(ann.pk, bob.pk, *[game.pk for game in games])
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def hand_count(base: str, game: int, cookies: str) -> int:
    request = urllib.request.Request(
        f"{base}/api/games/{game}/", headers={"Cookie": cookies, "Accept": "application/json"}
    )

    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["hand_count"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hands", type=int, default=20)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="bench-offline-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "SECRET_KEY": "bench-offline-not-secret",
        "DEBUG": "false",
        "API_THROTTLE_USER": "100000/minute",
    }
    subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    ids = (
        subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", SETUP.replace("{runs}", str(args.runs))],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.splitlines()[-1]
        .split()
    )
    ann, bob, games = int(ids[0]), int(ids[1]), [int(pk) for pk in ids[2:]]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            ROOT / ".venv" / "bin" / "uvicorn",
            "ginleague.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/login/")
                break
            except OSError:
                time.sleep(0.1)
        figures: dict[str, list[float]] = {"bytes": [], "load": [], "ready": [], "reload": [], "sync": []}
        with sync_playwright() as playwright:
            for run, game in enumerate(games):
                profile = work / f"profile-{run}"
                context = playwright.chromium.launch_persistent_context(
                    str(profile),
                    executable_path=CHROMIUM,
                    headless=True,
                    viewport=VIEWPORT,
                    args=["--no-sandbox", "--disable-gpu"],
                )
                context.set_default_timeout(60_000)
                page = context.pages[0] if context.pages else context.new_page()
                page.goto(f"{base}/login/")
                page.get_by_label("Username").fill("bench")
                page.get_by_label("Password").fill(PASSWORD)
                page.get_by_role("button", name="Sign in").click()
                page.wait_for_url(lambda url: "/login/" not in url)
                # First load of the sheet: forget the worker and everything the sign-in pages fetched.
                page.evaluate(
                    """async () => {
                        for (const reg of await navigator.serviceWorker.getRegistrations()) { await reg.unregister(); }
                        for (const name of await caches.keys()) { await caches.delete(name); }
                    }"""
                )
                client = context.new_cdp_session(page)
                client.send("Network.enable")
                client.send("Network.clearBrowserCache")
                received: list[int] = []
                client.on(
                    "Network.loadingFinished", lambda event, into=received: into.append(event["encodedDataLength"])
                )
                start = time.perf_counter()
                page.goto(f"{base}/games/{game}/", wait_until="load")
                load_ms = (time.perf_counter() - start) * 1000
                page.locator("html[data-offline-ready='1']").wait_for(state="attached")
                ready_ms = (time.perf_counter() - start) * 1000
                first_bytes = sum(received)
                page.evaluate("navigator.serviceWorker.ready.then(() => true)")
                page.reload()
                page.locator("html[data-offline-ready='1']").wait_for(state="attached")

                context.set_offline(True)
                page.evaluate(
                    """async ([game, ann, bob, n]) => {
                        for (let i = 0; i < n; i++) {
                            await window.GinOffline.queue(game, {op: "add", facts: {ending: "knock",
                                by: i % 2 ? ann : bob, knocker_deadwood: 1, defender_deadwood: 4, upcard: null}});
                        }
                    }""",
                    [game, ann, bob, args.hands],
                )
                start = time.perf_counter()
                page.reload()
                page.locator("table.hands tbody tr.unsent").nth(args.hands - 1).wait_for()
                reload_ms = (time.perf_counter() - start) * 1000

                cookies = "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())
                start = time.perf_counter()
                context.set_offline(False)
                deadline = time.monotonic() + 30
                while hand_count(base, game, cookies) < 3 + args.hands:
                    if time.monotonic() > deadline:
                        state = page.evaluate("[navigator.onLine, document.getElementById('net-badge').textContent]")
                        count = hand_count(base, game, cookies)
                        raise SystemExit(f"the queued hands did not all arrive (run {run}): {count}, {state}")
                    time.sleep(0.005)
                sync_ms = (time.perf_counter() - start) * 1000
                page.locator("#net-badge[data-state=online]").wait_for()
                context.close()
                for name, value in (
                    ("bytes", first_bytes),
                    ("load", load_ms),
                    ("ready", ready_ms),
                    ("reload", reload_ms),
                    ("sync", sync_ms),
                ):
                    figures[name].append(value)
        median = {name: statistics.median(values) for name, values in figures.items()}
        print(
            f"scoresheet first load online: {median['bytes'] / 1024:.1f} KiB over the wire, "
            f"{median['load']:.0f} ms to load, {median['ready']:.0f} ms to ready offline"
        )
        print(f"scoresheet reload offline ({args.hands} hands queued): {median['reload']:.0f} ms")
        print(
            f"back online -> all {args.hands} queued hands stored: {median['sync']:.0f} ms "
            f"({median['sync'] / args.hands:.0f} ms a hand)"
        )
        print(f"(medians of {args.runs} runs, uvicorn + SQLite, Chromium {VIEWPORT['width']}x{VIEWPORT['height']})")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
