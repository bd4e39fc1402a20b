"""Callgrind instructions per request of bench_pages' pages and hand POSTs, and of bench_load's API hand POST.

    .venv/bin/python bench/callgrind_pages.py [--requests 30] [--only floor,home,new,sheet,record,api] [--keep DIR]

Builds bench_pages' data (a 60-hand Hollywood sitting and a 60-board partnership game, signed in
as their scorer) in a throw-away SQLite database, then re-runs itself under
``valgrind --tool=callgrind --collect-atstart=no``: each page is warmed up (10 requests), then only
its N requests are counted (callgrind's client requests, from a small C helper compiled here,
turn collection on and off around them) and dumped on their own. "record" is the hand POST
(htmx, answered with the sheet's partial) of bench_pages, each hand taken back uncounted; its floor
is "floor_post", a bare Django POST of the same form (both urlencoded, as browsers and htmx send
it). "api" is bench_load's in-process API hand POST (JSON, a token and an Idempotency-Key) of the
next hand of a short club-night game (bench_load's game and hands), taken back uncounted too; its
floor is "floor_api", bench_pages' bare DRF POST with the same token (issue 40's target: the API
hand POST <= 3x it). Prints instructions per request and each page's ratio to its floor (a bare
Django GET, or POST, through the same middleware and session).
Instruction counts do not depend on the machine's load, unlike bench_pages' times; the runs use one string
hash seed and freeze the warm-up's objects out of the garbage collector, so two runs of one tree agree.
--keep keeps the callgrind files, for ``callgrind_annotate --inclusive=yes FILE`` (C functions
only: Python's own are not named there).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

HELPER_C = r"""
#include <valgrind/callgrind.h>
void counting_on(void) { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
void counting_off(const char *name) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT(name); }
void counting_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
"""
PAGES = ("floor", "home", "new", "sheet", "floor_post", "record", "floor_api", "api")
FLOOR_OF = {"record": "floor_post", "floor_post": "floor_post", "api": "floor_api", "floor_api": "floor_api"}
API_HANDS_BEFORE = 2  # the club-night game's hands before the counted one, the third (its games last about six)


def build_helper(workdir: str) -> ctypes.CDLL:
    source, library = Path(workdir, "counting.c"), Path(workdir, "counting.so")
    source.write_text(HELPER_C)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return ctypes.CDLL(str(library))


def set_up_django(workdir: str) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
    # bench_load's rates: the API's throttles count every request but refuse none of this run's.
    os.environ["API_THROTTLE_USER"] = os.environ["API_THROTTLE_ANON"] = "100000/minute"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")
    import django

    django.setup()


def build_data(workdir: str) -> None:
    """Outside valgrind (it would take minutes there): bench_pages' sitting and partnership game, and
    bench_load's club-night game (its first hands) between the API's user and another player."""
    set_up_django(workdir)
    from bench_pages import build_partnership, build_sitting
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from players.models import Player
    from scoring import services

    call_command("migrate", verbosity=0)
    user, _ = build_sitting(60)
    build_partnership(user, 60)
    api_user = get_user_model().objects.create_user("in-process")
    one, two = Player.objects.create(name="In one", user=api_user), Player.objects.create(name="In two")
    game = services.game_create(player_one=one, player_two=two, first_dealer=two, created_by=api_user)
    for facts in club_night_hands(game)[:-1]:
        services.hand_record(game=game, recorded_by=api_user, expected_number=facts.pop("number"), **facts)


def club_night_hands(game) -> list[dict]:
    """The API hand POST's game's hands as bench_load draws them: the first ones, then the counted one."""
    from bench_load import hand_body

    rng = random.Random(99)
    pair = [game.player_two_id, game.player_one_id]
    return [hand_body(rng, number, pair) for number in range(1, API_HANDS_BEFORE + 2)]


def measure(args) -> None:
    """Inside valgrind: count each page's requests."""
    set_up_django(args.workdir)
    from bench_pages import as_form, mount_floor
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse
    from rest_framework.test import APIClient

    from players.tokens import token_create
    from scoring import services
    from scoring.models import Game

    settings.ALLOWED_HOSTS.append("testserver")
    user = get_user_model().objects.get(username="bench")
    game = Game.objects.get(created_by=user, player_three__isnull=True)
    client = Client()
    client.force_login(user)
    floor_url, floor_api_url = mount_floor()
    urls = {
        "floor": floor_url,
        "home": reverse("home"),
        "new": reverse("game_new"),
        "sheet": reverse("game", args=[game.pk]),
    }
    # bench_pages' hand POST: the next hand of the sitting, answered with the sheet's partial.
    hand = {"ending": "knock", "by": game.player_one_id, "knocker_deadwood": 3, "defender_deadwood": 5}
    record = {**hand, "action": "save", "expected_number": game.hand_count + 1}
    posts = {
        "floor_post": (lambda: client.post(floor_url, **as_form(hand), HTTP_HX_REQUEST="true"), None),
        "record": (
            lambda: client.post(reverse("hand_submit", args=[game.pk]), **as_form(record), HTTP_HX_REQUEST="true"),
            lambda: services.hand_remove_last(game=game),
        ),
    }
    # bench_load's in-process API hand POST: the club-night game's next hand, each with a new Idempotency-Key.
    api_user = get_user_model().objects.get(username="in-process")
    api_game = Game.objects.get(created_by=api_user)
    api_client = APIClient()
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=api_user).key}")
    api_hand = club_night_hands(api_game)[-1]
    api_url, api_keys = f"/api/games/{api_game.pk}/hands/", itertools.count()
    posts["floor_api"] = (lambda: api_client.post(floor_api_url, {"ending": "dead"}, format="json"), None)
    posts["api"] = (
        lambda: api_client.post(api_url, api_hand, format="json", HTTP_IDEMPOTENCY_KEY=f"k{next(api_keys)}"),
        lambda: services.hand_remove_last(game=api_game),
    )
    helper = build_helper(args.workdir)
    helper.counting_off.argtypes = [ctypes.c_char_p]
    for page in args.only:
        url = urls.get(page)
        call, undo = posts.get(page, (lambda url=url: client.get(url), None))
        for _ in range(10):
            assert call().status_code in (200, 201)
            if undo:
                undo()
        # What the warm-up left is kept out of the collector's passes: a full pass over Django's heap, falling
        # inside or outside the counted requests by chance, moved a figure by 1-2M from one run to the next.
        gc.collect()
        gc.freeze()
        helper.counting_on()
        for _ in range(args.requests):
            call()
            if undo:  # taken back uncounted: the next POST is the same hand again
                helper.counting_toggle()
                undo()
                helper.counting_toggle()
        helper.counting_off(page.encode())
    print("measured", flush=True)


