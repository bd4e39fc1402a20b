"""A club night, live end to end as browsers use it: writers on every table at once, every open page
re-fetching its changed parts, against uvicorn workers and PostgreSQL (issue 39, item 2).

    .venv/bin/python bench/bench_club_night.py [--tables 100] [--seasons 4] [--season-pages 20] [--walls 2]
                                               [--members-online 0] [--rates 1,10] [--seconds 60] [--workers 2]
                                               [--port N]
    .venv/bin/python bench/bench_club_night.py --quick      # .ci/run: a few writers at once, a dozen pages

Loopback only, bounded (each rate runs ``--seconds``; the whole run stops after ``--timeout``). Uses
(and fills) its own database, PostgreSQL ``ginleague_bench_club_night`` on 127.0.0.1:5432 (``BENCH_DB``
names another, so that two runs on one server do not drop each other's); the server listens on a free
port unless ``--port`` names one.

One club, ``--tables`` tables (a game each, two members at each, spread over ``--seasons`` open
seasons), and these open pages, each as a browser holds it (static/js/wall.js): its one event stream,
and on every event a re-fetch of the parts the event names (one fetch at a time per part; a change
heard while fetching fetches again once it is back):

* two scoresheets per table (each player's phone, signed in: the sheet, ``/live/?game=``, and their
  "Needs you" badge, ``/todo/count/``, on every change in the club's seasons);
* ``--season-pages`` season pages (``#standings``, from its own address, spread over the seasons);
* ``--walls`` wall screens (the board, re-fetched until it shows the stream's newest version);
* ``--members-online`` more members of the club, signed in on some page with no live part of its own:
  their "Needs you" badge and its stream only (``/live/``). With ``--season-pages`` it sets how many
  screens watch the night, the tables (and so the saves) staying the same: the server's CPU per hand
  should not grow with them.

Writers: every table saves a hand (through the services, each in its own thread and transaction)
once per 90 s / rate, at a random phase, so saves on many tables overlap. For each rate it prints:

* save -> page has the new figures: from the save's commit to the end of the first fetch of a part
  that shows it (the sheet on both phones, the season's pages and walls) that started after the commit,
  p50/p95/max, and how many pages never got there;
* the server's CPU (every worker) per saved hand: every re-fetch and stream (the save itself runs in
  this process, as the services would in the saving phone's request), and the re-fetches per hand;
* at the end, the stale check: every page's parts against a fresh render (0 stale).

Targets (issue 39): p95 < 1 s at 10x, 0 stale, CPU per hand that does not grow with the number of screens
beyond a small constant. ``--quick`` exits 1 on any stale part or a page that missed a save.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_live  # noqa: E402 (free_port, start_server, cpu_seconds: the same server as the live bench)

DATABASE = os.environ.get("BENCH_DB", "ginleague_bench_club_night")
PERIOD = 90.0  # seconds between two hands at one table on a real night


def prepare_database() -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{DATABASE}"')
    bench_live.DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
    os.environ["DATABASE_URL"] = bench_live.DATABASE_URL
    os.environ["SECRET_KEY"] = bench_live.SECRET_KEY
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


@dataclass
class Table:
    game_id: int
    season_id: int
    players: tuple[int, int]  # Player ids
    cookies: tuple[str, str]  # each player's signed-in session
    token: str  # the first player's API token: the phone that saves
    # Each save: when it committed, and the game's and its season's count of changes just after it.
    saved: list[tuple[float, int, int]] = field(default_factory=list)


def seed(tables: int, seasons: int, online: int = 0):
    """One public club, ``tables`` games spread over ``seasons`` open seasons, two members at each, and
    ``online`` more members (not playing tonight) signed in: their sessions' cookies."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from players import clubs
    from scoring.league import services as league
    from scoring.models import SeasonFormat

    users = get_user_model()
    owner = users.objects.create_user("night-owner", password=None)
    club = clubs.club_create(name="Club Night", owner=owner, is_public=True)
    members = []
    for number in range(tables * 2):
        member = users.objects.create_user(f"player-{number}", password=None)
        clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=owner), user=member)
        members.append((member, clubs.player_of(member)))
    per_season = -(-tables // seasons)
    made, season_ids = [], []
    for index in range(seasons):
        at = members[index * per_season * 2 : (index + 1) * per_season * 2]
        if not at:
            break
        season = league.season_create(
            club=club, name=f"Night {index + 1}", players=[p for _, p in at], format=SeasonFormat.OPEN, created_by=owner
        )
        season_ids.append(season.pk)
        for (one_user, one), (two_user, two) in zip(at[::2], at[1::2], strict=True):
            game = league.open_game_start(season=season, player_one=one, player_two=two, started_by=one_user)
            cookies = []
            for user in (one_user, two_user):
                client = Client()
                client.force_login(user)
                cookies.append(f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}")
            token = Token.objects.create(user=one_user).key
            made.append(Table(game.pk, season.pk, (one.pk, two.pk), tuple(cookies), token))
    watching = []
    for number in range(online):
        member = users.objects.create_user(f"online-{number}", password=None)
        clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=owner), user=member)
        client = Client()
        client.force_login(member)
        watching.append(f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}")
    return club, season_ids, made, watching


