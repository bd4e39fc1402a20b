"""Round-robin fixtures by the circle method (pure Python)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def round_robin(players: Sequence[Any], *, double: bool = False) -> list[list[tuple[Any, Any]]]:
    """Rounds of (home, away) pairs by the circle method.

    Every pair meets once (twice with ``double``, home and away swapped in the
    second half) and nobody plays twice in a round; with an odd number of
    players one sits out each round.
    """
    entrants: list[Any] = list(players)
    if len(set(entrants)) != len(entrants):
        raise ValueError("a player is listed twice")
    if len(entrants) < 2:
        return []
    bye = object()
    if len(entrants) % 2:
        entrants.append(bye)
    count = len(entrants)
    rounds: list[list[tuple[Any, Any]]] = []
    circle = entrants[:]
    for number in range(count - 1):
        pairs = []
        for i in range(count // 2):
            home, away = circle[i], circle[count - 1 - i]
            if i == 0 and number % 2:  # the fixed player alternates home and away
                home, away = away, home
            if home is not bye and away is not bye:
                pairs.append((home, away))
        rounds.append(pairs)
        circle = [circle[0], circle[-1], *circle[1:-1]]  # rotate all but the first
    if double:
        rounds += [[(away, home) for home, away in pairs] for pairs in rounds]
    return rounds
