"""Live pages at scale: many open pages of mixed kinds over many seasons, against uvicorn workers.

    .venv/bin/python bench/bench_live.py [--pages 2000] [--seasons 100] [--workers 2] [--saves 100]
    .venv/bin/python bench/bench_live.py --sqlite [--pages 200]

Loopback only, bounded in count and time (it stops by itself after at most ``--timeout`` seconds).
Uses (and fills) its own database: PostgreSQL ``ginleague_bench_live`` on 127.0.0.1:5432, or with
``--sqlite`` the file ``/tmp/ginleague_bench_live.sqlite3`` (each worker then polls).

It starts ``uvicorn ginleague.asgi:application --workers N`` and opens ``--pages`` event streams spread
over ``--seasons`` seasons (one public club and one member per season), a quarter of each kind: open
scoresheets (``/live/?game=``), season pages (``/live/?season=``), signed-in "Needs you" counts
(``/live/`` with the member's session) and wall screens (``/wall/events/``). It waits until every stream
said "ready", then saves ``--saves`` hands one after another through the services in this process,
each in a season chosen in turn, and records when each page hears of it. Prints:

* database connections while every page is open, by application name (PostgreSQL: the hub's one
  LISTEN connection per worker is ``ginleague-live``);
* save-to-page delay p50/p95/max over every (page, save) pair, by kind and overall, and how many
  were missed;
* the workers' CPU time per saved hand and per delivered event, and each worker's resident memory.

Targets (issue 27): one listening connection per worker, delay p95 < 500 ms, 0 missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE = "ginleague_bench_live"
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
SQLITE_FILE = Path("/tmp/ginleague_bench_live.sqlite3")
SECRET_KEY = "bench-only-" + "x" * 40  # the server's and this process's: the sessions made here sign in there
KINDS = ("scoresheet", "season", "todo", "wall")
HEARD = {"scoresheet": "game", "season": "season", "todo": "todo", "wall": "change"}  # the event each kind waits for


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def prepare_database(sqlite: bool) -> None:
    global DATABASE_URL
    if sqlite:
        for path in SQLITE_FILE.parent.glob(SQLITE_FILE.name + "*"):
            path.unlink()
        DATABASE_URL = f"sqlite:///{SQLITE_FILE}"
    else:
        import psycopg

        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{DATABASE}"')
    os.environ["DATABASE_URL"] = DATABASE_URL
    os.environ["SECRET_KEY"] = SECRET_KEY
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed(seasons: int):
    """``seasons`` public clubs, each with one open season of two players (the first with an account,
    signed in: the "Needs you" pages) and a game started. Returns [(club, season, game, player, cookie)]."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from players import clubs
    from scoring.league import services as league
    from scoring.models import SeasonFormat

    users = get_user_model()
    owner = users.objects.create_user("live-owner", password=None)
    seeded = []
    for number in range(seasons):
        club = clubs.club_create(name=f"Live Club {number}", owner=owner, is_public=True)
        member = users.objects.create_user(f"member-{number}", password=None)
        clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=owner), user=member)
        one = clubs.player_of(member)
        two = clubs.member_add_guest(club=club, name=f"Guest {number}", added_by=owner).player
        season = league.season_create(
            club=club, name=f"Season {number}", players=[one, two], format=SeasonFormat.OPEN, created_by=owner
        )
        game = league.open_game_start(season=season, player_one=one, player_two=two, started_by=owner)
        client = Client()
        client.force_login(member)
        cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        seeded.append((club, season, game, one, cookie))
    return seeded


