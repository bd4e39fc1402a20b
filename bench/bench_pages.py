"""Server time and page weight of the kitchen-table pages on a 60-hand Hollywood sitting.

    .venv/bin/python bench/bench_pages.py [--requests 300]

Builds a throw-away SQLite database (unless DATABASE_URL is set), fills a
Hollywood sitting with 60 hands through the services, then times with
django.test.Client (in-process: the server's own time, no network):

* GET of the scoresheet (signed in, the phone's view),
* the htmx POST that records a hand (the sheet partial it returns); each
  recorded hand is undone afterwards, outside the timing,
* the htmx preview POST,
* an API POST of a hand on that sitting and of a board on a partnership game of as many boards
  (issue 41: a board should cost about what a hand of two costs), each undone afterwards,
* the games list, the new-game page and the "Needs you" badge (/todo/count/),

The form POSTs go as a browser and htmx send them (the forms have no enctype):
application/x-www-form-urlencoded, not the test client's default multipart. And it
prints p50/p95, the bytes and the CPU time (p50) of each response (static files excluded:
they are cached). Targets: p95 under 30 ms on SQLite, under 60 KB a page.

Next to them, the framework's floor in the same run: a bare Django view (GET and POST, "ok",
through the project's whole middleware chain and session) and a bare DRF POST (the project's API
settings: authentication, throttles, JSON parser), mounted for this run only, and the ratio of
the scoresheet GET and the hand POST to them: how far the hot paths are from the floor. The requests
are taken in turn, one of each a round (the reads' rounds, then the writes'), so that a busy moment of
the machine falls on a page and its floor alike.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def draw_facts(rng: random.Random, pair) -> dict:
    """A varied hand between the two players of ``pair``: dead, gin or a knock near the defender's count."""
    by = rng.choice(pair)
    kind = rng.random()
    if kind < 0.1:
        return {"ending": "dead"}
    if kind < 0.2:
        return {"ending": "gin", "by": by, "defender_deadwood": rng.randint(0, 12)}
    knocker = rng.randint(1, 10)
    defender = max(knocker + rng.choice((-2, 1, 2, 3, 4)), 0)
    return {"ending": "knock", "by": by, "knocker_deadwood": knocker, "defender_deadwood": defender}


def build_partnership(user, boards: int):
    """A partnership game (issue 41) of ``boards`` varied boards (two a deal), still open at the end."""
    from players.services import player_get_or_create
    from scoring import services
    from scoring.engine.partnership import board_pairs
    from scoring.services import HandRefused

    players = [player_get_or_create(name=name) for name in ("Annabel", "Bartholomew", "Cordelia", "Dashiell")]
    by_id = {player.pk: player for player in players}
    game = services.game_create(
        player_one=players[0],
        player_two=players[1],
        player_three=players[2],
        player_four=players[3],
        first_dealer=players[1],
        rules={"preset": "partnership"},
        created_by=user,
    )
    rng = random.Random(41)
    while game.hand_count < boards:
        deal, present = services.open_deal(list(game.hands.order_by("number", "board")))
        board = 1 if 1 not in present else 2
        pair = [by_id[pk] for pk in board_pairs(game.rule_set, game.player_ids, deal)[board - 1]]
        try:
            services.board_record(game=game, board=board, recorded_by=user, **draw_facts(rng, pair))
        except HandRefused:
            continue
        game.refresh_from_db()
        if game.over:  # keep the game open: take that board back and deal again
            services.hand_remove_last(game=game)
            game.refresh_from_db()
    return game


def build_sitting(hands: int):
    """A Hollywood sitting of ``hands`` varied hands that is still open at the end."""
    from django.contrib.auth import get_user_model

    from players.services import player_get_or_create
    from scoring import services
    from scoring.services import HandRefused

    user = get_user_model().objects.create_user("bench", password="bench-password-123")
    ann = player_get_or_create(name="Annabel")
    bob = player_get_or_create(name="Bartholomew")
    game = services.game_create(
        player_one=ann, player_two=bob, first_dealer=bob, rules={"preset": "hollywood"}, created_by=user
    )
    rng = random.Random(60)
    while game.hand_count < hands:
        facts = draw_facts(rng, (ann, bob))
        try:
            services.hand_record(game=game, recorded_by=user, **facts)
        except HandRefused:
            continue
        game.refresh_from_db()
        if game.over:  # keep the sitting open: take that hand back and deal again
            services.hand_remove_last(game=game)
            game.refresh_from_db()
    return user, game


def as_form(data: dict) -> dict:
    """``client.post`` arguments for ``data`` sent as a browser sends a form without an enctype (htmx too)."""
    return {"data": urlencode(data, doseq=True), "content_type": "application/x-www-form-urlencoded"}


