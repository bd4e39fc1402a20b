"""Tests for the meld solver (scoring.engine.melds), pure Python: no Django needed.

The solver is checked against an independent brute force that enumerates
every set of disjoint melds (and, for knocks, every legal layoff sequence),
on thousands of random hands from fixed seeds, plus hand-worked cases
(GINLEAGUE_FUZZ=deep, as in `make fuzz`, checks many more).
"""

from __future__ import annotations

import random
from functools import cache
from itertools import combinations

import pytest

from scoring.engine.cards import CardError, card_rank, card_value, parse_card, parse_cards
from scoring.engine.melds import (
    Arrangement,
    Layoff,
    best_arrangement,
    best_discard,
    cards_mask,
    deadwood,
    deadwood_mask,
    format_arrangement,
    format_knock,
    knock_outcomes,
    meld_deadwoods,
    resolve_knock,
)
from tests.fuzzing import examples


def C(text: str) -> list[int]:
    return parse_cards(text.split())


def names(cards) -> list[str]:
    from scoring.engine.cards import card_name

    return [card_name(c) for c in cards]


# --------------------------------------------------------------------------
# Brute force reference (deliberately naive and independent of the solver)
# --------------------------------------------------------------------------
def all_melds(cards) -> list[frozenset[int]]:
    """Every meld inside ``cards``: runs of 3+ (every start, every length) and sets of 3 or 4."""
    held = set(cards)
    melds = []
    for suit in range(4):
        for start in range(13):
            run = []
            for r in range(start, 13):
                card = suit * 13 + r
                if card not in held:
                    break
                run.append(card)
                if len(run) >= 3:
                    melds.append(frozenset(run))
    for r in range(13):
        same = [s * 13 + r for s in range(4) if s * 13 + r in held]
        for size in (3, 4):
            for group in combinations(same, size):
                melds.append(frozenset(group))
    return melds


def all_arrangements(cards):
    """Every collection of pairwise disjoint melds (including none), as tuples of frozensets."""
    melds = all_melds(cards)
    out = []

    def rec(start, used, chosen):
        out.append(tuple(chosen))
        for i in range(start, len(melds)):
            if not (melds[i] & used):
                chosen.append(melds[i])
                rec(i + 1, used | melds[i], chosen)
                chosen.pop()

    rec(0, frozenset(), [])
    return out


def value(cards) -> int:
    return sum(min(c % 13 + 1, 10) for c in cards)


def brute_deadwood(cards) -> int:
    total = value(cards)
    return min(total - sum(value(m) for m in arr) for arr in all_arrangements(cards))


def can_lay(card: int, meld: frozenset[int]) -> bool:
    ranks = {c % 13 for c in meld}
    if len(ranks) == 1:  # a set
        return len(meld) < 4 and card % 13 in ranks
    suit = next(iter(meld)) // 13
    if card // 13 != suit:
        return False
    return card % 13 in (min(ranks) - 1, max(ranks) + 1)


def brute_max_layoff(rest: frozenset[int], melds: tuple[frozenset[int], ...]) -> int:
    """Most value the defender can lay off from ``rest`` by any legal sequence of layoffs."""

    @cache
    def rec(rest, melds):
        best = 0
        for card in rest:
            for i, meld in enumerate(melds):
                if can_lay(card, meld):
                    grown = melds[:i] + (meld | {card},) + melds[i + 1 :]
                    best = max(best, value([card]) + rec(rest - {card}, grown))
        return best

    return rec(rest, melds)


