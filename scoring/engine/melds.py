"""Gin rummy meld solver: best arrangement, best discard, knock resolution.

Pure Python, standard library only (no Django).

Cards are ints 0..51 (``suit_index * 13 + rank - 1``, suits S H D C, see
``scoring.engine.cards``); every public function also accepts card text ("10H").

How it is fast
--------------
A hand is a 52-bit mask; bit ``c`` is card ``c``, so suit ``i`` is the 13-bit
slice ``(mask >> 13*i) & 0x1FFF`` with bit ``rank-1`` for each rank.

* Runs live inside one suit. Within a suit, with runs only, the best play is
  forced: every maximal block of 3+ consecutive cards is melded (one run; how
  a long block is cut into runs never changes the deadwood), every other card
  is deadwood. Tables over all 8192 suit masks give the block cards (``_RUNS``)
  and the run-only deadwood (``_RUN_DEADWOOD``).
* Sets are the only thing tying suits together: a rank held in 3 or 4 suits
  (found with a few bit operations on the four suit masks). A set rank none of
  whose cards lies in a run block is melded whole, no choice to make. Only a
  set rank that shares a card with a run block ("conflict") needs a decision:
  no set, the whole set, or (with four cards) the set of three leaving out one
  run card. Ten cards have at most three set ranks, so there are at most a few
  dozen combinations, each scored with four table look-ups.
* Random hands almost never have a conflict and are solved with about twenty
  integer operations and four look-ups, without any search.

The knock resolution uses the same decomposition: the defender's cards that
can be laid off on the knocker's runs are exactly its cards in the blocks of
(its cards | the knocker's run cards) of the same suit, and a card that can go
on a knocker's three-card set is never deadwood. So layoffs, chained layoffs
and the defender's own melds are optimised jointly, by the same enumeration of
set choices, independent of the order in which melds are listed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scoring.engine.cards import CardError, card_name, card_rank, card_value, parse_card
from scoring.engine.text import _

__all__ = [
    "MAX_CARDS",
    "Arrangement",
    "DiscardResult",
    "KnockResolution",
    "Layoff",
    "arrangement_data",
    "best_arrangement",
    "best_arrangement_mask",
    "best_discard",
    "cards_mask",
    "deadwood",
    "deadwood_mask",
    "discard_data",
    "format_arrangement",
    "format_cards",
    "format_knock",
    "knock_data",
    "knock_outcomes",
    "mask_cards",
    "meld_deadwoods",
    "resolve_knock",
]

_SUIT = 0x1FFF  # 13 bits: one suit
MAX_CARDS = 11  # best_arrangement / deadwood accept 0..11 cards


# --------------------------------------------------------------------------
# Tables over the 8192 masks of one suit
# --------------------------------------------------------------------------
def _build_tables() -> tuple[list[int], list[int], list[int]]:
    values = [min(r + 1, 10) for r in range(13)]
    val = [0] * 8192
    runs = [0] * 8192
    run_deadwood = [0] * 8192
    for x in range(1, 8192):
        low = x & -x
        val[x] = val[x ^ low] + values[low.bit_length() - 1]
    for x in range(8192):
        starts = x & (x >> 1) & (x >> 2)
        block = starts | (starts << 1) | (starts << 2)
        runs[x] = block
        run_deadwood[x] = val[x] - val[block]
    return val, runs, run_deadwood


_VAL, _RUNS, _RUN_DEADWOOD = _build_tables()
_BIT: dict[object, int] = {c: 1 << c for c in range(52)}
_BIT.update({card_name(c): 1 << c for c in range(52)})


# --------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Arrangement:
    """Melds (each a sorted tuple of cards, melds sorted by lowest rank) and deadwood."""

    melds: tuple[tuple[int, ...], ...]
    deadwood_cards: tuple[int, ...]
    deadwood: int

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(sorted([c for meld in self.melds for c in meld] + list(self.deadwood_cards)))


@dataclass(frozen=True)
class DiscardResult:
    """Best discard from 11 cards. ``discard`` is None for big gin (all 11 meld).

    ``arrangement``/``deadwood`` describe the 10 cards kept (all 11 for big gin).
    ``gin`` is true when the kept cards have no deadwood (so also for big gin).
    """

    discard: int | None
    arrangement: Arrangement
    deadwood: int
    big_gin: bool
    gin: bool


@dataclass(frozen=True)
class Layoff:
    """The defender lays ``card`` on ``knocker.melds[meld_index]``."""

    card: int
    meld_index: int


@dataclass(frozen=True)
class KnockResolution:
    knocker: Arrangement
    defender: Arrangement  # the defender's own melds; deadwood after layoffs
    layoffs: tuple[Layoff, ...]  # in a playable order
    knocker_deadwood: int
    defender_deadwood: int
    gin: bool
    legal: bool
    reason: str


# --------------------------------------------------------------------------
# Input handling
# --------------------------------------------------------------------------
def _slow_card(item: object) -> int:
    if isinstance(item, bool):
        raise CardError(_("%(item)s is not a card") % {"item": repr(item)})
    if isinstance(item, int):
        if 0 <= item < 52:
            return item
        raise CardError(_("%(item)s is not a card: card numbers are 0..51") % {"item": repr(item)})
    if isinstance(item, str):
        return parse_card(item)
    raise CardError(_("%(item)s is not a card") % {"item": repr(item)})


def cards_mask(cards: Iterable[object], *, who: str = "") -> int:
    """Cards (ints 0..51 or text like "10H") -> 52-bit mask. CardError names a bad or repeated card.

    ``who`` (already in the reader's language, e.g. "knocker") names the hand in that message.
    """
    if isinstance(cards, (str, bytes)):
        cards = cards.replace(",", " ").split() if isinstance(cards, str) else [cards]
    mask = 0
    for item in cards:
        bit = _BIT.get(item) if not isinstance(item, bool) else None
        if bit is None:
            bit = 1 << _slow_card(item)
        if mask & bit:
            card = card_name(bit.bit_length() - 1)
            if who:
                raise CardError(_("%(card)s is given twice in the %(who)s hand") % {"card": card, "who": who})
            raise CardError(_("%(card)s is given twice") % {"card": card})
        mask |= bit
    return mask


def mask_cards(mask: int) -> tuple[int, ...]:
    """52-bit mask -> sorted tuple of cards."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def _check_size(mask: int, limit: int = MAX_CARDS) -> None:
    n = mask.bit_count()
    if n > limit:
        raise CardError(_("at most %(limit)s cards can be arranged, got %(count)s") % {"limit": limit, "count": n})


# --------------------------------------------------------------------------
# Fast deadwood
# --------------------------------------------------------------------------
def deadwood_mask(mask: int) -> int:
    """Least deadwood of the cards in a 52-bit mask (0..11 cards; no validation)."""
    a = mask & 0x1FFF
    b = (mask >> 13) & 0x1FFF
    c = (mask >> 26) & 0x1FFF
    d = mask >> 39
    sets = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in 3+ suits
    if not sets:
        return _RUN_DEADWOOD[a] + _RUN_DEADWOOD[b] + _RUN_DEADWOOD[c] + _RUN_DEADWOOD[d]
    runs = _RUNS
    ra = runs[a]
    rb = runs[b]
    rc = runs[c]
    rd = runs[d]
    conflict = sets & (ra | rb | rc | rd)
    rdw = _RUN_DEADWOOD
    if not conflict:
        keep = ~sets
        return rdw[a & keep] + rdw[b & keep] + rdw[c & keep] + rdw[d & keep]
    # Melding the conflict-free set ranks is forced; remove them first.
    keep = ~(sets ^ conflict)
    a &= keep
    b &= keep
    c &= keep
    d &= keep
    if not (conflict & (conflict - 1)):
        # One contested rank (the common case): try no set, the whole set, and
        # each set of three that leaves a run card out.
        bit = conflict
        nb = ~bit
        best = rdw[a] + rdw[b] + rdw[c] + rdw[d]
        a2 = a & nb
        b2 = b & nb
        c2 = c & nb
        d2 = d & nb
        whole = rdw[a2] + rdw[b2] + rdw[c2] + rdw[d2]
        if whole < best:
            best = whole
        if a & b & c & d & bit:
            da = rdw[a2]
            db = rdw[b2]
            dc = rdw[c2]
            dd = rdw[d2]
            if ra & bit:
                v = rdw[a] + db + dc + dd
                if v < best:
                    best = v
            if rb & bit:
                v = da + rdw[b] + dc + dd
                if v < best:
                    best = v
            if rc & bit:
                v = da + db + rdw[c] + dd
                if v < best:
                    best = v
            if rd & bit:
                v = da + db + dc + rdw[d]
                if v < best:
                    best = v
        return best
    best = 999
    for ea, eb, ec, ed in _set_choices(a, b, c, d, conflict, (ra, rb, rc, rd)):
        v = rdw[a & ~ea] + rdw[b & ~eb] + rdw[c & ~ec] + rdw[d & ~ed]
        if v < best:
            best = v
    return best


def _set_choices(a: int, b: int, c: int, d: int, ranks: int, movable: tuple[int, int, int, int]):
    """Every way to meld sets at ``ranks``: 4-tuples of per-suit masks of set cards.

    Per rank: no set, the whole set, or (four cards held) three of them leaving
    out one card whose suit bit is in ``movable`` (a card that could be useful
    elsewhere; leaving out any other card only adds deadwood).
    """
    choices = [(0, 0, 0, 0)]
    ma, mb, mc, md = movable
    while ranks:
        bit = ranks & -ranks
        ranks ^= bit
        ha, hb, hc, hd = a & bit, b & bit, c & bit, d & bit
        options = [(0, 0, 0, 0), (ha, hb, hc, hd)]
        if ha and hb and hc and hd:
            if ma & bit:
                options.append((0, bit, bit, bit))
            if mb & bit:
                options.append((bit, 0, bit, bit))
            if mc & bit:
                options.append((bit, bit, 0, bit))
            if md & bit:
                options.append((bit, bit, bit, 0))
        choices = [(ca | oa, cb | ob, cc | oc, cd | od) for ca, cb, cc, cd in choices for oa, ob, oc, od in options]
    return choices


def _split(mask: int) -> tuple[int, int, int, int]:
    return mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, mask >> 39


def _set_ranks(a: int, b: int, c: int, d: int) -> int:
    return (a & b & (c | d)) | (c & d & (a | b))


def _all_choices(mask: int) -> list[tuple[int, int, int, int]]:
    """Every candidate set choice for a hand (pruned of choices that only add deadwood)."""
    a, b, c, d = _split(mask)
    sets = _set_ranks(a, b, c, d)
    runs = (_RUNS[a], _RUNS[b], _RUNS[c], _RUNS[d])
    conflict = sets & (runs[0] | runs[1] | runs[2] | runs[3])
    fixed = sets ^ conflict
    base = (a & fixed, b & fixed, c & fixed, d & fixed)
    return [
        (base[0] | ea, base[1] | eb, base[2] | ec, base[3] | ed)
        for ea, eb, ec, ed in _set_choices(a, b, c, d, conflict, runs)
    ]


def _choice_deadwood(mask: int, choice: tuple[int, int, int, int]) -> int:
    a, b, c, d = _split(mask)
    ea, eb, ec, ed = choice
    rdw = _RUN_DEADWOOD
    return rdw[a & ~ea] + rdw[b & ~eb] + rdw[c & ~ec] + rdw[d & ~ed]


def deadwood(cards: Iterable[object]) -> int:
    """Least deadwood of 0..11 cards (ints or text). CardError for a bad or repeated card."""
    if not isinstance(cards, (list, tuple)):
        return deadwood_mask(_checked(cards_mask(cards)))
    try:
        mask = sum(map(_BIT.__getitem__, cards))
    except (KeyError, TypeError):
        mask = cards_mask(cards)
    else:
        if mask.bit_count() != len(cards):  # a repeated card
            mask = cards_mask(cards)
    if mask.bit_count() > MAX_CARDS:
        _check_size(mask)
    return deadwood_mask(mask)


def _checked(mask: int) -> int:
    _check_size(mask)
    return mask


# --------------------------------------------------------------------------
# Building arrangements
# --------------------------------------------------------------------------
def _blocks(x: int) -> list[int]:
    """Maximal groups of consecutive bits of ``x``, low to high."""
    out = []
    while x:
        low = x & -x
        block = x & ~(x + low)
        out.append(block)
        x ^= block
    return out


def _meld_key(meld: tuple[int, ...]) -> tuple[int, int]:
    return (card_rank(meld[0]), meld[0])


def _arrangement(mask: int, choice: tuple[int, int, int, int]) -> Arrangement:
    melds: list[tuple[int, ...]] = []
    melded = 0
    set_cards = choice[0] | (choice[1] << 13) | (choice[2] << 26) | (choice[3] << 39)
    ranks = choice[0] | choice[1] | choice[2] | choice[3]
    rank_mask = 1 | (1 << 13) | (1 << 26) | (1 << 39)
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        group = set_cards & (rank_mask << (low.bit_length() - 1))
        melds.append(mask_cards(group))
        melded |= group
    rest = mask & ~set_cards
    for suit in range(4):
        x = (rest >> (13 * suit)) & _SUIT
        for block in _blocks(_RUNS[x]):
            cards = block << (13 * suit)
            melds.append(mask_cards(cards))
            melded |= cards
    melds.sort(key=_meld_key)
    dead = mask_cards(mask & ~melded)
    return Arrangement(tuple(melds), dead, sum(card_value(c) for c in dead))


def _best_choice(mask: int) -> tuple[int, tuple[int, int, int, int]]:
    best = None
    best_choice = (0, 0, 0, 0)
    for choice in _all_choices(mask):
        v = _choice_deadwood(mask, choice)
        if best is None or v < best:
            best, best_choice = v, choice
    return best, best_choice


def best_arrangement(cards: Iterable[object]) -> Arrangement:
    """The arrangement of 0..11 cards with the least deadwood."""
    mask = cards_mask(cards)
    _check_size(mask)
    return _arrangement(mask, _best_choice(mask)[1])


def _discard_order(card: int) -> tuple[int, int, int]:
    # Among discards that leave the same deadwood, prefer throwing the highest card.
    return (-card_value(card), -card_rank(card), card)


def best_discard(cards11: Iterable[object]) -> DiscardResult:
    """The discard from 11 cards leaving the least deadwood (None for big gin)."""
    mask = cards_mask(cards11)
    n = mask.bit_count()
    if n != 11:
        raise CardError(f"best_discard needs 11 cards, got {n}")
    if deadwood_mask(mask) == 0:
        arrangement = best_arrangement_mask(mask)
        return DiscardResult(None, arrangement, 0, True, True)
    best = None
    best_card = -1
    for card in sorted(mask_cards(mask), key=_discard_order):
        v = deadwood_mask(mask ^ (1 << card))
        if best is None or v < best:
            best, best_card = v, card
    arrangement = best_arrangement_mask(mask ^ (1 << best_card))
    return DiscardResult(best_card, arrangement, best, False, best == 0)


def best_arrangement_mask(mask: int) -> Arrangement:
    """best_arrangement for a 52-bit mask (no validation)."""
    return _arrangement(mask, _best_choice(mask)[1])


# --------------------------------------------------------------------------
# Knock resolution
# --------------------------------------------------------------------------
def _defender_choices(d4, k_runs, lay_sets):
    """Defender set choices worth trying, given the knocker's run cards and set layoff cards."""
    a, b, c, d = d4
    runs = _RUNS
    movable = (
        (runs[a | k_runs[0]] & a) | lay_sets[0],
        (runs[b | k_runs[1]] & b) | lay_sets[1],
        (runs[c | k_runs[2]] & c) | lay_sets[2],
        (runs[d | k_runs[3]] & d) | lay_sets[3],
    )
    sets = _set_ranks(a, b, c, d)
    conflict = sets & (movable[0] | movable[1] | movable[2] | movable[3])
    fixed = sets ^ conflict
    base = (a & fixed, b & fixed, c & fixed, d & fixed)
    return [
        (base[0] | ea, base[1] | eb, base[2] | ec, base[3] | ed)
        for ea, eb, ec, ed in _set_choices(a, b, c, d, conflict, movable)
    ]


def _defender_deadwood(d4, k_runs, lay_sets, choice) -> int:
    total = 0
    for x, e, k, lay in zip(d4, choice, k_runs, lay_sets, strict=True):
        x &= ~e
        total += _VAL[x & ~_RUNS[x | k] & ~lay]
    return total


def _knocker_layoff_targets(k_mask: int, d_mask: int, choice):
    """Knocker's run cards per suit, and the defender's cards that fit a knocker 3-card set."""
    k4 = _split(k_mask)
    k_runs = tuple(_RUNS[x & ~e] for x, e in zip(k4, choice, strict=True))
    d4 = _split(d_mask)
    ea, eb, ec, ed = choice
    three = (ea & eb & (ec ^ ed)) | (ec & ed & (ea ^ eb))  # ranks melded as sets of exactly three
    lay = tuple(x & three & ~e for x, e in zip(d4, choice, strict=True))
    return k_runs, lay


def _hand10(cards: Iterable[object], who: str) -> int:
    mask = cards_mask(cards, who=who)
    n = mask.bit_count()
    if n != 10:
        raise CardError(_("the %(who)s hand must have 10 cards, got %(count)s") % {"who": who, "count": n})
    return mask


def resolve_knock(
    knocker_cards: Iterable[object], defender_cards: Iterable[object], *, knock_limit: int
) -> KnockResolution:
    """Resolve a knock (or gin): both arrangements, the defender's layoffs, legality."""
    k_mask = _hand10(knocker_cards, _("knocker"))
    d_mask = _hand10(defender_cards, _("defender"))
    both = k_mask & d_mask
    if both:
        raise CardError(_("%(card)s is in both hands") % {"card": card_name(both.bit_length() - 1)})
    if isinstance(knock_limit, bool) or not isinstance(knock_limit, int) or knock_limit < 0:
        raise ValueError(f"knock_limit must be a whole number 0 or more, not {knock_limit!r}")

    choices = _all_choices(k_mask)
    scored = [(_choice_deadwood(k_mask, ch), ch) for ch in choices]
    k_dead = min(v for v, _choice in scored)
    best_k = [ch for v, ch in scored if v == k_dead]

    if k_dead == 0:
        knocker = _arrangement(k_mask, best_k[0])
        defender = best_arrangement_mask(d_mask)
        return KnockResolution(knocker, defender, (), 0, defender.deadwood, True, True, "")

    # A knocker at the table spreads to leave the least to lay off: among the
    # least-deadwood arrangements, the one whose best defence leaves the most.
    d4 = _split(d_mask)
    best = None
    for k_choice in best_k:
        k_runs, lay = _knocker_layoff_targets(k_mask, d_mask, k_choice)
        defence = None
        for d_choice in _defender_choices(d4, k_runs, lay):
            v = _defender_deadwood(d4, k_runs, lay, d_choice)
            if defence is None or v < defence[0]:
                defence = (v, k_choice, k_runs, lay, d_choice)
        if best is None or defence[0] > best[0]:
            best = defence
    d_dead, k_choice, k_runs, lay, d_choice = best
    knocker = _arrangement(k_mask, k_choice)
    defender, layoffs = _defender_result(knocker, d_mask, k_runs, lay, d_choice)
    assert defender.deadwood == d_dead, (defender, d_dead)

    if k_dead > knock_limit:
        if knock_limit == 0:
            reason = _(
                "knocking is not allowed (knock limit 0): only gin, and the knocker has %(deadwood)s deadwood"
            ) % {"deadwood": k_dead}
        else:
            reason = _("the knocker has %(deadwood)s deadwood, more than the knock limit of %(limit)s") % {
                "deadwood": k_dead,
                "limit": knock_limit,
            }
        legal = False
    else:
        reason = ""
        legal = True
    return KnockResolution(knocker, defender, layoffs, k_dead, d_dead, False, legal, reason)


def _defender_result(knocker: Arrangement, d_mask: int, k_runs, lay, d_choice):
    """Rebuild the defender's own melds and the layoffs from the chosen set choice."""
    own: list[tuple[int, ...]] = []
    melded = 0
    layoffs: list[Layoff] = []
    # Index the knocker's melds: runs by their cards mask, 3-card sets by the missing card.
    run_index: dict[int, int] = {}
    set_slot: dict[int, int] = {}
    for i, meld in enumerate(knocker.melds):
        if card_rank(meld[0]) != card_rank(meld[-1]):  # a run
            m = 0
            for c in meld:
                m |= 1 << c
            run_index[m] = i
        elif len(meld) == 3:
            suits = {c // 13 for c in meld}
            missing = ({0, 1, 2, 3} - suits).pop()
            set_slot[missing * 13 + card_rank(meld[0]) - 1] = i
    # Own sets.
    set_cards = d_choice[0] | (d_choice[1] << 13) | (d_choice[2] << 26) | (d_choice[3] << 39)
    ranks = d_choice[0] | d_choice[1] | d_choice[2] | d_choice[3]
    rank_mask = 1 | (1 << 13) | (1 << 26) | (1 << 39)
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        group = set_cards & (rank_mask << (low.bit_length() - 1))
        own.append(mask_cards(group))
        melded |= group
    # Runs and run layoffs, suit by suit.
    for suit in range(4):
        shift = 13 * suit
        x = (d_mask >> shift) & _SUIT & ~d_choice[suit]
        k = k_runs[suit]
        for block in _blocks(_RUNS[x | k]):
            mine = block & x
            melded |= mine << shift
            if not (block & k):
                own.append(mask_cards(mine << shift))
                continue
            # Segments of the block alternate between knocker runs and defender cards.
            k_segments = _blocks(block & k)
            for seg in _blocks(mine):
                if seg.bit_count() >= 3:
                    own.append(mask_cards(seg << shift))
                    continue
                below = [ks for ks in k_segments if ks < seg]
                if below:  # chain upwards onto the knocker run just below
                    target = run_index[below[-1] << shift]
                    cards = mask_cards(seg << shift)
                else:  # chain downwards onto the knocker run just above
                    above = [ks for ks in k_segments if ks > seg]
                    target = run_index[above[0] << shift]
                    cards = tuple(reversed(mask_cards(seg << shift)))
                layoffs.extend(Layoff(card, target) for card in cards)
    # The fourth card of a knocker's three-card set.
    rest = d_mask & ~melded
    for card in mask_cards(rest):
        if card in set_slot:
            layoffs.append(Layoff(card, set_slot[card]))
            melded |= 1 << card
    own.sort(key=_meld_key)
    dead = mask_cards(d_mask & ~melded)
    layoffs.sort(key=lambda lay_: lay_.meld_index)  # stable: chain order kept within a meld
    arrangement = Arrangement(tuple(own), dead, sum(card_value(c) for c in dead))
    return arrangement, tuple(layoffs)


# --------------------------------------------------------------------------
# Every legal play (for checking figures entered by hand, not the best play)
# --------------------------------------------------------------------------
def _every_meld(mask: int) -> list[tuple[int, bool]]:
    """Every meld within the cards: (cards mask, is a set)."""
    melds: list[tuple[int, bool]] = []
    for suit in range(4):
        shift = 13 * suit
        for block in _blocks(_RUNS[(mask >> shift) & _SUIT]):
            ranks = [bit.bit_length() - 1 for bit in _blocks_bits(block)]
            for i in range(len(ranks)):
                for j in range(i + 3, len(ranks) + 1):
                    run = 0
                    for r in ranks[i:j]:
                        run |= 1 << (r + shift)
                    melds.append((run, False))
    rank_mask = 1 | (1 << 13) | (1 << 26) | (1 << 39)
    for rank in range(13):
        held = mask & (rank_mask << rank)
        if held.bit_count() >= 3:
            melds.append((held, True))
            if held.bit_count() == 4:
                melds.extend((held ^ (1 << c), True) for c in mask_cards(held))
    return melds


def _blocks_bits(x: int) -> list[int]:
    out = []
    while x:
        low = x & -x
        out.append(low)
        x ^= low
    return out


def _packings(mask: int) -> set[tuple[int, int]]:
    """Every way to meld some of the cards: distinct (melded cards, set cards) pairs, the empty one included."""
    melds = _every_meld(mask)
    found: set[tuple[int, int]] = set()

    def extend(start: int, used: int, sets: int) -> None:
        found.add((used, sets))
        for index in range(start, len(melds)):
            meld, is_set = melds[index]
            if not meld & used:
                extend(index + 1, used | meld, sets | meld if is_set else sets)

    extend(0, 0, 0)
    return found


def _value(mask: int) -> int:
    return _VAL[mask & _SUIT] + _VAL[(mask >> 13) & _SUIT] + _VAL[(mask >> 26) & _SUIT] + _VAL[mask >> 39]


def _layoff_values(rest: int, k_runs: int, slots: int) -> set[int]:
    """Values of every set of ``rest`` cards the defender could lay off (onto knocker runs/3-card sets)."""
    near = 0  # cards that could chain onto a knocker run
    for suit in range(4):
        shift = 13 * suit
        x = (rest >> shift) & _SUIT
        k = (k_runs >> shift) & _SUIT
        for block in _blocks(_RUNS[x | k] | k):
            if block & k:
                near |= (block & x) << shift
    candidates = mask_cards((near | slots) & rest)
    values: set[int] = set()
    for pick in range(1 << len(candidates)):
        chosen = 0
        for i, card in enumerate(candidates):
            if pick >> i & 1:
                chosen |= 1 << card
        if _layable(chosen, k_runs, slots):
            values.add(_value(chosen))
    return values


def _layable(chosen: int, k_runs: int, slots: int) -> bool:
    """Can these cards all be laid off: some on 3-card sets (their fourth card), the rest chained onto runs?"""
    on_sets = chosen & slots
    for keep in _submasks(on_sets):  # slot cards kept for the runs instead
        runs_part = chosen & ~(on_sets ^ keep)
        if _chained(runs_part, k_runs):
            return True
    return False


def _submasks(mask: int) -> list[int]:
    out = [0]
    sub = mask
    while sub:
        out.append(sub)
        sub = (sub - 1) & mask
    return out


def _chained(cards: int, k_runs: int) -> bool:
    for suit in range(4):
        shift = 13 * suit
        x = (cards >> shift) & _SUIT
        if not x:
            continue
        k = (k_runs >> shift) & _SUIT
        for block in _blocks(x | k):
            if not block & k:
                return False
    return True


def _set_slots(k_mask: int, sets: int) -> int:
    """The missing fourth card of each of the knocker's three-card sets."""
    slots = 0
    rank_mask = 1 | (1 << 13) | (1 << 26) | (1 << 39)
    for rank in range(13):
        held = sets & (rank_mask << rank)
        if held.bit_count() == 3:
            slots |= (rank_mask << rank) & ~held
    return slots & ~k_mask


def knock_outcomes(knocker_cards: Iterable[object], defender_cards: Iterable[object]) -> dict[int, frozenset[int]]:
    """Every legal (knocker deadwood -> defender deadwoods) pair of a knock, imperfect play included.

    The knocker may meld any disjoint melds of their 10 cards; against each such
    spread the defender may meld any of their own and lay off any cards that
    legally go on the knocker's melds (none at all included).
    """
    k_mask = _hand10(knocker_cards, _("knocker"))
    d_mask = _hand10(defender_cards, _("defender"))
    if k_mask & d_mask:
        raise CardError(_("%(card)s is in both hands") % {"card": card_name((k_mask & d_mask).bit_length() - 1)})
    k_total, d_total = _value(k_mask), _value(d_mask)
    own = _packings(d_mask)
    outcomes: dict[int, set[int]] = {}
    seen: dict[tuple[int, int], set[int]] = {}
    for melded, sets in _packings(k_mask):
        target = (melded & ~sets, _set_slots(k_mask, sets))
        if target not in seen:
            values: set[int] = set()
            for d_melded, _d_sets in own:
                left = d_total - _value(d_melded)
                values.update(left - laid for laid in _layoff_values(d_mask & ~d_melded, *target))
            seen[target] = values
        outcomes.setdefault(k_total - _value(melded), set()).update(seen[target])
    return {k: frozenset(v) for k, v in outcomes.items()}


def meld_deadwoods(cards: Iterable[object]) -> frozenset[int]:
    """Every deadwood some legal spread of the cards leaves (their own melds only, no lay-offs)."""
    mask = cards_mask(cards)
    _check_size(mask)
    total = _value(mask)
    return frozenset(total - _value(melded) for melded, _sets in _packings(mask))


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------
def format_cards(cards: Iterable[int]) -> str:
    return " ".join(card_name(c) for c in cards)


def format_arrangement(arr: Arrangement) -> str:
    """Text like "[3H 4H 5H] [7S 7D 7C] deadwood: KS 2D = 12" ("deadwood: none = 0" when none)."""
    parts = [f"[{format_cards(meld)}]" for meld in arr.melds]
    if arr.deadwood_cards:
        parts.append(f"deadwood: {format_cards(arr.deadwood_cards)} = {arr.deadwood}")
    else:
        parts.append("deadwood: none = 0")
    return " ".join(parts)


def format_knock(res: KnockResolution) -> str:
    """A few lines describing a knock resolution."""
    lines = [
        f"knocker:  {format_arrangement(res.knocker)}",
        f"defender: {format_arrangement(res.defender)}",
    ]
    if res.layoffs:
        lays = ", ".join(
            f"{card_name(lay.card)} on [{format_cards(res.knocker.melds[lay.meld_index])}]" for lay in res.layoffs
        )
        lines.append(f"layoffs:  {lays}")
    else:
        lines.append("layoffs:  none" + (" (no layoffs against gin)" if res.gin else ""))
    status = "gin" if res.gin else "knock"
    lines.append(
        f"{status}: knocker deadwood {res.knocker_deadwood}, defender deadwood {res.defender_deadwood}; "
        + ("legal" if res.legal else f"not legal: {res.reason}")
    )
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Plain data (JSON-ready: cards as text like "10H")
# --------------------------------------------------------------------------
def arrangement_data(arr: Arrangement) -> dict:
    return {
        "melds": [[card_name(c) for c in meld] for meld in arr.melds],
        "deadwood_cards": [card_name(c) for c in arr.deadwood_cards],
        "deadwood": arr.deadwood,
    }


def discard_data(res: DiscardResult) -> dict:
    return {
        "discard": None if res.discard is None else card_name(res.discard),
        "big_gin": res.big_gin,
        "gin": res.gin,
        "deadwood": res.deadwood,
        "arrangement": arrangement_data(res.arrangement),
    }


def knock_data(res: KnockResolution) -> dict:
    return {
        "knocker": arrangement_data(res.knocker),
        "defender": arrangement_data(res.defender),
        "layoffs": [
            {
                "card": card_name(lay.card),
                "meld_index": lay.meld_index,
                "meld": [card_name(c) for c in res.knocker.melds[lay.meld_index]],
            }
            for lay in res.layoffs
        ],
        "knocker_deadwood": res.knocker_deadwood,
        "defender_deadwood": res.defender_deadwood,
        "gin": res.gin,
        "legal": res.legal,
        "reason": res.reason,
    }
