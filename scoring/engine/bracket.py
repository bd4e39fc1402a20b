"""A knockout bracket, derived from the seeds and the games played (pure Python).

Only facts go in: the entrants in seed order and the finished games (who
played whom, who won). Everything else, the draw, the byes, who meets whom
next, each tie's score and the champion, is worked out here every time, so a
corrected or removed result moves the whole bracket with it.

The draw is the standard seeded one: seed 1 meets the lowest seed, and seeds
1 and 2 can only meet in the final. A field that is not a power of two gets
byes, which go to the top seeds (a bye is a walkover into round 2).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from scoring.engine.text import _


@dataclass(frozen=True)
class TieGame:
    """One finished game between two entrants; ``winner`` is None for a level game."""

    key: Hashable  # the game's id, so a page can link to it
    one: Hashable
    two: Hashable
    winner: Hashable | None


@dataclass
class Tie:
    """One meeting in the bracket: two slots, the games between them, and who went through."""

    round: int  # 1 = the first round; the last round is the final
    index: int  # 0-based position in its round (top of the bracket first)
    one: Hashable | None = None  # None: a bye, or not decided yet (see ``bye``)
    two: Hashable | None = None
    seed_one: int | None = None
    seed_two: int | None = None
    bye: bool = False  # one slot is a bye: the other entrant goes through without playing
    wins_one: int = 0
    wins_two: int = 0
    games: list[Hashable] = field(default_factory=list)  # keys of the games that count, in order
    winner: Hashable | None = None

    @property
    def ready(self) -> bool:
        """Both entrants are known and the tie is not decided: a game is due."""
        return self.one is not None and self.two is not None and self.winner is None

    def has(self, a: Hashable, b: Hashable) -> bool:
        return {a, b} == {self.one, self.two}


@dataclass
class Bracket:
    entrants: int
    size: int  # the next power of two: entrants + byes
    best_of: int
    rounds: list[list[Tie]]
    champion: Hashable | None = None
    unplaced: list[Hashable] = field(default_factory=list)  # keys of games that belong to no tie

    @property
    def wins_needed(self) -> int:
        return self.best_of // 2 + 1

    def tie_of(self, a: Hashable, b: Hashable) -> Tie | None:
        """The tie ``a`` and ``b`` meet in, if they do (two entrants meet at most once)."""
        for ties in self.rounds:
            for tie in ties:
                if tie.has(a, b):
                    return tie
        return None

    def ready_ties(self) -> list[Tie]:
        return [tie for ties in self.rounds for tie in ties if tie.ready]


def round_name(number: int, rounds: int) -> str:
    """ "Final", "Semi-finals", "Quarter-finals", else "Round N"."""
    from_end = rounds - number
    if from_end == 0:
        return _("Final")
    if from_end == 1:
        return _("Semi-finals")
    if from_end == 2:
        return _("Quarter-finals")
    return _("Round %(number)s") % {"number": number}


def seed_positions(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a power-of-two ``size``: [1, 8, 4, 5, 2, 7, 3, 6] for 8.

    Each round-1 pair adds up to ``size + 1``, and the top half holds seed 1, the bottom seed 2.
    """
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def bracket(seeds: Sequence[Hashable], games: Iterable[TieGame], *, best_of: int = 1) -> Bracket:
    """The bracket of ``seeds`` (best seed first) after ``games`` (finished games, oldest first).

    A tie is won by the first entrant to win ``best_of // 2 + 1`` of its games
    (``best_of`` 1: the single game, played to the target). A level game counts
    for neither. Games after a tie is decided, and games between entrants who
    do not meet (yet), are listed in ``unplaced`` and change nothing.
    """
    entrants = list(seeds)
    if len(entrants) < 2:
        raise ValueError("a knockout needs at least two entrants")
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant is seeded twice")
    if best_of < 1 or best_of % 2 == 0:
        raise ValueError("best_of must be an odd number from 1")
    size = 1
    while size < len(entrants):
        size *= 2
    needed = best_of // 2 + 1
    by_pair: dict[frozenset, list[TieGame]] = {}
    for game in games:
        by_pair.setdefault(frozenset((game.one, game.two)), []).append(game)
    placed: set[Hashable] = set()

    def settle(tie: Tie) -> None:
        if tie.one is None or tie.two is None:
            return
        for game in by_pair.get(frozenset((tie.one, tie.two)), []):
            if tie.winner is not None:
                break
            tie.games.append(game.key)
            placed.add(game.key)
            if game.winner == tie.one:
                tie.wins_one += 1
            elif game.winner == tie.two:
                tie.wins_two += 1
            if tie.wins_one >= needed:
                tie.winner = tie.one
            elif tie.wins_two >= needed:
                tie.winner = tie.two

    seed_of = {player: number for number, player in enumerate(entrants, start=1)}
    slots = [entrants[seed - 1] if seed <= len(entrants) else None for seed in seed_positions(size)]
    rounds: list[list[Tie]] = []
    first: list[Tie] = []
    for index in range(size // 2):
        one, two = slots[2 * index], slots[2 * index + 1]
        tie = Tie(round=1, index=index, one=one, two=two, bye=one is None or two is None)
        tie.seed_one = seed_of.get(one) if one is not None else None
        tie.seed_two = seed_of.get(two) if two is not None else None
        if tie.bye:
            tie.winner = one if one is not None else two
        else:
            settle(tie)
        first.append(tie)
    rounds.append(first)
    while len(rounds[-1]) > 1:
        previous = rounds[-1]
        ties: list[Tie] = []
        for index in range(len(previous) // 2):
            upper, lower = previous[2 * index], previous[2 * index + 1]
            tie = Tie(round=len(rounds) + 1, index=index, one=upper.winner, two=lower.winner)
            tie.seed_one = seed_of.get(tie.one) if tie.one is not None else None
            tie.seed_two = seed_of.get(tie.two) if tie.two is not None else None
            settle(tie)
            ties.append(tie)
        rounds.append(ties)
    unplaced = [game.key for pair_games in by_pair.values() for game in pair_games if game.key not in placed]
    return Bracket(
        entrants=len(entrants),
        size=size,
        best_of=best_of,
        rounds=rounds,
        champion=rounds[-1][0].winner,
        unplaced=unplaced,
    )