# --- what a page shows: its parts, taken from an answer the way wall.js takes them -----------------------

_TOKENS = re.compile(r'(name="(?:csrfmiddlewaretoken|idempotency_key)" value=")[^"]*"')


def element(html: str, element_id: str) -> str | None:
    """The element with ``id`` in ``html`` (its tag and everything to its matching end tag), tokens blanked."""
    start = html.find(f'id="{element_id}"')
    if start < 0:
        return None
    start = html.rfind("<", 0, start)
    tag = re.match(r"<(\w+)", html[start:]).group(1)
    depth, position = 0, start
    pattern = re.compile(rf"<(/?){tag}\b[^>]*>")
    for found in pattern.finditer(html, start):
        depth += -1 if found.group(1) else 1
        if depth == 0:
            position = found.end()
            break
    return _TOKENS.sub(r'\1"', html[start:position])


@dataclass
class Part:
    name: str  # the stream's event that moves it
    url: str
    ids: tuple[str, ...]  # the elements taken from the answer ("" : the whole answer)
    shown: dict = field(default_factory=dict)
    version: str | None = None  # the data-version it shows (walls and sheets)
    fetching: bool = False
    again: bool = False
    fetches: list[tuple[float, float, str | None]] = field(default_factory=list)  # (started, ended, its version)