def brute_knock(knocker, defender):
    """(knocker deadwood, defender deadwood after layoffs) per the rule book, by brute force."""
    k_total = value(knocker)
    k_arrs = [(k_total - sum(value(m) for m in arr), arr) for arr in all_arrangements(knocker)]
    k_dead = min(v for v, _ in k_arrs)
    d_total = value(defender)
    d_arrs = all_arrangements(defender)
    if k_dead == 0:
        return 0, min(d_total - sum(value(m) for m in arr) for arr in d_arrs)
    # The knocker spreads (among its least-deadwood arrangements) to leave the most;
    # against that spread the defender melds and lays off to leave the least.
    best = None
    for v, k_arr in k_arrs:
        if v != k_dead:
            continue
        defence = None
        for d_arr in d_arrs:
            melded = frozenset().union(*d_arr) if d_arr else frozenset()
            rest = frozenset(defender) - melded
            dead = d_total - value(melded) - brute_max_layoff(rest, k_arr)
            if defence is None or dead < defence:
                defence = dead
        if best is None or defence > best:
            best = defence
    return k_dead, best


# --------------------------------------------------------------------------
# Structural checks of the solver's answers
# --------------------------------------------------------------------------
def is_meld(meld) -> bool:
    if len(meld) < 3 or len(set(meld)) != len(meld):
        return False
    ranks = sorted(c % 13 for c in meld)
    if len(set(ranks)) == 1:
        return len(meld) <= 4
    suits = {c // 13 for c in meld}
    return len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + len(meld)))


def check_arrangement(cards, arr: Arrangement, covered_elsewhere=()):
    used = [c for m in arr.melds for c in m] + list(arr.deadwood_cards) + list(covered_elsewhere)
    assert sorted(used) == sorted(cards), "arrangement must use every card exactly once"
    for meld in arr.melds:
        assert is_meld(meld), names(meld)
        assert list(meld) == sorted(meld)
    assert list(arr.deadwood_cards) == sorted(arr.deadwood_cards)
    assert arr.deadwood == value(arr.deadwood_cards)


def check_knock(res, knocker, defender):
    check_arrangement(knocker, res.knocker)
    laid = [lay.card for lay in res.layoffs]
    check_arrangement(defender, res.defender, covered_elsewhere=laid)
    assert res.knocker_deadwood == res.knocker.deadwood
    assert res.defender_deadwood == res.defender.deadwood
    # Play the layoffs in the given order on the knocker's melds: each must be legal.
    melds = [frozenset(m) for m in res.knocker.melds]
    for lay in res.layoffs:
        assert isinstance(lay, Layoff)
        assert can_lay(lay.card, melds[lay.meld_index]), (names([lay.card]), names(melds[lay.meld_index]))
        melds[lay.meld_index] |= {lay.card}
    if res.gin:
        assert res.layoffs == ()


# --------------------------------------------------------------------------
# Deterministic random hands
# --------------------------------------------------------------------------
def deal(rng: random.Random, n: int, ranks=range(1, 14)) -> list[int]:
    universe = [s * 13 + r - 1 for s in range(4) for r in ranks]
    return rng.sample(universe, n)


def rich_ranks(rng: random.Random):
    low = rng.randint(1, 8)
    return range(low, low + 6)


def test_brute_force_reference_itself():
    # The reference must be right before it judges anything: small hand-checked cases.
    assert brute_deadwood(C("AS 2S 3S")) == 0
    assert brute_deadwood(C("QS KS AS")) == 21  # no wrap-around run
    assert brute_deadwood(C("7S 7H 7D 7C 8S 9S")) == 0  # 7S 8S 9S + 7H 7D 7C
    assert brute_deadwood(C("7S 7H 8S 9S")) == 7
    assert brute_max_layoff(frozenset(C("6H 5H 7S")), (frozenset(C("7H 8H 9H")),)) == 11
    assert brute_max_layoff(frozenset(C("5H")), (frozenset(C("7H 8H 9H")),)) == 0
    assert brute_max_layoff(frozenset(C("7C")), (frozenset(C("7H 7S 7D")),)) == 7
    assert brute_max_layoff(frozenset(C("7C 6C")), (frozenset(C("7H 7S 7D")), frozenset(C("8C 9C 10C")))) == 13


