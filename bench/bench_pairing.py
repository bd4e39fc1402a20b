"""Benchmark for Swiss pairing (scoring.engine.swiss): the time to pair round 5 of a club night. No Django needed.

    .venv/bin/python bench/bench_pairing.py [--sizes 16 64 256 1000] [--seed N]

For each field size a night is played out from a seeded RNG before timing
starts: four rounds paired by the engine, each game won by either player at
random with a random margin (playing them out is not timed). Then round 5 is
paired, a few times, and the best time is printed (least disturbed by other
load) with the whole-field matching's time beside it where that is quick
enough to run. Targets (issue #28): under 1 s at 256 players, under 10 s at
1,000.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.engine.swiss import BYE_MATCH_POINTS, Entrant, pair_round, pair_whole_field, round_cost  # noqa: E402

TARGETS = {256: 1.0, 1000: 10.0}
WHOLE_FIELD_UP_TO = 128  # the whole-field matching grows with the cube: 6.7 s at 256 players


def night_before_round(size: int, rounds_played: int, rng: random.Random):
    """The field and the pairs played after ``rounds_played`` rounds of random results."""
    players = {
        number: Entrant(number, rating=round(rng.gauss(1500, 200)))
        for number in range(1, size + 1)
    }
    played = set()
    for _ in range(rounds_played):
        this = pair_round(players.values(), played)
        for pairing in this.pairings:
            winner, loser = (pairing.one, pairing.two) if rng.random() < 0.5 else (pairing.two, pairing.one)
            margin = rng.randint(20, 250)
            players[winner] = dataclasses.replace(
                players[winner], match_points=players[winner].match_points + 1,
                net_points=players[winner].net_points + margin,
            )
            players[loser] = dataclasses.replace(players[loser], net_points=players[loser].net_points - margin)
            played.add(frozenset((pairing.one, pairing.two)))
        if this.bye is not None:
            players[this.bye] = dataclasses.replace(
                players[this.bye], match_points=players[this.bye].match_points + BYE_MATCH_POINTS, had_bye=True,
            )
    return list(players.values()), played


def best_time(pair, field, played, repeats):
    best = float("inf")
    result = None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = pair(field, played)
        best = min(best, time.perf_counter() - start)
    return best, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 256, 1000])
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}; seed {args.seed}; round 5 of each night")
    t_total = time.perf_counter()
    for size in args.sizes:
        field, played = night_before_round(size, 4, random.Random(args.seed * 100_003 + size))
        repeats = 5 if size <= 64 else 3 if size <= 256 else 1
        seconds, paired = best_time(pair_round, field, played, repeats)
        cost = round_cost([(p.one, p.two) for p in paired.pairings], paired.bye, field, played)
        groups = len({entrant.match_points for entrant in field})
        target = TARGETS.get(size)
        note = "" if target is None else f"  (target < {target:g} s: {'ok' if seconds < target else 'MISSED'})"
        line = (
            f"{size:>5} players, {groups} score groups: {seconds * 1000:>9.1f} ms{note}; "
            f"rematches {cost.rematches}, squared group gaps {cost.gaps}"
        )
        if size <= WHOLE_FIELD_UP_TO:
            whole_seconds, whole = best_time(pair_whole_field, field, played, 1)
            whole_cost = round_cost([(p.one, p.two) for p in whole.pairings], whole.bye, field, played)
            line += f"; whole field in one matching {whole_seconds * 1000:.1f} ms, squared gaps {whole_cost.gaps}"
        print(line)
    print(f"total benchmark time {time.perf_counter() - t_total:.1f} s")


if __name__ == "__main__":
    main()