class Page:
    def __init__(self, kind: str, table: Table | None, season_id: int, stream: str, cookie: str, parts: list[Part]):
        self.kind, self.table, self.season_id, self.stream, self.cookie = kind, table, season_id, stream, cookie
        self.parts = {part.name: part for part in parts}
        self.ready = asyncio.Event()
        self.latest: dict[str, str] = {}
        self.writer = None

    def headers(self) -> dict[str, str]:
        return {"Cookie": self.cookie, "Accept": "text/html"} if self.cookie else {"Accept": "text/html"}

    def take(self, part: Part, html: str) -> None:
        if part.ids == ("",):
            part.shown = {"": _TOKENS.sub(r'\1"', html.strip())}
        else:
            part.shown = {element_id: element(html, element_id) for element_id in part.ids}
        first = next(iter(part.shown.values())) or ""
        found = re.search(r'data-version="([^"]*)"', first)
        part.version = found.group(1) if found else None

    async def fetch(self, client, part: Part) -> None:
        if part.fetching:
            part.again = True
            return
        part.fetching = True
        try:
            while True:
                part.again = False
                started = time.monotonic()
                try:
                    answer = await client.get(part.url, headers=self.headers())
                except Exception:  # noqa: BLE001 (a refused or cut request: the browser tries again later)
                    await asyncio.sleep(0.3)
                    part.again = True
                else:
                    if answer.status_code == 200:
                        self.take(part, answer.text)
                        part.fetches.append((started, time.monotonic(), part.version))
                    else:
                        await asyncio.sleep(0.3)
                        part.again = True
                # A wall's board older than the newest version its stream told of: look again (wall.js).
                if self.kind == "wall" and part.version != self.latest.get(part.name):
                    part.again = part.again or self.latest.get(part.name) is not None
                if not part.again:
                    return
        finally:
            part.fetching = False

    async def run(self, port: int, client, stop: asyncio.Event) -> None:
        async for event, data in bench_live.sse_events(self, port, self.stream, self.cookie, stop):
            if event == "ready":
                versions = {"change": data} if self.kind == "wall" else json.loads(data)
                self.latest.update(versions)
                self.ready.set()
            elif event in self.parts:
                self.latest[event] = data
                part = self.parts[event]
                if part.version is None or part.version != data:
                    asyncio.get_running_loop().create_task(self.fetch(client, part))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def pages_of(club, season_ids, tables: list[Table], season_pages: int, walls: int, online=()) -> list[Page]:
    pages = []
    for table in tables:
        for cookie in table.cookies:
            pages.append(
                Page("scoresheet", table, table.season_id, f"/live/?game={table.game_id}", cookie, [
                    Part("game", f"/games/{table.game_id}/", ("sheet",)),
                    Part("todo", "/todo/count/", ("",)),
                ])
            )  # fmt: skip
    for index in range(season_pages):
        season_id = season_ids[index % len(season_ids)]
        # Its standings come from their own address (data-live-url, as wall.js fetches them); an open
        # season has no fixtures of its own.
        url = f"/clubs/{club.slug}/seasons/{season_id}/standings/"
        pages.append(
            Page("season", None, season_id, f"/live/?season={season_id}", "", [
                Part("season", url, ("standings",)),
            ])
        )  # fmt: skip
    for index in range(walls):
        season_id = season_ids[index % len(season_ids)]
        base = f"/clubs/{club.slug}/seasons/{season_id}/wall/"
        board = Part("change", base + "board/", ("wall-board",))
        pages.append(Page("wall", None, season_id, base + "events/", "", [board]))
    for cookie in online:  # a member on a page with no live part: the badge alone
        pages.append(Page("badge", None, season_ids[0], "/live/", cookie, [Part("todo", "/todo/count/", ("",))]))
    return pages


def percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, int(share * len(values)))]


# --- the night ----------------------------------------------------------------------------------------


def save_hand(table: Table, by: int) -> tuple[float, int, int]:
    """Save a hand as the table's phone would (the service the API and the page call): when it committed,
    and the counts of changes of its game and season read just after (a page whose part shows a version
    with counts this high holds the hand, even if its fetch started a moment before the commit)."""
    from scoring import changes, services
    from scoring.models import Game

    services.hand_record(game=table.game_id, ending="knock", by=by, knocker_deadwood=3, defender_deadwood=4)
    at = time.monotonic()
    game_changes = Game.objects.values_list("change_count", flat=True).get(pk=table.game_id)
    return at, game_changes, changed(changes.season_version(table.season_id))


def changed(version: str | None) -> int | None:
    """The count of changes in a game's or a season's version (its second figure), which only grows."""
    figures = (version or "").split(".")
    return int(figures[1]) if len(figures) > 1 and figures[1].isdigit() else None


async def write(table: Table, period: float, until: float, together: bool) -> None:
    """One table's phone: a hand every ``period`` seconds (a random phase first, or none: every table
    saves at the same moment), until ``until``. Saved here, each in a thread of its own (its own
    connection, its own transaction), so that the time of each commit is known to the millisecond:
    a page may hear of a save before an HTTP answer to it would arrive."""
    from asgiref.sync import sync_to_async

    save = sync_to_async(save_hand, thread_sensitive=False)
    await asyncio.sleep(0 if together else random.uniform(0, period))
    turn = 0
    while time.monotonic() < until:
        turn += 1
        started = time.monotonic()
        try:  # they take turns: one point each way, so the game never ends tonight
            table.saved.append(await save(table, table.players[turn % 2]))
        except Exception as error:  # noqa: BLE001
            print(f"table {table.game_id}: {error}")
        await asyncio.sleep(max(0.0, period - (time.monotonic() - started)))


