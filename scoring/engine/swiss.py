"""Swiss pairing for a club night: the next round's pairings, tables and bye (pure Python).

Only facts go in: the players present (their match points, net points, rating,
whether they already had a bye, a fixed table they need) and the pairs that
have already played each other tonight. Out comes the next round: the
pairings with their table numbers and, for an odd field, the one bye.

The order of the field (its ranking) is the standings: match points, then net
points, then rating, then the player's id (so the same inputs always give the
same order). While nobody has played yet (the first round) the order is by
rating (``first_round="rating"``), or a shuffle drawn from ``seed``
(``first_round="random"``): the same seed and players give the same draw.

**What a pairing costs**, in strict order of importance (each criterion only
decides between pairings level on all those before it):

1. **Rematches**: the number of pairs who have played each other already. None,
   whenever a pairing without one exists.
2. **The bye** (odd field only) goes to a player who has not had one (everyone
   has had one: to anyone); that is never broken, not even to avoid a rematch.
   Of those, to the lowest-ranked; to a higher-ranked one only when that avoids a
   rematch. Its cost is the number of such players ranked below the one who gets it.
3. **Score-group gaps**: the players with equal match points form a score group;
   a pairing's gap is how many groups apart its two players are (0: the same
   group, 1: the next group, ...), counted among the groups of the players
   present. The cost is the sum of the squared gaps, so one player floating two
   groups down costs more than two players floating one.
4. **Preference inside a group** (decides nothing above): the lowest-ranked
   players float down to the next group, and inside a group of 2h players ranked
   1..2h, 1 meets h+1, 2 meets h+2, ... (the Swiss "fold").

As matching weights (networkx's ``max_weight_matching``, a blossom algorithm,
maximising the total weight of a matching of the largest size): every edge
weighs a large constant minus its cost, each criterion scaled by a factor larger
than the most all later criteria can add up to over the round, so the heaviest
matching is the cheapest pairing in that order. The bye is a virtual player,
joined only to the players who may take it.

**Score group by score group.** One matching over the whole field grows with the
cube of its size (6.7 s at 256 players), so a round is paired group by group
from the top, as Swiss systems do: each group with the players floating down
into it, on a sparse graph (edges only between players who have not met, and
inside a large group only near each player's fold partner). Who cannot be
paired floats down into the next group. This pass is the cheapest pairing
whenever it has no rematch and each boundary between groups is crossed by no
more players than the parity of the field above it forces (then no pairing
can do better on 1-3). When it falls short (a small field whose players have met
most of the others), the whole field is paired in one matching
(:func:`pair_whole_field`), which is then small and quick.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from scoring.engine.text import _, gettext_noop

FIRST_ROUND_ORDERS = ("rating", "random")
BYE_MATCH_POINTS = 1  # a bye scores one match point and no net points
_FOLD_WINDOW = 6  # inside a large group: edges to the players this near each player's fold partner
_BYE = ("bye",)  # the virtual player the bye is paired with in a whole-field matching


@dataclass(frozen=True)
class Entrant:
    """One player present tonight, as the pairing sees them."""

    id: Hashable  # ints or strings, all of one kind (they break the last ties)
    match_points: float = 0
    net_points: int = 0
    rating: float = 0
    had_bye: bool = False
    fixed_table: int | None = None  # this player's table, always (accessibility)


@dataclass(frozen=True)
class Pairing:
    """Two players at a table; ``one`` is the higher-ranked."""

    table: int
    one: Hashable
    two: Hashable


@dataclass(frozen=True)
class Round:
    """The next round: pairings by table, the bye (None for an even field), and what it costs."""

    pairings: tuple[Pairing, ...]
    bye: Hashable | None = None
    rematches: tuple[frozenset, ...] = ()  # pairs who meet again (only when no pairing avoids it)
    unmet_table_wishes: tuple[Hashable, ...] = ()  # fixed tables that could not be given (taken already)
    order: tuple[Hashable, ...] = field(default=(), repr=False)  # the ranking the round was paired by

    def opponents(self) -> dict[Hashable, Hashable]:
        """Each paired player's opponent."""
        found = {}
        for pairing in self.pairings:
            found[pairing.one] = pairing.two
            found[pairing.two] = pairing.one
        return found


class PairingError(ValueError):
    """Input the pairing cannot use; ``field`` names what is wrong.

    ``message`` names players by their ids; ``said(name_of)`` says it again with each player named by
    ``name_of(id)`` (the app's names), built from the players, never by replacing digits in the text.
    """

    def __init__(self, field_name: str, message: str, *, template: str = "", players=None, values=None):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message
        self.template, self.players, self.values = template, dict(players or {}), dict(values or {})

    @classmethod
    def naming(cls, field_name: str, template: str, players: dict, **values) -> PairingError:
        """A refusal about ``players`` ({placeholder: id}); ``template`` marked with gettext_noop."""
        message = _(template) % {**values, **{key: repr(player) for key, player in players.items()}}
        return cls(field_name, message, template=template, players=players, values=values)

    def said(self, name_of: Callable[[Hashable], str]) -> str:
        """The message in the active language, each player named by ``name_of``."""
        if not self.template:
            return self.message
        return _(self.template) % {**self.values, **{key: name_of(player) for key, player in self.players.items()}}