@pytest.mark.parametrize("seed", range(4))
def test_deadwood_matches_brute_force_random_10(seed):
    rng = random.Random(1000 + seed)
    for _ in range(600):
        hand = deal(rng, 10)
        expected = brute_deadwood(hand)
        assert deadwood(hand) == expected, names(hand)
        assert deadwood_mask(cards_mask(hand)) == expected
        arr = best_arrangement(hand)
        check_arrangement(hand, arr)
        assert arr.deadwood == expected


@pytest.mark.parametrize("seed", range(4))
def test_deadwood_matches_brute_force_meld_rich(seed):
    rng = random.Random(2000 + seed)
    for i in range(400):
        n = 10 if i % 2 else 11
        hand = deal(rng, n, rich_ranks(rng))
        expected = brute_deadwood(hand)
        assert deadwood(hand) == expected, names(hand)
        arr = best_arrangement(hand)
        check_arrangement(hand, arr)
        assert arr.deadwood == expected, names(hand)


def test_deadwood_matches_brute_force_small_hands():
    rng = random.Random(3000)
    for _ in range(500):
        n = rng.randint(0, 9)
        hand = deal(rng, n, rich_ranks(rng) if rng.random() < 0.7 else range(1, 14))
        expected = brute_deadwood(hand)
        assert deadwood(hand) == expected, names(hand)
        assert best_arrangement(hand).deadwood == expected


@pytest.mark.parametrize("seed", range(3))
def test_best_discard_matches_brute_force(seed):
    rng = random.Random(4000 + seed)
    for i in range(300):
        hand = deal(rng, 11, rich_ranks(rng) if i % 3 else range(1, 14))
        per_discard = {c: brute_deadwood([x for x in hand if x != c]) for c in hand}
        least = min(per_discard.values())
        big_gin = brute_deadwood(hand) == 0
        res = best_discard(hand)
        assert res.big_gin == big_gin
        assert res.gin == (least == 0)
        if big_gin:
            assert res.discard is None
            assert res.deadwood == 0
            check_arrangement(hand, res.arrangement)
        else:
            assert res.discard in hand
            assert per_discard[res.discard] == least == res.deadwood, names(hand)
            kept = [c for c in hand if c != res.discard]
            check_arrangement(kept, res.arrangement)
            assert res.arrangement.deadwood == least


def knock_pairs(rng: random.Random, count: int, rich: bool):
    for _ in range(count):
        if rich:
            width = rng.randint(5, 8)
            low = rng.randint(1, 14 - width)
            hands = deal(rng, 20, range(low, low + width))
        else:
            hands = deal(rng, 20)
        yield hands[:10], hands[10:]


@pytest.mark.parametrize("rich", [False, True], ids=["random", "meld-rich"])
@pytest.mark.parametrize("seed", range(2))
def test_knock_matches_brute_force(seed, rich):
    rng = random.Random(5000 + seed + 10 * rich)
    seen_layoffs = 0
    for knocker, defender in knock_pairs(rng, examples(1000, 20000), rich):
        k_dead, d_dead = brute_knock(knocker, defender)
        res = resolve_knock(knocker, defender, knock_limit=10)
        assert (res.knocker_deadwood, res.defender_deadwood) == (k_dead, d_dead), (names(knocker), names(defender))
        assert res.gin == (k_dead == 0)
        assert res.legal == (k_dead <= 10)
        check_knock(res, knocker, defender)
        seen_layoffs += bool(res.layoffs)
    if rich:  # the meld-rich pairs must actually exercise layoffs
        assert seen_layoffs > 50