def delays(pages: list[Page], tables: list[Table], since: float) -> tuple[dict[str, list[float]], dict[str, int]]:
    """For each save after ``since`` and each page that shows it: when the page first held it."""
    by_season: dict[int, list[tuple[float, int]]] = {}
    for table in tables:
        by_season.setdefault(table.season_id, []).extend((at, season) for at, _, season in table.saved if at >= since)
    found: dict[str, list[float]] = {"scoresheet": [], "season": [], "wall": []}
    missed = dict.fromkeys(found, 0)
    for page in pages:
        if page.kind == "badge":  # shows no figures of a hand: only the stale check looks at it
            continue
        if page.kind == "scoresheet":
            saves, part = [(at, game) for at, game, _ in page.table.saved if at >= since], page.parts["game"]
        else:
            saves, part = by_season.get(page.season_id, []), next(iter(page.parts.values()))
        for at, count in saves:
            # The first fetch that shows it: its version counts this change (or, for a part without a
            # version, it started after the commit).
            done = [
                max(ended, at)
                for started, ended, version in part.fetches
                if (changed(version) is not None and changed(version) >= count)
                or (changed(version) is None and started >= at)
            ]
            if done:
                found[page.kind].append(min(done) - at)
            else:
                missed[page.kind] += 1
    return found, missed


async def settle(pages: list[Page], seconds: float) -> None:
    """Wait until no page is fetching (at most ``seconds``)."""
    deadline = time.monotonic() + seconds
    quiet_since = None
    while time.monotonic() < deadline:
        busy = any(part.fetching for page in pages for part in page.parts.values())
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 1.5:
            return
        await asyncio.sleep(0.1)


async def stale_check(client, pages: list[Page]) -> list[str]:
    """Every page's parts against a fresh render of the same part for the same viewer."""
    stale = []
    for page in pages:
        for part in page.parts.values():
            answer = await client.get(part.url, headers=page.headers())
            fresh = Page(page.kind, page.table, page.season_id, page.stream, page.cookie, [])
            probe = Part(part.name, part.url, part.ids)
            fresh.take(probe, answer.text)
            if probe.shown != part.shown:
                stale.append(f"{page.kind} {page.stream} part {part.name} ({part.url})")
    return stale