# --- the order of the field -------------------------------------------------------------------


def ranking(
    entrants: Iterable[Entrant],
    played: Iterable[Iterable[Hashable]] = (),
    *,
    first_round: str = "rating",
    seed: int | str = 0,
) -> list[Entrant]:
    """The field in pairing order (best first): standings, or the first round's order."""
    field_ = _checked(entrants)
    if first_round not in FIRST_ROUND_ORDERS:
        raise PairingError(
            "first_round",
            _("is %(value)s, not one of %(allowed)s")
            % {"value": repr(first_round), "allowed": ", ".join(FIRST_ROUND_ORDERS)},
        )
    if not _pairs(played) and first_round == "random":
        ids = sorted(entrant.id for entrant in field_)
        random.Random(seed).shuffle(ids)
        drawn = {player: place for place, player in enumerate(ids)}
        return sorted(field_, key=lambda e: (-e.match_points, -e.net_points, drawn[e.id]))
    return sorted(field_, key=lambda e: (-e.match_points, -e.net_points, -e.rating, e.id))


def _checked(entrants: Iterable[Entrant]) -> list[Entrant]:
    field_ = list(entrants)
    seen = set()
    for entrant in field_:
        if entrant.id in seen:
            raise PairingError.naming("players", gettext_noop("%(player)s is listed twice"), {"player": entrant.id})
        seen.add(entrant.id)
        if entrant.fixed_table is not None and entrant.fixed_table < 1:
            raise PairingError.naming(
                "fixed_table",
                gettext_noop("%(table)s for %(player)s: tables are numbered from 1"),
                {"player": entrant.id},
                table=entrant.fixed_table,
            )
    return field_


def _pairs(played: Iterable[Iterable[Hashable]]) -> set[frozenset]:
    return {frozenset(pair) for pair in played}


def _groups(order: Sequence[Entrant]) -> dict[Hashable, int]:
    """Each player's score group: 0 for the most match points, then 1, 2, ..."""
    levels = sorted({entrant.match_points for entrant in order}, reverse=True)
    index = {points: number for number, points in enumerate(levels)}
    return {entrant.id: index[entrant.match_points] for entrant in order}


def _bye_candidates(order: Sequence[Entrant]) -> list[Entrant]:
    """Who may take the bye, best first: those who have not had one (or, if all have, everyone)."""
    return [entrant for entrant in order if not entrant.had_bye] or list(order)


# --- the cost of a round (the weights' criteria 1-3) ---------------------------------------------


@dataclass(frozen=True, order=True)
class Cost:
    """A round's cost, compared in order: rematches, then the bye, then score-group gaps (0 is best)."""

    rematches: int
    bye: int
    gaps: int


def round_cost(
    pairs: Iterable[tuple[Hashable, Hashable]],
    bye: Hashable | None,
    entrants: Iterable[Entrant],
    played: Iterable[Iterable[Hashable]],
    *,
    first_round: str = "rating",
    seed: int | str = 0,
) -> Cost:
    """What a pairing costs by the criteria in this module's docstring."""
    played = list(played)
    order = ranking(entrants, played, first_round=first_round, seed=seed)
    met = _pairs(played)
    group = _groups(order)
    bye_cost = 0
    if bye is not None:
        candidates = [entrant.id for entrant in _bye_candidates(order)]
        bye_cost = len(candidates) - 1 - candidates.index(bye) if bye in candidates else len(order)
    pairs = list(pairs)
    return Cost(
        rematches=sum(frozenset(pair) in met for pair in pairs),
        bye=bye_cost,
        gaps=sum((group[one] - group[two]) ** 2 for one, two in pairs),
    )


# --- pairing ------------------------------------------------------------------------------------


def pair_round(
    entrants: Iterable[Entrant],
    played: Iterable[Iterable[Hashable]] = (),
    *,
    first_round: str = "rating",
    seed: int | str = 0,
) -> Round:
    """The next round, paired score group by score group (see the module's docstring)."""
    order = ranking(entrants, played, first_round=first_round, seed=seed)
    met = _pairs(played)
    group = _groups(order)
    bye = _bye_candidates(order)[-1].id if len(order) % 2 else None
    rest = [entrant for entrant in order if entrant.id != bye]
    pairs = _pair_by_groups(rest, group, met)
    if pairs is None or not _best_possible(pairs, rest, group, met):
        return pair_whole_field(order, met, first_round=first_round, seed=seed)
    return _finish(pairs, bye, order, met)