def test_knock_matches_brute_force_structured():
    """Knockers built from melds with little deadwood, defenders near those melds: many layoffs."""
    rng = random.Random(6000)
    seen = 0
    for _ in range(examples(500, 10000)):
        low = rng.randint(1, 6)
        ranks = range(low, low + 8)
        while True:
            hands = deal(rng, 20, ranks)
            knocker, defender = hands[:10], hands[10:]
            if 0 < brute_deadwood(knocker) <= 20:
                break
        k_dead, d_dead = brute_knock(knocker, defender)
        res = resolve_knock(knocker, defender, knock_limit=10)
        assert (res.knocker_deadwood, res.defender_deadwood) == (k_dead, d_dead), (names(knocker), names(defender))
        check_knock(res, knocker, defender)
        seen += len(res.layoffs) >= 2
    assert seen > 60


def brute_layoff_values(rest: frozenset[int], melds: tuple[frozenset[int], ...]) -> frozenset[int]:
    """Value of every set of cards the defender could lay off from ``rest`` (none included)."""

    @cache
    def rec(rest, melds):
        out = {0}
        for card in rest:
            for i, meld in enumerate(melds):
                if can_lay(card, meld):
                    grown = melds[:i] + (meld | {card},) + melds[i + 1 :]
                    out.update(value([card]) + v for v in rec(rest - {card}, grown))
        return frozenset(out)

    return rec(rest, melds)


def brute_outcomes(knocker, defender) -> dict[int, set[int]]:
    """Every (knocker deadwood -> defender deadwoods) some legal play gives, by brute force."""
    k_total, d_total = value(knocker), value(defender)
    d_arrs = [frozenset().union(*arr) if arr else frozenset() for arr in all_arrangements(defender)]
    out: dict[int, set[int]] = {}
    for k_arr in all_arrangements(knocker):
        k_dead = k_total - sum(value(m) for m in k_arr)
        found = out.setdefault(k_dead, set())
        for melded in d_arrs:
            left = d_total - value(melded)
            found.update(left - laid for laid in brute_layoff_values(frozenset(defender) - melded, k_arr))
    return out


def test_every_legal_play_matches_brute_force():
    """knock_outcomes (what card_facts accepts as entered figures) against the brute force."""
    rng = random.Random(7000)
    for _ in range(examples(500, 5000)):
        low = rng.randint(1, 7)
        hands = deal(rng, 20, range(low, low + 7))
        knocker, defender = hands[:10], hands[10:]
        outcomes = knock_outcomes(knocker, defender)
        assert outcomes == {k: frozenset(v) for k, v in brute_outcomes(knocker, defender).items()}, (
            names(knocker), names(defender))
        assert meld_deadwoods(defender) == frozenset(
            value(defender) - sum(value(m) for m in arr) for arr in all_arrangements(defender))
        res = resolve_knock(knocker, defender, knock_limit=10)
        assert res.defender_deadwood in outcomes[res.knocker_deadwood]  # the best play is a legal play


# --------------------------------------------------------------------------
# Hand-worked cases
# --------------------------------------------------------------------------
def test_hard_eleven_cards():
    # 2D 3D 5D | 3H 4H 5H 6H | 4C 5C 6C | 6S  (total 49)
    # runs 3H-6H + 4C-6C meld 33 -> 16 left (2D 3D 5D 6S); throwing 6S leaves 10.
    # sets 5D 5H 5C + 6H 6C 6S also meld 33 -> 16 left, but the best throw (a 4) leaves 12.
    hand = C("2D 3D 5D 3H 4H 5H 6H 4C 5C 6C 6S")
    assert deadwood(hand) == 16
    res = best_discard(hand)
    assert res.deadwood == 10
    assert res.discard == parse_card("6S")
    assert not res.gin and not res.big_gin
    assert res.arrangement.melds == (tuple(C("3H 4H 5H 6H")), tuple(C("4C 5C 6C")))
    assert res.arrangement.deadwood_cards == tuple(C("2D 3D 5D"))
    assert deadwood(C("2D 3D 5D 3H 4H 5H 6H 4C 5C 6C")) == 10