async def night(args, club, season_ids, tables, online, port: int, server) -> int:
    import httpx

    limits = httpx.Limits(max_connections=args.connections, max_keepalive_connections=args.connections)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60) as client:
        pages = pages_of(club, season_ids, tables, args.season_pages, args.walls, online)
        for page in pages:  # each page as the browser first drew it
            for part in page.parts.values():
                page.take(part, (await client.get(part.url, headers=page.headers())).text)
        stop = asyncio.Event()
        readers = [asyncio.create_task(page.run(port, client, stop)) for page in pages]
        try:
            await asyncio.wait_for(asyncio.gather(*(page.ready.wait() for page in pages)), timeout=60)
        except TimeoutError:
            print(f"only {sum(page.ready.is_set() for page in pages)} of {len(pages)} pages got ready")
        kinds = {kind: sum(page.kind == kind for page in pages) for kind in ("scoresheet", "season", "wall", "badge")}
        print(f"{len(tables)} tables over {len(season_ids)} seasons; open pages: {kinds['scoresheet']} scoresheets "
              f"(each with its member's badge), {kinds['season']} season pages, {kinds['wall']} walls, "
              f"{kinds['badge']} other members' badges")  # fmt: skip
        await asyncio.sleep(1.0)

        failures = 0
        for rate in args.rates:
            period = args.period if args.period else PERIOD / rate
            since = time.monotonic()
            fetched_before = sum(len(part.fetches) for page in pages for part in page.parts.values())
            cpu_before = bench_live.cpu_seconds(server)
            until = since + args.seconds
            await asyncio.gather(*(write(table, period, until, args.quick) for table in tables))
            await settle(pages, 30)
            cpu = bench_live.cpu_seconds(server) - cpu_before
            saves = sum(1 for table in tables for at, _, _ in table.saved if at >= since)
            fetched = sum(len(part.fetches) for page in pages for part in page.parts.values()) - fetched_before
            found, missed = delays(pages, tables, since)
            every = sorted(delay for kind in found for delay in found[kind])
            label = f"{rate:g}x" if not args.period else f"every {period:g} s"
            print(f"-- {label}: {saves} hands saved in {args.seconds:.0f} s on {len(tables)} tables "
                  f"({saves / args.seconds:.2f} hands/s)")  # fmt: skip
            for kind in (*found, "all"):
                shown = every if kind == "all" else sorted(found[kind])
                lost = sum(missed.values()) if kind == "all" else missed[kind]
                if shown:
                    print(f"{kind:>11}: save -> page has the new figures p50 {statistics.median(shown) * 1000:.0f} ms, "
                          f"p95 {percentile(shown, 0.95) * 1000:.0f} ms, max {shown[-1] * 1000:.0f} ms "
                          f"over {len(shown)}; never {lost}")  # fmt: skip
                elif lost:
                    print(f"{kind:>11}: never {lost}")
            print(f"     server CPU: {cpu:.1f} s, {cpu / max(saves, 1) * 1000:.0f} ms per saved hand "
                  f"({fetched} re-fetches, {fetched / max(saves, 1):.0f} per hand); machine load average "
                  f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")  # fmt: skip
            failures += sum(missed.values())

        await settle(pages, 30)
        stale = await stale_check(client, pages)
        print(f"stale check: {len(stale)} of {sum(len(page.parts) for page in pages)} parts differ from a fresh render")
        for line in stale[:10]:
            print("  stale:", line)
        stop.set()
        for page in pages:
            page.close()
        await asyncio.gather(*readers, return_exceptions=True)
        return failures + len(stale)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seasons", type=int, default=4)
    parser.add_argument("--season-pages", type=int, default=20)
    parser.add_argument("--walls", type=int, default=2)
    parser.add_argument("--members-online", type=int, default=0, help="other members with only their badge open")
    parser.add_argument("--port", type=int, default=None, help="the server's port (a free one by default)")
    parser.add_argument("--rates", default="1,10", help="hands per table per 90 s, one run each (1: a real night)")
    parser.add_argument("--period", type=float, default=None, help="seconds between hands (not --rates)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long each rate runs")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=40, help="the browsers' connections for fetches at once")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--quick", action="store_true", help="CI: 4 tables at once, a dozen pages")
    args = parser.parse_args()
    if args.quick:
        args.tables, args.seasons, args.season_pages, args.walls = 4, 2, 2, 1
        args.rates, args.period, args.seconds = "1", 1.0, 5.0
    args.rates = [float(rate) for rate in args.rates.split(",")]
    bounds = (
        (args.tables, 200),
        (args.seconds, 300),
        (args.season_pages, 100),
        (args.walls, 10),
        (args.members_online, 400),
    )
    if any(value > most for value, most in bounds):
        raise SystemExit("bounded: at most 200 tables, 100 season pages, 10 walls, 400 members online, 300 s per rate")
    random.seed(39)
    prepare_database()
    club, season_ids, tables, online = seed(args.tables, args.seasons, args.members_online)
    port = args.port or bench_live.free_port()
    server = bench_live.start_server(port, args.workers)
    try:
        failures = asyncio.run(
            asyncio.wait_for(night(args, club, season_ids, tables, online, port, server), timeout=args.timeout)
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    if args.quick and failures:
        raise SystemExit(f"FAIL: {failures} stale parts or pages that never showed a save")


if __name__ == "__main__":
    main()