def pair_whole_field(
    entrants: Iterable[Entrant],
    played: Iterable[Iterable[Hashable]] = (),
    *,
    first_round: str = "rating",
    seed: int | str = 0,
) -> Round:
    """The next round from one matching over the whole field: the reference, and the fallback."""
    order = ranking(entrants, played, first_round=first_round, seed=seed)
    met = _pairs(played)
    group = _groups(order)
    position = {entrant.id: place for place, entrant in enumerate(order)}
    members: dict[int, list[Hashable]] = {}
    for entrant in order:
        members.setdefault(group[entrant.id], []).append(entrant.id)
    size = len(order) + 1
    pair_count = size // 2 + 1
    # Each criterion's unit beats the most that all later criteria can add up to over the round.
    tie_unit = 1
    gap_unit = pair_count * size * size * tie_unit + 1
    bye_unit = pair_count * len(members) ** 2 * gap_unit + gap_unit
    rematch_unit = size * bye_unit + bye_unit
    base = 2 * rematch_unit

    def preference(one: Hashable, two: Hashable) -> int:
        """Criterion 4: the fold inside a group; across groups, the lowest floats to the highest."""
        ranks_one, ranks_two = members[group[one]], members[group[two]]
        if ranks_one is ranks_two:
            half = len(ranks_one) // 2
            return (abs(ranks_one.index(one) - ranks_one.index(two)) - half) ** 2
        return (len(ranks_one) - 1 - ranks_one.index(one)) + ranks_two.index(two)

    graph = nx.Graph()
    ids = [entrant.id for entrant in order]
    for i, one in enumerate(ids):
        for two in ids[i + 1 :]:
            cost = (
                rematch_unit * (frozenset((one, two)) in met)
                + gap_unit * (group[one] - group[two]) ** 2
                + tie_unit * preference(one, two)
            )
            graph.add_edge(one, two, weight=base - cost)
    if len(ids) % 2:
        candidates = [entrant.id for entrant in _bye_candidates(order)]
        for below, player in enumerate(reversed(candidates)):
            graph.add_edge(_BYE, player, weight=base - bye_unit * below)
    bye = None
    pairs = []
    for one, two in nx.max_weight_matching(graph, maxcardinality=True):
        if _BYE in (one, two):
            bye = two if one == _BYE else one
        else:
            pairs.append((one, two) if position[one] < position[two] else (two, one))
    return _finish(pairs, bye, order, met)


def _pair_by_groups(
    players: Sequence[Entrant], group: dict[Hashable, int], met: set[frozenset]
) -> list[tuple[Hashable, Hashable]] | None:
    """Pairs found group by group from the top, with floaters; None when the last players cannot be paired."""
    pairs: list[tuple[Hashable, Hashable]] = []
    floating: list[Hashable] = []
    by_group: dict[int, list[Hashable]] = {}
    for entrant in players:
        by_group.setdefault(group[entrant.id], []).append(entrant.id)
    for number in sorted(by_group):
        pool = floating + by_group[number]
        found = _pair_pool(pool, met, dense=False)
        if len(found) < len(pool) // 2 and len(pool) > 2 * _FOLD_WINDOW + 2:
            found = _pair_pool(pool, met, dense=True)  # the sparse graph missed a pairing the full one may have
        paired = {player for pair in found for player in pair}
        pairs += found
        floating = [player for player in pool if player not in paired]
    return None if floating else pairs


def _pair_pool(pool: Sequence[Hashable], met: set[frozenset], *, dense: bool) -> list[tuple[Hashable, Hashable]]:
    """The most pairs inside one pool (ranked best first), the lowest-ranked left over, by the fold."""
    size = len(pool)
    half = size // 2
    if all(frozenset((pool[i], pool[i + half])) not in met for i in range(half)):
        return [(pool[i], pool[i + half]) for i in range(half)]  # the fold itself: the cheapest there is
    tie_unit = 1
    keep_unit = (half + 1) * size * size * tie_unit + 1  # keeping the higher-ranked paired beats the fold
    graph = nx.Graph()
    for i in range(size):
        if dense or size <= 2 * _FOLD_WINDOW + 2:
            partners = range(i + 1, size)
        else:
            near = set()
            for centre in (i - half, i, i + half):
                near.update(range(max(i + 1, centre - _FOLD_WINDOW), min(size, centre + _FOLD_WINDOW + 1)))
            partners = sorted(near)
        for j in partners:
            if frozenset((pool[i], pool[j])) in met:
                continue
            weight = keep_unit * ((size - i) + (size - j)) - tie_unit * (j - i - half) ** 2
            graph.add_edge(i, j, weight=weight)
    matched = sorted((min(i, j), max(i, j)) for i, j in nx.max_weight_matching(graph, maxcardinality=True))
    return [(pool[i], pool[j]) for i, j in matched]