def test_card_in_set_or_run_set_wins():
    # 7H fits 5H 6H 7H (18) or 7H 7S 7D (21); the set leaves 5H 6H (11) instead of 7S 7D (14).
    hand = C("5H 6H 7H 7S 7D 8C 9C 10C KD QD")
    arr = best_arrangement(hand)
    assert arr.deadwood == 31  # 5 + 6 + 10 + 10
    assert tuple(C("7S 7H 7D")) in arr.melds
    assert tuple(C("8C 9C 10C")) in arr.melds


def test_card_in_set_or_run_run_wins():
    # 5H fits 5H 6H 7H (18) or 5S 5H 5D (15): the run wins, 5S 5D stay as deadwood.
    hand = C("5H 6H 7H 5S 5D 9C 9S 2D KC QC")
    arr = best_arrangement(hand)
    assert arr.deadwood == 50  # 5 + 5 + 9 + 9 + 2 + 10 + 10
    assert arr.melds == (tuple(C("5H 6H 7H")),)


def test_four_of_a_kind_beside_a_run():
    # Four 7s + 5H 6H: take 7S 7D 7C as a set and 5H 6H 7H as a run; J-Q-K of spades.
    hand = C("7S 7H 7D 7C 5H 6H KS QS JS 2D")
    arr = best_arrangement(hand)
    assert arr.deadwood == 2
    assert arr.melds == (tuple(C("5H 6H 7H")), tuple(C("7S 7D 7C")), tuple(C("JS QS KS")))
    assert arr.deadwood_cards == tuple(C("2D"))


def test_long_run_and_gin():
    hand = C("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H")
    arr = best_arrangement(hand)
    assert arr.deadwood == 0
    assert arr.melds == (tuple(C("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H")),)
    res = best_discard(hand + C("JH"))
    assert res.big_gin and res.gin and res.discard is None and res.deadwood == 0
    res = best_discard(hand + C("KS"))
    assert res.gin and not res.big_gin
    assert res.discard == parse_card("KS")


def test_aces_low_only():
    assert deadwood(C("QS KS AS")) == 21
    assert deadwood(C("AS 2S 3S")) == 0
    assert deadwood(C("KS AS 2S")) == 13
    assert deadwood(C("JS QS KS")) == 0


def test_empty_and_small_hands():
    assert best_arrangement([]) == Arrangement((), (), 0)
    assert deadwood([]) == 0
    assert deadwood(C("KS")) == 10
    assert deadwood(["AS", "2S", "3S", "KD"]) == 10  # text is accepted too


def test_three_way_conflict():
    # 6H is wanted by 6S 6H 6D, by 4H 5H 6H and by 6H 7H 8H.
    hand = C("6S 6H 6D 4H 5H 7H 8H 9C 9D 9S")
    # Run 4H-8H (30) + set 9S 9D 9C (27) leaves 6S 6D = 12; set of 6s leaves 4H 5H 7H 8H = 24.
    arr = best_arrangement(hand)
    assert arr.deadwood == 12
    assert tuple(C("4H 5H 6H 7H 8H")) in arr.melds


def test_format_arrangement():
    arr = best_arrangement(C("3H 4H 5H 7C 7D 7S KS 2D"))
    assert format_arrangement(arr) == "[3H 4H 5H] [7S 7D 7C] deadwood: KS 2D = 12"
    assert format_arrangement(best_arrangement(C("AS 2S 3S"))) == "[AS 2S 3S] deadwood: none = 0"