def mount_floor() -> tuple[str, str]:
    """Mount, for this run only, a bare Django view and a bare DRF POST; their URLs."""
    from django.http import HttpResponse
    from django.urls import clear_url_caches, path
    from rest_framework.decorators import api_view
    from rest_framework.response import Response

    import ginleague.urls

    def bare(request):
        return HttpResponse("ok")

    @api_view(["POST"])
    def bare_api(request):
        return Response({"ok": bool(request.data)}, status=201)

    # First, before the API's own catch-all answer to an unknown address under /api/.
    ginleague.urls.urlpatterns[:0] = [path("bench-floor/", bare), path("api/bench-floor/", bare_api)]
    clear_url_caches()
    return "/bench-floor/", "/api/bench-floor/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="timed requests per measurement")
    parser.add_argument("--hands", type=int, default=60)
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
    from django.urls import reverse

    from scoring import services

    settings.ALLOWED_HOSTS.append("testserver")  # the test client's host (no test environment: it slows templates)
    if not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        sys.exit("This benchmark builds its own SQLite database; unset DATABASE_URL.")
    call_command("migrate", verbosity=0)
    user, game = build_sitting(args.hands)
    partners = build_partnership(user, args.hands)
    closed = game.scores.filter(over=True).count()
    print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
    print(f"sitting: Hollywood, {game.hand_count} hands, {closed} of 3 games closed, open: {not game.over}")
    print(f"partnership game: {partners.hand_count} boards ({partners.hand_count // 2} deals), "
          f"open: {not partners.over}")  # fmt: skip

    client = Client()
    client.force_login(user)
    sheet_url = reverse("game", args=[game.pk])
    record_url = reverse("hand_submit", args=[game.pk])
    preview_url = reverse("hand_preview", args=[game.pk])
    hand = {"ending": "knock", "by": game.player_one_id, "knocker_deadwood": 3, "defender_deadwood": 5}
    floor_url, floor_api_url = mount_floor()

    def timed(call, undo=None, status=200) -> dict:
        """A measurement: ``call`` timed (then ``undo`` untimed) once a round, in turn with the others."""
        return {"call": call, "undo": undo, "status": status, "times": [], "cpu": [], "size": 0}

    def run_rounds(measurements: dict) -> None:
        """Every measurement of ``measurements`` once a round, ``args.requests`` rounds, after ten warm-up rounds:
        each request and its floor meet the machine in the same state (a busy moment, a GC pause, the other
        core's work), so the ratios of one run are steadier than when each request's hundred ran in a block of
        its own."""
        for round_number in range(10 + args.requests):
            for measurement in measurements.values():
                start, start_cpu = time.perf_counter(), time.thread_time()
                response = measurement["call"]()
                elapsed, elapsed_cpu = time.perf_counter() - start, time.thread_time() - start_cpu
                assert response.status_code == measurement["status"], response.status_code
                if round_number >= 10:
                    measurement["times"].append(elapsed * 1000)
                    measurement["cpu"].append(elapsed_cpu * 1000)
                    measurement["size"] = len(response.content)
                if measurement["undo"]:
                    measurement["undo"]()

    def undo_last():
        services.hand_remove_last(game=game)

    def undo_board():
        services.hand_remove_last(game=partners)

    api_hands = f"/api/games/{game.pk}/hands/"
    api_boards = f"/api/games/{partners.pk}/hands/"
    # The next board (board 1 of the next deal: the game holds whole deals) between its board's two players.
    next_deal = partners.hand_count // 2 + 1
    from scoring.engine.partnership import board_pairs

    board_one = board_pairs(partners.rule_set, partners.player_ids, next_deal)[0]
    board = {"board": 1, "number": next_deal, "ending": "knock", "by": board_one[0], "knocker_deadwood": 3,
             "defender_deadwood": 5}  # fmt: skip

    record_form = {**hand, "action": "save", "expected_number": args.hands + 1}
    measurements = {
        "scoresheet page (GET)": timed(lambda: client.get(sheet_url)),
        "record hand (htmx POST, sheet partial)": timed(
            lambda: client.post(record_url, **as_form(record_form), HTTP_HX_REQUEST="true"),
            undo=undo_last,
        ),
        "preview (htmx POST)": timed(lambda: client.post(preview_url, **as_form(hand), HTTP_HX_REQUEST="true")),
        # Issue 41: a partnership board costs about what a hand of two costs, through the same API POST.
        "record hand (API POST, 60-hand sitting)": timed(
            lambda: client.post(api_hands, {**hand, "number": args.hands + 1}, content_type="application/json"),
            undo=undo_last,
            status=201,
        ),
        "record board (API POST, partnership)": timed(
            lambda: client.post(api_boards, board, content_type="application/json"), undo=undo_board, status=201
        ),
        "games list (GET /)": timed(lambda: client.get(reverse("home"))),
        "new game page (GET)": timed(lambda: client.get(reverse("game_new"))),
        # Every signed-in page's "Needs you" badge, fetched again on every change in the viewer's clubs.
        "to-do badge (GET /todo/count/)": timed(lambda: client.get(reverse("todo_count"))),
        "floor: bare Django view (GET)": timed(lambda: client.get(floor_url)),
        "floor: bare Django view (POST)": timed(
            lambda: client.post(floor_url, **as_form(hand), HTTP_HX_REQUEST="true")
        ),
        "floor: bare DRF POST (JSON)": timed(
            lambda: client.post(floor_api_url, hand, content_type="application/json"), status=201
        ),
    }
    # Two sets of rounds, each request beside its floor: the reads (a write in their rounds would move the
    # sitting's version, and every scoresheet GET would draw the sheet anew instead of the one kept for its
    # version), then the writes and the preview, each write undone.
    reads = ("scoresheet page (GET)", "games list (GET /)", "new game page (GET)", "to-do badge (GET /todo/count/)",
             "floor: bare Django view (GET)")  # fmt: skip
    run_rounds({name: measurements[name] for name in reads})
    run_rounds({name: measurement for name, measurement in measurements.items() if name not in reads})
    results = {name: (measurement["times"], measurement["size"]) for name, measurement in measurements.items()}
    # CPU: this thread's time, the in-process server's work.
    cpu_p50 = {name: statistics.median(measurement["cpu"]) for name, measurement in measurements.items()}
    print(f"\n{'response':42} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'bytes':>8} {'CPU p50':>8}")
    for name, (times, size) in results.items():
        print(
            f"{name:42} {statistics.median(times):8.2f} {percentile(times, 0.95):8.2f} {max(times):8.2f} "
            f"{size:8d} {cpu_p50[name]:8.2f}"
        )
    sheet_p95 = percentile(results["scoresheet page (GET)"][0], 0.95)
    record_p95 = percentile(results["record hand (htmx POST, sheet partial)"][0], 0.95)
    biggest = max(size for _, size in results.values())
    print(
        f"\ntargets: p95 < 30 ms -> scoresheet {sheet_p95:.1f} ms, record {record_p95:.1f} ms; "
        f"page < 60 KB -> largest {biggest / 1024:.1f} KB"
    )
    p50 = {name: statistics.median(times) for name, (times, _) in results.items()}
    sheet, record = p50["scoresheet page (GET)"], p50["record hand (htmx POST, sheet partial)"]
    bare_get, bare_post = p50["floor: bare Django view (GET)"], p50["floor: bare Django view (POST)"]
    print(
        f"ratio to the floor (p50): scoresheet GET / bare GET {sheet / bare_get:.1f}x; "
        f"hand POST / bare POST {record / bare_post:.1f}x "
        f"(/ bare DRF POST {record / p50['floor: bare DRF POST (JSON)']:.1f}x)"
    )
    # Issue 40's targets: a page with nothing of its own <= 3x the bare view, the hot paths <= 6x. On a
    # shared machine the wall-clock p50 waits for the CPU too: the CPU ratio is the steadier figure.
    for name, floor_name, target in (
        ("games list (GET /)", "floor: bare Django view (GET)", 3),
        ("new game page (GET)", "floor: bare Django view (GET)", 3),
        ("to-do badge (GET /todo/count/)", "floor: bare Django view (GET)", 3),
        ("scoresheet page (GET)", "floor: bare Django view (GET)", 6),
        ("record hand (htmx POST, sheet partial)", "floor: bare Django view (POST)", 6),
    ):
        ratio, cpu_ratio = p50[name] / p50[floor_name], cpu_p50[name] / cpu_p50[floor_name]
        print(
            f"  {name:40} {ratio:5.1f}x the bare view (CPU {cpu_ratio:5.1f}x; target <= {target}x)"
            f"{'' if max(ratio, cpu_ratio) <= target else '  OVER'}"
        )
    hand_api, board_api = "record hand (API POST, 60-hand sitting)", "record board (API POST, partnership)"
    print(
        f"partnership board / hand of two (API POST, p50): wall {p50[board_api] / p50[hand_api]:.2f}x, "
        f"CPU {cpu_p50[board_api] / cpu_p50[hand_api]:.2f}x ({cpu_p50[board_api]:.2f} v {cpu_p50[hand_api]:.2f} ms)"
    )
    print(f"({args.requests} timed requests each, taken in turn, django.test.Client in-process; "
          "static files not counted)")  # fmt: skip


if __name__ == "__main__":
    main()