def _best_possible(
    pairs: Sequence[tuple[Hashable, Hashable]],
    players: Sequence[Entrant],
    group: dict[Hashable, int],
    met: set[frozenset],
) -> bool:
    """Whether no pairing of these players can cost less: no rematch, and no more floating than parity forces.

    A pairing's squared gaps add up to at least its plain gaps, which are the number of pairs
    crossing each boundary between groups; each boundary is crossed at least once when an odd
    number of players sit above it. Reaching that bound with no rematch is the cheapest possible.
    """
    if any(frozenset(pair) in met for pair in pairs):
        return False
    sizes: dict[int, int] = {}
    for entrant in players:
        sizes[group[entrant.id]] = sizes.get(group[entrant.id], 0) + 1
    above = 0
    least = 0
    for number in sorted(sizes)[:-1]:
        above += sizes[number]
        least += above % 2
    return sum((group[one] - group[two]) ** 2 for one, two in pairs) == least


def _finish(
    pairs: Sequence[tuple[Hashable, Hashable]], bye: Hashable | None, order: Sequence[Entrant], met: set[frozenset]
) -> Round:
    """Number the tables: fixed tables first, then the top pairings on the lowest free numbers."""
    position = {entrant.id: place for place, entrant in enumerate(order)}
    wish = {entrant.id: entrant.fixed_table for entrant in order if entrant.fixed_table is not None}
    ranked = sorted(
        ((one, two) if position[one] < position[two] else (two, one) for one, two in pairs),
        key=lambda pair: position[pair[0]],
    )
    table_of: dict[tuple, int] = {}
    taken: set[int] = set()
    unmet = []
    # Wishes by rank: when two players need the same table, the higher-ranked one gets it.
    for player in sorted(wish, key=position.__getitem__):
        pair = next((pair for pair in ranked if player in pair), None)
        if pair is None:
            continue  # the bye: no table
        if pair in table_of or wish[player] in taken:
            if table_of.get(pair) != wish[player]:
                unmet.append(player)
            continue
        table_of[pair] = wish[player]
        taken.add(wish[player])
    free = (number for number in range(1, len(ranked) + len(taken) + 1) if number not in taken)
    for pair in ranked:
        if pair not in table_of:
            table_of[pair] = next(free)
    pairings = tuple(sorted((Pairing(table_of[pair], *pair) for pair in ranked), key=lambda p: p.table))
    return Round(
        pairings=pairings,
        bye=bye,
        rematches=tuple(frozenset(pair) for pair in ranked if frozenset(pair) in met),
        unmet_table_wishes=tuple(unmet),
        order=tuple(entrant.id for entrant in order),
    )


# --- the organiser's hand -------------------------------------------------------------------------


def swap_players(round_: Round, one: Hashable, two: Hashable, played: Iterable[Iterable[Hashable]] = ()) -> Round:
    """The round with two players' places exchanged (either may be the bye); tables stay put."""
    seats = {pairing.one for pairing in round_.pairings} | {pairing.two for pairing in round_.pairings}
    if round_.bye is not None:
        seats.add(round_.bye)
    for name, player in (("one", one), ("two", two)):
        if player not in seats:
            raise PairingError.naming(name, gettext_noop("%(player)s is not in this round"), {"player": player})
    if one == two or round_.opponents().get(one) == two:
        raise PairingError.naming(
            "two",
            gettext_noop("%(two)s already sits opposite %(one)s: swapping them changes nothing"),
            {"two": two, "one": one},
        )

    def moved(player: Hashable) -> Hashable:
        return two if player == one else one if player == two else player

    met = _pairs(played)
    place = {player: number for number, player in enumerate(round_.order)}
    pairings = tuple(
        Pairing(pairing.table, *sorted((moved(pairing.one), moved(pairing.two)), key=lambda p: place.get(p, 0)))
        for pairing in round_.pairings
    )
    return Round(
        pairings=pairings,
        bye=moved(round_.bye) if round_.bye is not None else None,
        rematches=tuple(frozenset((p.one, p.two)) for p in pairings if frozenset((p.one, p.two)) in met),
        unmet_table_wishes=round_.unmet_table_wishes,
        order=round_.order,
    )


def swap_creates_rematch(round_: Round, one: Hashable, two: Hashable, played: Iterable[Iterable[Hashable]]) -> bool:
    """Whether exchanging these two players would seat someone opposite a player they have met already."""
    before = set(round_.rematches)
    return bool(set(swap_players(round_, one, two, played).rematches) - before)