# --------------------------------------------------------------------------
# Knocks, hand-worked
# --------------------------------------------------------------------------
def test_layoff_chain_does_not_depend_on_meld_order():
    # Knocker: set 7S 7D 7C, run 8H 9H 10H, deadwood 2S 3D AC 4C = 10.
    # Defender's 7H fits the set and the run; only on the run can 6H follow it.
    knocker = C("7S 7D 7C 8H 9H 10H 2S 3D AC 4C")
    defender = C("7H 6H KC QH JC 9D 9C 5S 4S 2C")  # 72 in all, no melds of its own
    for k, d in ((knocker, defender), (knocker[::-1], defender[::-1])):
        res = resolve_knock(k, d, knock_limit=10)
        assert res.knocker_deadwood == 10
        assert res.defender_deadwood == 59  # 72 - 7 - 6
        assert res.legal and res.reason == ""
        run = res.knocker.melds.index(tuple(C("8H 9H 10H")))
        assert res.layoffs == (Layoff(parse_card("7H"), run), Layoff(parse_card("6H"), run))
        check_knock(res, k, d)


def test_knocker_spreads_sets_rather_than_runs_that_take_layoffs():
    # Knocker: runs 9-10-J in spades, hearts and diamonds + AC, or equally (deadwood 1)
    # sets of 9s, 10s and Js. Against the runs the defender would lay off 8S, 8D, 8H and
    # 7H (30 left); against the sets nothing goes and it keeps its own set of 8s (37 left).
    # A knocker at the table spreads the sets.
    knocker = C("9S 10S JS 9H 10H JH 9D 10D JD AC")
    defender = C("8S 8D 8H 7H KC 2C 3D 4S 6C 5D")
    res = resolve_knock(knocker, defender, knock_limit=10)
    assert res.knocker_deadwood == 1
    assert res.defender_deadwood == 37
    assert res.defender.melds == (tuple(C("8S 8H 8D")),)
    assert res.layoffs == ()
    assert all(len({card_rank(c) for c in m}) == 1 for m in res.knocker.melds)  # sets chosen
    check_knock(res, knocker, defender)


def test_knocker_spreads_runs_rather_than_sets_that_take_layoffs():
    # Same knocker; now the defender holds 9C and 10C, which would go on the sets
    # (69 - 19 = 50) but fit no run: the knocker spreads the runs and the defender keeps 69.
    knocker = C("9S 10S JS 9H 10H JH 9D 10D JD AC")
    defender = C("9C 10C QC 2C 3D 4S 6C 5D KS KH")
    res = resolve_knock(knocker, defender, knock_limit=10)
    assert res.knocker_deadwood == 1
    assert res.defender_deadwood == 69
    assert res.layoffs == ()
    assert all(len({card_rank(c) for c in m}) > 1 for m in res.knocker.melds)  # runs chosen
    check_knock(res, knocker, defender)


def test_the_issue_example_knocker_leaves_nothing_to_lay_off():
    # [3C 4C 5C 6C] [6S 6H 6D] would take 7C (76 left); [3C 4C 5C] [6S 6H 6D 6C] takes nothing.
    res = resolve_knock(C("3C 4C 5C 6C 6S 6H 6D AS 2H 3D"), C("7C KS KH QD JD 10S 9D 8H 4S 5H"), knock_limit=10)
    assert (res.knocker_deadwood, res.defender_deadwood) == (6, 83)
    assert tuple(C("6S 6H 6D 6C")) in res.knocker.melds
    assert res.layoffs == ()


def test_defender_gives_up_four_of_a_kind_for_layoffs():
    # Defender 8S 8D 8C 8H 7H; knocker run 9H 10H JH. Keeping all four 8s leaves 7H;
    # the set of three 8S 8D 8C plus 8H, 7H laid off leaves nothing of those.
    knocker = C("9H 10H JH 2S 2D 2C AS AD 3C 4S")  # 2S 2D 2C set; AS AD 3C 4S = 9
    defender = C("8S 8D 8C 8H 7H KC KD QS 5C 6D")
    res = resolve_knock(knocker, defender, knock_limit=10)
    assert res.knocker_deadwood == 9
    assert res.defender_deadwood == 10 + 10 + 10 + 5 + 6
    assert tuple(C("8S 8D 8C")) in res.defender.melds
    run = res.knocker.melds.index(tuple(C("9H 10H JH")))
    assert res.layoffs[:2] == (Layoff(parse_card("8H"), run), Layoff(parse_card("7H"), run))
    # 2H lays off on the knocker's set of 2s? the defender does not hold it; nothing else lays off.
    assert len(res.layoffs) == 2
    check_knock(res, knocker, defender)


