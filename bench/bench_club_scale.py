"""A club at scale: 200 players, 20,000 games (about 400,000 hands) on PostgreSQL.

    .venv/bin/python bench/bench_club_scale.py [--players 200] [--games 20000] [--requests 40] [--reseed]

Uses DATABASE_URL, or creates (once) a PostgreSQL database ``ginleague_bench``
on 127.0.0.1:5432 that it may fill and reuse; ``--reseed`` throws the club
away and seeds it again. Not part of the test suite.

Seeding is bulk: every game's hands are scored by the engine in Python
(``score_session``; the figures stored are the engine's) and written with
bulk_create, instead of calling the per-hand services 400,000 times.

Prints the first standings view after a confirmed result changes (a hand of a confirmed game
corrected through the services, then the season page timed; p50/p95 over ``--changes`` changes),
the p50/p95 server time (django.test.Client, in this process) of the
standings page, the wall screen and its board, a player's profile and the
filtered hand history, the games list and the new-game page of the
organiser who started every game (signed in), and the delay from saving a hand (here, through the
services) to a wall screen's event stream, served by a separate uvicorn
process, receiving it. Targets: p95 under 100 ms per page, delay under 1 s.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ginleague_bench"
CLUB = "Scale Club"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def ensure_database(url: str) -> None:
    from urllib.parse import urlparse

    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    params = {"host": parsed.hostname, "port": parsed.port or 5432, "user": parsed.username or "postgres"}
    if parsed.password:
        params["password"] = parsed.password
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


# --- seeding -----------------------------------------------------------------------------------------


def one_game(rng, rules, pair, first_dealer):
    """Random hands until the engine says the game is over: (facts, SessionResult)."""
    from scoring.engine.score import HandError, score_session

    hands = [club_hand(rng, pair) for _ in range(80)]
    try:
        session = score_session(rules, pair, first_dealer, hands)
    except HandError as error:  # "the game is already over" at hand N: it closed at hand N - 1
        hands = hands[: error.hand - 1]
        session = score_session(rules, pair, first_dealer, hands)
    return hands, session


def seed(players: int, games: int, *, in_play: int = 20) -> None:
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from players import clubs
    from players.models import Club, Membership, Player, Role
    from scoring.engine.rules import resolve_rules
    from scoring.engine.score import score_session
    from scoring.league import services as league
    from scoring.models import Game, GameScore, Hand, LeagueStatus, SeasonFormat

    rng = random.Random(2024)
    User = get_user_model()
    director, _ = User.objects.get_or_create(username="scale-director")
    old = Club.objects.filter(name=CLUB).first()
    if old:
        print("deleting the old club ...", flush=True)
        Hand.objects.filter(game__season__club=old).delete()
        Game.objects.filter(season__club=old).delete()
        old.delete()
    started = time.perf_counter()
    with transaction.atomic():
        club = clubs.club_create(name=CLUB, owner=director, is_public=True)
        names = [f"Scale Player {n:03d}" for n in range(1, players + 1)]
        Player.objects.bulk_create([Player(name=name) for name in names], ignore_conflicts=True)
        members = list(Player.objects.filter(name__in=names).order_by("name"))
        Membership.objects.bulk_create(
            [Membership(club=club, player=player, role=Role.PLAYER) for player in members], ignore_conflicts=True
        )
        season = league.season_create(
            club=club, name="Big Season", players=members, format=SeasonFormat.OPEN, created_by=director
        )
    rules = resolve_rules(season.rules)
    base = timezone.now() - datetime.timedelta(days=365)
    total_hands = 0
    batch = 1000
    for start in range(0, games, batch):
        rows = []
        for n in range(start, min(games, start + batch)):
            one, two = rng.sample(members, 2)
            if n >= games - in_play:  # a few games still in play: one or two hands, not over
                facts = [random_hand_quiet(rng, (one.pk, two.pk)) for _ in range(rng.randint(1, 2))]
                session = score_session(rules, (one.pk, two.pk), two.pk, facts)
            else:
                facts, session = one_game(rng, rules, (one.pk, two.pk), two.pk)
            rows.append((one, two, facts, session, base + datetime.timedelta(minutes=25 * n)))
        with transaction.atomic():
            game_objects = [
                Game(
                    player_one=one, player_two=two, first_dealer=two, preset=rules.preset, rules=rules.as_dict(),
                    name=season.name, created_by=director, season=season, over=session.over,
                    finished_at=when if session.over else None, winner_id=session.games[0].winner if session.over
                    else None, margin=session.games[0].margin if session.over else None,
                    next_dealer_id=session.next_dealer, hand_count=len(facts),
                    league_status=LeagueStatus.CONFIRMED if session.over else LeagueStatus.PLAYING,
                    confirmed_by=director if session.over else None, confirmed_at=when if session.over else None,
                )
                for one, two, facts, session, when in rows
            ]  # fmt: skip
            Game.objects.bulk_create(game_objects)
            scores, hands = [], []
            for game, (one, two, facts, session, _when) in zip(game_objects, rows, strict=True):
                for result in session.games:
                    scores.append(
                        GameScore(
                            game=game, number=result.number, player_one_hand_points=result.hand_points[one.pk],
                            player_two_hand_points=result.hand_points[two.pk], player_one_boxes=result.boxes[one.pk],
                            player_two_boxes=result.boxes[two.pk], over=result.over, winner_id=result.winner,
                            player_one_final=result.final[one.pk] if result.over else None,
                            player_two_final=result.final[two.pk] if result.over else None,
                            margin=result.margin, closed_by_hand=result.closed_by_hand,
                        )
                    )  # fmt: skip
                for number, (fact, derived) in enumerate(zip(facts, session.hands, strict=True), start=1):
                    hands.append(
                        Hand(
                            game=game, number=number, ending=fact.ending, by_id=fact.by,
                            knocker_deadwood=fact.knocker_deadwood if fact.ending == "knock" else None,
                            defender_deadwood=fact.defender_deadwood, upcard="", dealer_id=derived.dealer,
                            result=derived.result, winner_id=derived.winner, points=derived.points,
                            boxes=derived.boxes, doubled=derived.doubled, scored_in=list(derived.games),
                        )
                    )  # fmt: skip
            GameScore.objects.bulk_create(scores, batch_size=5000)
            Hand.objects.bulk_create(hands, batch_size=5000)
            total_hands += len(hands)
        print(
            f"  {min(games, start + batch):>6} games, {total_hands:>7} hands ({time.perf_counter() - started:.0f}s)",
            flush=True,
        )
    from scoring.services import standing_lines_rebuild

    lines_started = time.perf_counter()
    lines = standing_lines_rebuild()  # the games were written in bulk, past the services that keep them
    print(f"  {lines} standings lines rebuilt in {time.perf_counter() - lines_started:.1f}s", flush=True)
    vacuum()
    print(f"seeded {games} games, {total_hands} hands in {time.perf_counter() - started:.0f}s")


def vacuum() -> None:
    """VACUUM ANALYZE the big tables, as autovacuum would have by the time anyone looks: the planner's
    figures, and the visibility map that lets the version aggregates read their index only.
    (Autovacuum may be off on a bench server; after the first run this takes a moment.)"""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE scoring_game, scoring_hand, scoring_gamescore, scoring_standingline")


def club_hand(rng, pair):
    """A hand as a club plays them: mostly close knocks, some gins, a few undercuts and dead hands
    (about twenty hands to a game of 100, as at a real table)."""
    from scoring.engine.score import HandFacts

    roll, by = rng.random(), rng.choice(pair)
    if roll < 0.05:
        return HandFacts(ending="dead")
    if roll < 0.11:
        return HandFacts(ending="gin", by=by, defender_deadwood=rng.randint(4, 20))
    knocker = rng.randint(1, 10)
    if rng.random() < 0.12:
        return HandFacts(ending="knock", by=by, knocker_deadwood=knocker, defender_deadwood=rng.randint(0, knocker))
    return HandFacts(ending="knock", by=by, knocker_deadwood=knocker, defender_deadwood=knocker + rng.randint(1, 9))


def random_hand_quiet(rng, pair):
    """A small knock that cannot end a game on its own (for the games left in play)."""
    from scoring.engine.score import HandFacts

    return HandFacts(ending="knock", by=rng.choice(pair), knocker_deadwood=rng.randint(1, 9),
                     defender_deadwood=rng.randint(12, 30))  # fmt: skip


# --- measuring ---------------------------------------------------------------------------------------


def time_pages(requests: int) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from players.models import Club

    club = Club.objects.get(name=CLUB)
    season = club.seasons.get()
    from scoring.models import Game

    member = season.players.order_by("name")[len(season.players.all()) // 2]
    met = Game.objects.filter(player_one=member).order_by("pk").first()
    opponent = met.player_two
    pages = {
        "standings (season page)": reverse("league:season", args=[club.slug, season.pk]),
        "wall screen": reverse("league:wall", args=[club.slug, season.pk]),
        "wall board (partial)": reverse("league:wall_board", args=[club.slug, season.pk]),
        "profile": reverse("stats:profile", args=[member.pk]),
        "history, player, filtered": reverse("stats:player_hands", args=[member.pk])
        + f"?ending=knock&points_min=10&opponent={opponent.pk}",
        "history, player, page 5": reverse("stats:player_hands", args=[member.pk]) + "?page=5",
        "history, club, filtered": reverse("stats:club_hands", args=[club.slug])
        + f"?season={season.pk}&ending=gin&points_min=40",
    }
    # Signed in as the club's organiser, who started every one of its games: the longest "own games" there is.
    organiser = Client()
    organiser.force_login(get_user_model().objects.get(username="scale-director"))
    signed_in = {"games list, organiser's (/)": reverse("home"), "new game page, organiser's": reverse("game_new")}
    print(f"{'page':<28} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8} {'KB':>6}")
    for name, url in {**pages, **signed_in}.items():
        client = organiser if name in signed_in else Client()
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        queries = len(captured)  # now: every later request starts by emptying the connection's log
        assert response.status_code == 200, (name, response.status_code)
        times = []
        for _ in range(requests):
            started = time.perf_counter()
            client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        print(f"{name:<28} {queries:>7} {statistics.median(times):>8.1f} {percentile(times, 0.95):>8.1f} "
              f"{len(response.content) / 1024:>6.0f}")  # fmt: skip
    # The first view after a confirmed result changes computes the standings again (then cached).
    from django.core.cache import cache

    url, times, client = pages["standings (season page)"], [], Client()
    for _ in range(max(5, requests // 4)):
        cache.clear()
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    print(f"{'  (recomputed, 1st after)':<28} {'':>7} {statistics.median(times):>8.1f} {percentile(times, 0.95):>8.1f}")


def time_first_view_after_change(changes: int) -> None:
    """Change one confirmed result (a hand corrected through the services), then time the next
    standings view: the view a club sees most on a busy night, when results keep coming in."""
    from django.test import Client
    from django.urls import reverse

    from players.models import Club
    from scoring import services
    from scoring.models import Game, Hand, LeagueStatus

    club = Club.objects.get(name=CLUB)
    season = club.seasons.get()
    url = reverse("league:season", args=[club.slug, season.pk])
    client = Client()
    client.get(url)  # warm: templates and the cache
    games = list(
        Game.objects.filter(season=season, league_status=LeagueStatus.CONFIRMED, over=True).order_by("?")[:changes * 3]
    )
    times, cached, edited = [], [], 0
    for game in games:
        if edited == changes:
            break
        hand = Hand.objects.filter(game=game, ending="knock").order_by("number").first()
        if hand is None:
            continue
        # One more point of deadwood for the defender: the result's figures move (its facts put back after).
        facts = {"ending": hand.ending, "by": hand.by_id, "knocker_deadwood": hand.knocker_deadwood}
        try:
            services.hand_edit(hand=hand, **facts, defender_deadwood=hand.defender_deadwood + 1, reason="bench")
        except services.HandRefused:  # the game would now end before its last hand: another game
            continue
        edited += 1
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
        started = time.perf_counter()  # the same page again, cached: what the machine's load alone costs
        client.get(url)
        cached.append((time.perf_counter() - started) * 1000)
        hand.refresh_from_db()
        services.hand_edit(hand=hand, **facts, defender_deadwood=hand.defender_deadwood - 1, reason="bench, undone")
    print(f"{'standings, 1st view after a change':<36} p50 {statistics.median(times):>7.1f} ms  "
          f"p95 {percentile(times, 0.95):>7.1f} ms  ({len(times)} changes)")  # fmt: skip
    print(f"{'  the next view (cached)':<36} p50 {statistics.median(cached):>7.1f} ms  "
          f"p95 {percentile(cached, 0.95):>7.1f} ms")  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def time_wall_delay(rounds: int) -> None:
    """Save hands here; a separate uvicorn process serves the wall's event stream."""
    from django.urls import reverse

    from players.models import Club
    from scoring import services
    from scoring.models import Game

    club = Club.objects.get(name=CLUB)
    season = club.seasons.get()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "ginleague.asgi:application", "--port", str(port), "--workers", "2",
         "--log-level", "warning"], cwd=ROOT, env={**os.environ, "DEBUG": "true"},
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        path = reverse("league:wall_events", args=[club.slug, season.pk])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", path, headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        assert response.status == 200, response.status
        events: list[tuple[str, float]] = []
        ready = threading.Event()

        def read():
            try:
                for raw in response:
                    line = raw.decode().strip()
                    if line.startswith("event: "):
                        events.append((line[7:], time.perf_counter()))
                        if line == "event: ready":
                            ready.set()
            except (AttributeError, OSError, ValueError):  # the connection was closed at the end
                pass

        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(10), "no ready event"
        delays = []
        for n in range(rounds):
            game = Game.objects.filter(season=season, over=False).order_by("pk").first()
            seen = len(events)
            started = time.perf_counter()
            services.hand_record(game=game, ending="knock", by=game.player_one_id, knocker_deadwood=9,
                                 defender_deadwood=10)  # fmt: skip
            while len(events) == seen and time.perf_counter() - started < 5:
                time.sleep(0.001)
            if len(events) > seen and events[seen][0] == "change":
                delays.append((events[seen][1] - started) * 1000)
            services.hand_remove_last(game=game)  # leave the game as it was
            while len(events) == seen + 1 and time.perf_counter() - started < 5:
                time.sleep(0.001)
            time.sleep(0.05 if n % 2 else 0.2)
        conn.close()
        print(f"save a hand -> wall event (other process): {len(delays)}/{rounds} received, "
              f"p50 {statistics.median(delays):.1f} ms, p95 {percentile(delays, 0.95):.1f} ms, "
              f"max {max(delays):.1f} ms")  # fmt: skip
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=20, help="hands saved to time the wall's delay")
    parser.add_argument("--reseed", action="store_true", help="seed again even if the club exists")
    parser.add_argument("--changes", type=int, default=40, help="confirmed results changed to time the next view")
    parser.add_argument("--skip-wall", action="store_true", help="leave out the wall's delay (a uvicorn process)")
    args = parser.parse_args()

    url = os.environ.get("DATABASE_URL") or DEFAULT_URL
    if not url.startswith("postgres"):
        sys.exit("This benchmark is for PostgreSQL: set DATABASE_URL=postgres://... (a database it may fill)")
    if not os.environ.get("DATABASE_URL"):
        ensure_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from players.models import Club
    from scoring.models import Game, Hand

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    club = Club.objects.filter(name=CLUB).first()
    if args.reseed or club is None or Game.objects.filter(season__club=club).count() != args.games:
        seed(args.players, args.games)
        club = Club.objects.get(name=CLUB)
    games = Game.objects.filter(season__club=club).count()
    hands = Hand.objects.filter(game__season__club=club).count()
    print(f"database: PostgreSQL {settings.DATABASES['default']['NAME']}; club: {args.players} players, "
          f"{games} games, {hands} hands")  # fmt: skip
    vacuum()
    time_pages(args.requests)
    time_first_view_after_change(args.changes)
    if not args.skip_wall:
        time_wall_delay(args.rounds)


if __name__ == "__main__":
    main()
