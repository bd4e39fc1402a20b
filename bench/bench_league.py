"""Seeding time, standings time and standings-page time for clubs of growing size.

    .venv/bin/python bench/bench_league.py [--sizes 12:40 60:600 200:3000] [--requests 30]

Each size is PLAYERS:GAMES. Builds a throw-away SQLite database (or uses
DATABASE_URL if set, e.g. a PostgreSQL database you can throw away), seeds a
club of each size with ``seed_demo``, then prints:

* how long seeding took (games stored through the league services),
* the queries and p50/p95 time of ``season_standings`` (the selector),
* the queries and p50/p95 server time of the season page (standings, provisional
  results and every fixture) through django.test.Client, signed out.

The query counts should be the same for every size; the times show how the
database's aggregation grows with the games.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def timed(function, repeat: int) -> tuple[list[float], int]:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    reset_queries()
    with CaptureQueriesContext(connection) as captured:
        function()
    queries = len(captured)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times, queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["12:40", "60:600", "200:3000"])
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="ginleague-bench-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{workdir}/bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from players.models import Club
    from scoring.league.standings import season_standings

    setup_test_environment()
    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
    print(f"{'players':>7} {'games':>6} {'seed s':>7} | {'standings q':>11} {'p50 ms':>7} {'p95 ms':>7} "
          f"| {'page q':>6} {'p50 ms':>7} {'p95 ms':>7} {'KB':>6}")
    client = Client()
    for size in args.sizes:
        players, games = (int(part) for part in size.split(":"))
        name = f"Bench club {players}"
        started = time.perf_counter()
        call_command("seed_demo", "--players", str(players), "--games", str(games), "--club", name,
                     "--replace", stdout=open(os.devnull, "w"))  # noqa: SIM115
        seeded = time.perf_counter() - started
        club = Club.objects.get(name=name)
        season = club.seasons.get()
        standings_times, standings_queries = timed(lambda season=season: season_standings(season), args.requests)
        url = reverse("league:season", args=[club.slug, season.pk])
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        page_times, page_queries = timed(lambda url=url: client.get(url), args.requests)
        print(
            f"{players:>7} {games:>6} {seeded:>7.1f} | {standings_queries:>11} "
            f"{statistics.median(standings_times):>7.1f} {percentile(standings_times, .95):>7.1f} "
            f"| {page_queries:>6} {statistics.median(page_times):>7.1f} {percentile(page_times, .95):>7.1f} "
            f"{len(response.content) / 1024:>6.0f}"
        )


if __name__ == "__main__":
    main()