def test_no_layoffs_against_gin():
    knocker = C("AS 2S 3S 4H 5H 6H 7D 8D 9D 10D")
    defender = C("4S 5S 3H 7H JD 7S 8C KC QC 2C")  # 4S 5S 3H 7H JD would all lay off
    res = resolve_knock(knocker, defender, knock_limit=10)
    assert res.gin and res.legal and res.reason == ""
    assert res.knocker_deadwood == 0
    assert res.layoffs == ()
    assert res.defender_deadwood == 4 + 5 + 3 + 7 + 10 + 7 + 8 + 10 + 10 + 2
    check_knock(res, knocker, defender)
    # Gin is legal even where knocking is not allowed at all.
    assert resolve_knock(knocker, defender, knock_limit=0).legal


def test_knock_legality():
    knocker = C("AS 2S 3S 4H 5H 6H 7D 8D 9D KC")  # deadwood 10
    defender = C("JS QH 2C 3D 5C 9H 10C 7S 7C KD")
    assert resolve_knock(knocker, defender, knock_limit=10).legal
    res = resolve_knock(knocker, defender, knock_limit=9)
    assert not res.legal
    assert res.reason == "the knocker has 10 deadwood, more than the knock limit of 9"
    res = resolve_knock(knocker, defender, knock_limit=0)
    assert not res.legal and "not allowed" in res.reason
    with pytest.raises(ValueError):
        resolve_knock(knocker, defender, knock_limit=-1)


def test_format_knock():
    knocker = C("7S 7D 7C 8H 9H 10H 2S 3D AC 4C")
    defender = C("7H 6H KC QH JC 9D 9C 5S 4S 2C")
    text = format_knock(resolve_knock(knocker, defender, knock_limit=10))
    assert "layoffs:  7H on [8H 9H 10H], 6H on [8H 9H 10H]" in text
    assert "knocker deadwood 10, defender deadwood 59; legal" in text


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------
def test_bad_cards_are_named():
    with pytest.raises(CardError, match="QS is given twice"):
        best_arrangement(C("QS KS") + C("QS"))
    with pytest.raises(CardError, match="QS is given twice"):
        deadwood(C("QS KS") + C("QS"))
    with pytest.raises(CardError, match="'1X' is not a card"):
        best_arrangement(["AS", "1X"])
    with pytest.raises(CardError, match="52"):
        deadwood([1, 2, 52])
    with pytest.raises(CardError, match="-1"):
        deadwood([1, 2, -1])
    with pytest.raises(CardError, match="11"):
        best_arrangement(list(range(12)))
    with pytest.raises(CardError, match="11 cards, got 10"):
        best_discard(list(range(10)))


def test_knock_hand_errors():
    knocker = C("AS 2S 3S 4H 5H 6H 7D 8D 9D QS")
    defender = C("JS QS 2C 3D 5C 9H 10C 7S 7C KD")
    with pytest.raises(CardError, match="QS is in both hands"):
        resolve_knock(knocker, defender, knock_limit=10)
    with pytest.raises(CardError, match="knocker hand must have 10 cards, got 9"):
        resolve_knock(knocker[:9], defender[1:], knock_limit=10)
    with pytest.raises(CardError, match="7S is given twice in the defender hand"):
        resolve_knock(knocker[:9] + C("KS"), defender[:9] + C("7S"), knock_limit=10)


def test_pure_python_card_values_unchanged():
    # The solver relies on these; the scoring engine relies on parse_card.
    assert [card_value(c) for c in C("AS 9H 10D JC QS KH")] == [1, 9, 10, 10, 10, 10]
    assert parse_card("10H") == 13 + 9