def total_instructions(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise ValueError(f"no totals in {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--only", default=",".join(PAGES), help=f"pages, comma-separated, of {','.join(PAGES)}")
    parser.add_argument("--keep", help="a folder to keep the callgrind files in")
    parser.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.only = [page for page in args.only.split(",") if page]
    if args.build:
        build_data(args.workdir)
        return
    if args.inside:
        measure(args)
        return
    if "DATABASE_URL" in os.environ:
        sys.exit("This benchmark builds its own SQLite database; unset DATABASE_URL.")
    workdir = tempfile.mkdtemp(prefix="ginleague-callgrind-")
    out = Path(workdir, "callgrind.out")
    subprocess.run([sys.executable, __file__, "--build", f"--workdir={workdir}"], check=True)
    command = [
        "valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}.%p",
        sys.executable, __file__, "--inside", f"--workdir={workdir}", f"--requests={args.requests}",
        f"--only={','.join(args.only)}",
    ]  # fmt: skip
    # One string hash seed for every run: dicts and sets laid out alike, so two runs of one tree count alike.
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONHASHSEED": "0"})
    dumps = {}
    for path in Path(workdir).glob("callgrind.out.*"):
        match = re.search(r"^desc: Trigger: Client Request: (\w+)", path.read_text(), re.MULTILINE)
        if match:
            dumps[match.group(1)] = path
    per_request = {page: total_instructions(dumps[page]) / args.requests for page in args.only}
    print(f"\n{'page':8} {'instructions/request':>22} {'x floor':>8}   ({args.requests} requests each, after 10)")
    for page, count in per_request.items():
        floor = FLOOR_OF.get(page, "floor")
        ratio = f"{count / per_request[floor]:8.2f}" if floor in per_request else ""
        print(f"{page:8} {count / 1e6:21.2f}M {ratio}")
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        for page, path in dumps.items():
            shutil.copy(path, Path(args.keep, f"callgrind.{page}"))
        print(f"callgrind files in {args.keep}: callgrind_annotate --inclusive=yes {args.keep}/callgrind.<page>")
    shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
