"""Wall screens at scale: many open event streams over many seasons, against uvicorn workers on PostgreSQL.

    .venv/bin/python bench/bench_wall_scale.py [--streams 1000] [--seasons 50] [--workers 2] [--saves 100]

Loopback only, bounded in count and time (it stops by itself after at most ``--timeout`` seconds).
Uses (and fills) its own PostgreSQL database ``ginleague_bench_wall`` on 127.0.0.1:5432.

It starts ``uvicorn ginleague.asgi:application --workers N``, opens ``--streams`` Server-Sent Events
streams (the wall screen's /wall/events/) spread over ``--seasons`` seasons, waits until every stream
said "ready", then saves ``--saves`` hands one after another through the services in this process,
each in a season chosen in turn, and records when each stream hears of it. Prints:

* PostgreSQL connections of the database while every stream is open (from pg_stat_activity), by
  application name: the hub's LISTEN connection is ``ginleague-live``;
* save-to-screen delay p50/p95/max over every (stream, save) pair, and how many were missed;
* resident memory of each worker process.

Targets (issue 15): connections <= 2 per worker beyond the request pool, delay p95 < 1 s, every
stream receives every change of its season.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE = "ginleague_bench_wall"
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def prepare_database() -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{DATABASE}"')
    os.environ["DATABASE_URL"] = DATABASE_URL
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed(seasons: int):
    """One public club, ``seasons`` open seasons of two players each, a game started in each."""
    from django.contrib.auth import get_user_model

    from players import clubs
    from scoring.league import services as league
    from scoring.models import SeasonFormat

    owner = get_user_model().objects.create_user("wall-owner", password=None)
    club = clubs.club_create(name="Wall Scale Club", owner=owner, is_public=True)
    games = []
    for number in range(seasons):
        one = clubs.member_add_guest(club=club, name=f"Player {number}a", added_by=owner).player
        two = clubs.member_add_guest(club=club, name=f"Player {number}b", added_by=owner).player
        season = league.season_create(
            club=club, name=f"Season {number}", players=[one, two], format=SeasonFormat.OPEN, created_by=owner
        )
        game = league.open_game_start(season=season, player_one=one, player_two=two, started_by=owner)
        games.append((season, game, one))
    return club, games


def start_server(port: int, workers: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": DATABASE_URL,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DJANGO_SETTINGS_MODULE": "ginleague.settings",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "ginleague.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--workers", str(workers), "--log-level", "warning", "--timeout-graceful-shutdown", "2"],
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


def worker_memory(server: subprocess.Popen) -> list[int]:
    """Resident memory (KiB) of each worker process of the uvicorn supervisor."""
    children = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(server.pid) and "VmRSS" in fields:
            children.append(int(fields["VmRSS"].split()[0]))
    return sorted(children)


def connections_in_use() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(nullif(application_name, ''), '(requests)'), count(*) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1",
            [DATABASE],
        )
        return dict(cursor.fetchall())


class Stream:
    """One wall screen: an SSE stream read line by line; remembers when each "change" arrived."""

    def __init__(self, season_id: int) -> None:
        self.season_id = season_id
        self.ready = asyncio.Event()
        self.changes: list[float] = []
        self.writer: asyncio.StreamWriter | None = None

    async def run(self, port: int, path: str, stop: asyncio.Event) -> None:
        reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        await self.writer.drain()
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
                if event == "ready":
                    self.ready.set()
                elif event == "change":
                    self.changes.append(time.monotonic())
                event = ""

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def measure(args, club, games, port: int, server: subprocess.Popen) -> None:
    from asgiref.sync import sync_to_async

    from scoring import services

    stop = asyncio.Event()
    streams = [Stream(games[index % len(games)][0].pk) for index in range(args.streams)]
    paths = {season.pk: f"/clubs/{club.slug}/seasons/{season.pk}/wall/events/" for season, _, _ in games}
    tasks = [asyncio.create_task(stream.run(port, paths[stream.season_id], stop)) for stream in streams]
    opened = time.monotonic()
    try:
        await asyncio.wait_for(asyncio.gather(*(stream.ready.wait() for stream in streams)), timeout=args.timeout / 2)
    except TimeoutError:
        print(f"only {sum(s.ready.is_set() for s in streams)} of {len(streams)} streams got ready")
    print(f"{len(streams)} streams over {len(games)} seasons open and ready in {time.monotonic() - opened:.1f} s")
    await asyncio.sleep(1.5)  # every worker's hub has connected and listens
    in_use = await sync_to_async(connections_in_use)()
    print(f"PostgreSQL connections while streams are open: {sum(in_use.values())} ({in_use})")
    print(f"worker memory (RSS): {', '.join(f'{kib / 1024:.0f} MiB' for kib in worker_memory(server))}")

    saved: dict[int, list[float]] = {season.pk: [] for season, _, _ in games}
    record = sync_to_async(services.hand_record, thread_sensitive=True)
    for number in range(args.saves):
        season, game, player = games[number % len(games)]
        await record(game=game, ending="knock", by=player, knocker_deadwood=3, defender_deadwood=10 + number % 40)
        saved[season.pk].append(time.monotonic())
        await asyncio.sleep(args.gap)
    await asyncio.sleep(2.0)  # the last changes travel
    stop.set()
    for stream in streams:
        stream.close()
    await asyncio.gather(*tasks, return_exceptions=True)

    delays, missed = [], 0
    for stream in streams:
        times = saved[stream.season_id]
        heard = stream.changes
        for index, at in enumerate(times):
            # the first change heard after this save and before the next save of the season
            until = times[index + 1] if index + 1 < len(times) else float("inf")
            match = next((t for t in heard if at <= t < until), None)
            if match is None:
                missed += 1
            else:
                delays.append(match - at)
    expected = sum(len(saved[stream.season_id]) for stream in streams)
    if delays:
        delays.sort()
        p50 = statistics.median(delays) * 1000
        p95 = delays[int(0.95 * (len(delays) - 1))] * 1000
        print(f"save-to-screen delay: p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {delays[-1] * 1000:.0f} ms "
              f"over {len(delays)} deliveries; missed {missed} of {expected}")  # fmt: skip
    else:
        print(f"no change delivered; missed {missed} of {expected}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seasons", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between two saves")
    parser.add_argument("--timeout", type=float, default=240.0)
    args = parser.parse_args()
    if args.streams > 5000 or args.saves > 2000:
        raise SystemExit("bounded: at most 5,000 streams and 2,000 saves")
    prepare_database()
    club, games = seed(args.seasons)
    port = free_port()
    server = start_server(port, args.workers)
    try:
        asyncio.run(asyncio.wait_for(measure(args, club, games, port, server), timeout=args.timeout))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
