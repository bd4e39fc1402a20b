"""Elo ratings from game results, in order (pure Python, no Django).

Each finished sitting is one result: the winner scores 1, the loser 0. A
correction to a past game changes the input, and the whole history is
recomputed from the start, so ratings never drift from the results.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

INITIAL_RATING = 1500.0
K_FACTOR = 32.0


@dataclass(frozen=True)
class RatedGame:
    key: Hashable  # the game's id, so a chart point can link to its game
    winner: Hashable
    loser: Hashable


@dataclass(frozen=True)
class RatingPoint:
    key: Hashable
    rating: float
    change: float


@dataclass
class Ratings:
    current: dict[Hashable, float] = field(default_factory=dict)
    history: dict[Hashable, list[RatingPoint]] = field(default_factory=dict)

    def rating(self, player: Hashable) -> float:
        return self.current.get(player, INITIAL_RATING)


def expected_score(rating: float, opponent: float) -> float:
    """The chance the first player wins, as Elo models it."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def elo_ratings(
    games: Iterable[RatedGame], *, k_factor: float = K_FACTOR, initial: float = INITIAL_RATING
) -> Ratings:
    """Ratings after every game, in the order given (oldest first)."""
    ratings = Ratings()
    for game in games:
        winner = ratings.current.get(game.winner, initial)
        loser = ratings.current.get(game.loser, initial)
        gain = k_factor * (1.0 - expected_score(winner, loser))
        ratings.current[game.winner] = winner + gain
        ratings.current[game.loser] = loser - gain
        ratings.history.setdefault(game.winner, []).append(RatingPoint(game.key, winner + gain, gain))
        ratings.history.setdefault(game.loser, []).append(RatingPoint(game.key, loser - gain, -gain))
    return ratings