def start_server(port: int, count: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": DATABASE_URL,
        "DEBUG": "false",
        "SECRET_KEY": SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DJANGO_SETTINGS_MODULE": "ginleague.settings",
        "LIVE_STREAMS_PER_ADDRESS": "0",  # every page of the bench comes from this one address
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "ginleague.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--workers", str(count), "--log-level", "warning", "--timeout-graceful-shutdown", "2"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("uvicorn did not start")


def workers(server: subprocess.Popen) -> list[int]:
    """The process ids of the uvicorn supervisor's workers."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(server.pid):
            found.append(int(status.parent.name))
    return sorted(found)


def worker_memory(server: subprocess.Popen) -> list[int]:
    """Resident memory (KiB) of each worker process of the uvicorn supervisor."""
    memory = []
    for pid in workers(server):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    memory.append(int(line.split()[1]))
    return sorted(memory)


def cpu_seconds(server: subprocess.Popen) -> float:
    """User + system CPU time of every worker (and the supervisor) so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in [server.pid, *workers(server)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def connections_in_use() -> dict[str, int]:
    from django.db import connection

    if connection.vendor != "postgresql":
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(nullif(application_name, ''), '(requests)'), count(*) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1",
            [DATABASE],
        )
        return dict(cursor.fetchall())


class Stream:
    """One open page: its SSE stream read line by line; remembers when its kind's event arrived."""

    def __init__(self, kind: str, season_id: int, path: str, cookie: str = "") -> None:
        self.kind, self.season_id, self.path, self.cookie = kind, season_id, path, cookie
        self.ready = asyncio.Event()
        self.changes: list[float] = []
        self.writer: asyncio.StreamWriter | None = None

    async def run(self, port: int, stop: asyncio.Event) -> None:
        async for event, _data in sse_events(self, port, self.path, self.cookie, stop):
            if event == "ready":
                self.ready.set()
            elif event == HEARD[self.kind]:
                self.changes.append(time.monotonic())

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def sse_events(owner, port: int, path: str, cookie: str, stop: asyncio.Event):
    """The (event, data) pairs of one event stream, as a browser's EventSource reads them, until ``stop``
    is set or the server ends it; ``owner.writer`` holds the connection, for the owner to close."""
    reader, owner.writer = await asyncio.open_connection("127.0.0.1", port)
    cookie_line = f"Cookie: {cookie}\r\n" if cookie else ""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{cookie_line}\r\n"
    owner.writer.write(request.encode())
    await owner.writer.drain()
    event = ""
    while not stop.is_set():
        try:
            line = await asyncio.wait_for(reader.readline(), timeout=1.0)
        except TimeoutError:
            continue
        if not line:
            break
        text = line.decode(errors="replace").strip()
        if text.startswith("event: "):
            event = text[7:]
        elif text.startswith("data: ") and event:
            yield event, text[6:]
            event = ""


def pages(count: int, seeded) -> list[Stream]:
    """``count`` pages, kinds in turn, seasons in turn within each kind."""
    streams = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        club, season, game, _, cookie = seeded[(index // len(KINDS)) % len(seeded)]
        path = {
            "scoresheet": f"/live/?game={game.pk}",
            "season": f"/live/?season={season.pk}",
            "todo": "/live/",
            "wall": f"/clubs/{club.slug}/seasons/{season.pk}/wall/events/",
        }[kind]
        streams.append(Stream(kind, season.pk, path, cookie if kind == "todo" else ""))
    return streams


def percentile(values: list[float], share: float) -> float:
    return values[int(share * (len(values) - 1))]


async def measure(args, seeded, port: int, server: subprocess.Popen) -> None:
    from asgiref.sync import sync_to_async

    from scoring import services

    stop = asyncio.Event()
    streams = pages(args.pages, seeded)
    tasks = [asyncio.create_task(stream.run(port, stop)) for stream in streams]
    opened = time.monotonic()
    try:
        await asyncio.wait_for(asyncio.gather(*(stream.ready.wait() for stream in streams)), timeout=args.timeout / 2)
    except TimeoutError:
        print(f"only {sum(s.ready.is_set() for s in streams)} of {len(streams)} pages got ready")
    print(f"{len(streams)} pages ({', '.join(KINDS)}) over {len(seeded)} seasons open and ready "
          f"in {time.monotonic() - opened:.1f} s")  # fmt: skip
    await asyncio.sleep(1.5)  # every worker's hub has connected and listens
    in_use = await sync_to_async(connections_in_use)()
    if in_use:
        print(f"PostgreSQL connections while pages are open: {sum(in_use.values())} ({in_use})")
    print(f"worker memory (RSS): {', '.join(f'{kib / 1024:.0f} MiB' for kib in worker_memory(server))}")

    saved: dict[int, list[float]] = {season.pk: [] for _, season, _, _, _ in seeded}
    record = sync_to_async(services.hand_record, thread_sensitive=True)
    cpu_before = cpu_seconds(server)
    for number in range(args.saves):
        _, season, game, player, _ = seeded[number % len(seeded)]
        await record(game=game, ending="knock", by=player, knocker_deadwood=3, defender_deadwood=10 + number % 40)
        saved[season.pk].append(time.monotonic())
        await asyncio.sleep(args.gap)
    await asyncio.sleep(2.0)  # the last changes travel
    cpu_used = cpu_seconds(server) - cpu_before
    stop.set()
    for stream in streams:
        stream.close()
    await asyncio.gather(*tasks, return_exceptions=True)

    delays: dict[str, list[float]] = {kind: [] for kind in KINDS}
    missed = dict.fromkeys(KINDS, 0)
    for stream in streams:
        times = saved[stream.season_id]
        for index, at in enumerate(times):
            # the first event heard after this save and before the next save of the season
            until = times[index + 1] if index + 1 < len(times) else float("inf")
            match = next((t for t in stream.changes if at <= t < until), None)
            if match is None:
                missed[stream.kind] += 1
            else:
                delays[stream.kind].append(match - at)
    every = sorted(delay for kind in KINDS for delay in delays[kind])
    for kind in (*KINDS, "all"):
        shown = every if kind == "all" else sorted(delays[kind])
        lost = sum(missed.values()) if kind == "all" else missed[kind]
        if shown:
            print(f"{kind:>10}: save-to-page delay p50 {statistics.median(shown) * 1000:.0f} ms, "
                  f"p95 {percentile(shown, 0.95) * 1000:.0f} ms, max {shown[-1] * 1000:.0f} ms "
                  f"over {len(shown)} deliveries; missed {lost}")  # fmt: skip
        else:
            print(f"{kind:>10}: nothing delivered; missed {lost}")
    delivered = len(every)
    print(f"server CPU: {cpu_used:.2f} s for {args.saves} saved hands: {cpu_used / args.saves * 1000:.1f} ms per hand, "
          f"{cpu_used / max(delivered, 1) * 1000:.2f} ms per delivered event")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=None, help="open pages (2,000; 200 with --sqlite)")
    parser.add_argument("--seasons", type=int, default=100)
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file instead of PostgreSQL")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between two saves")
    parser.add_argument("--timeout", type=float, default=240.0)
    args = parser.parse_args()
    args.pages = args.pages or (200 if args.sqlite else 2000)
    if args.pages > 5000 or args.saves > 2000 or args.seasons > 500:
        raise SystemExit("bounded: at most 5,000 pages, 500 seasons and 2,000 saves")
    prepare_database(args.sqlite)
    seeded = seed(args.seasons)
    port = free_port()
    server = start_server(port, args.workers)
    try:
        asyncio.run(asyncio.wait_for(measure(args, seeded, port, server), timeout=args.timeout))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
