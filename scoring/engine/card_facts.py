"""A hand's ``cards`` fact: checked against the other facts, and shown as melds (pure Python).

The fact
--------
``{"by": [...], "defender": [...]}`` with card texts such as ``"10H"`` or
``"QS"`` (rank ``A 2..10 J Q K`` then suit ``S H D C``):

* ``by``: the cards of the player who knocked or went gin, after the discard
  (10 cards; 11 for big gin, which has no discard);
* ``defender``: the other player's 10 cards.

A dead hand has no cards. The cards must be 20 (21) different cards and
some legal play of them must give the recorded figures (the app records what
happened at the table, it does not referee skill): the knocker's deadwood is
that of some spread of their 10 cards, within the hand's knock limit
(Oklahoma: the upcard's); the defender's is reachable by some spread of their
own melds and some legal lay-offs (or none) onto that knocker spread; a gin's
cards meld completely and the defender's deadwood is that of some spread of
their own melds (no lay-offs against gin); a big gin's 11 cards all meld.

``check_cards`` raises ``CardFactError(field, message)``: ``field`` is
``"cards"``, or ``"knocker_deadwood"`` / ``"defender_deadwood"`` when no legal
play gives the entered number (the message says which figures the cards
allow). ``best_play_note`` says when legal figures were not the best play.
``work_out`` fills in the best play for a form being filled in;
``hand_display`` gives the best play's melds, lay-offs and deadwood as card faces.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scoring.engine.cards import RANK_NAMES, SUIT_SYMBOLS, SUITS, CardError, card_name, card_rank, card_suit, parse_card
from scoring.engine.melds import (
    Arrangement,
    KnockResolution,
    best_arrangement,
    cards_mask,
    knock_outcomes,
    mask_cards,
    meld_deadwoods,
    resolve_knock,
)
from scoring.engine.rules import RuleSet
from scoring.engine.score import effective_knock_limit
from scoring.engine.text import _, gettext_noop

__all__ = [
    "ALL_CARDS",
    "CARD_KEYS",
    "CardFactError",
    "Worked",
    "best_play_note",
    "card_face",
    "check_cards",
    "check_facts",
    "hand_display",
    "knock_limit_for",
    "work_out",
]

CARD_KEYS = ("by", "defender")
ALL_CARDS = tuple(card_name(c) for c in range(52))  # AS 2S .. KS AH .. KC
ENDINGS_WITH_CARDS = ("knock", "gin", "big_gin")
# A card in words for screen readers: "%(rank)s of %(suit)s" (marked here, translated where shown).
_SUIT_WORDS = {
    "S": gettext_noop("spades"),
    "H": gettext_noop("hearts"),
    "D": gettext_noop("diamonds"),
    "C": gettext_noop("clubs"),
}
_RANK_WORDS = dict(zip(RANK_NAMES, RANK_NAMES, strict=True)) | {
    "A": gettext_noop("ace"),
    "J": gettext_noop("jack"),
    "Q": gettext_noop("queen"),
    "K": gettext_noop("king"),
}
_NO_LIMIT = 1000  # for showing stored hands: the arrangement does not depend on the knock limit


class CardFactError(ValueError):
    """The cards fact is malformed or disagrees with the other facts; ``field`` says which."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def knock_limit_for(rules: RuleSet, upcard: str | None) -> int:
    """The hand's effective knock limit (Oklahoma: from the upcard text)."""
    parsed = None
    if upcard:
        try:
            parsed = parse_card(upcard)
        except CardError:
            parsed = None  # the engine refuses a bad upcard with its own message
    return effective_knock_limit(rules, parsed)


def _hand_size(ending: str) -> int:
    return 11 if ending == "big_gin" else 10


def _parse(cards: Any, ending: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Structure, card texts, counts and distinctness; returns (by, defender) as sorted card ints."""
    if ending not in ENDINGS_WITH_CARDS:
        raise CardError(_("a dead hand has no cards (nobody went out)"))
    if not isinstance(cards, dict) or set(cards) != set(CARD_KEYS):
        raise CardError(_('cards must be {"by": [...], "defender": [...]}: the cards of who went out, then the other'))
    hands = []
    sides = (
        (
            "by",
            _("who went out's"),
            _hand_size(ending),
            _("who went out must have %(size)s cards in a %(ending)s, not %(count)s"),
        ),
        (
            "defender",
            _("other player's"),
            10,
            _("other player must have %(size)s cards in a %(ending)s, not %(count)s"),
        ),
    )
    for key, whose, size, wrong_count in sides:
        raw = cards[key]
        if not isinstance(raw, list) or not all(isinstance(text, str) for text in raw):
            raise CardError(_('cards "%(key)s" must be a list of card texts such as "10H"') % {"key": key})
        mask = cards_mask(raw, who=whose)
        if mask.bit_count() != size:
            raise CardError(wrong_count % {"size": size, "ending": _ending_words(ending), "count": mask.bit_count()})
        hands.append(mask)
    both = hands[0] & hands[1]
    if both:
        raise CardError(_("%(card)s is in both hands") % {"card": card_name(both.bit_length() - 1)})
    return mask_cards(hands[0]), mask_cards(hands[1])


def _ending_words(ending: str) -> str:
    """The ending in words: "knock", "gin", "big gin"."""
    return {"knock": _("knock"), "gin": _("gin"), "big_gin": _("big gin")}.get(ending, ending)


def normalize(by: Iterable[int], defender: Iterable[int]) -> dict[str, list[str]]:
    return {"by": [card_name(c) for c in by], "defender": [card_name(c) for c in defender]}


@dataclass(frozen=True)
class _Solved:
    by: Arrangement
    defender: Arrangement
    knock: KnockResolution | None  # None for big gin
    knocker_deadwood: int
    defender_deadwood: int


def _solve(by: tuple[int, ...], defender: tuple[int, ...], knock_limit: int) -> _Solved:
    if len(by) == 11:
        arrangement = best_arrangement(by)
        other = best_arrangement(defender)
        return _Solved(arrangement, other, None, arrangement.deadwood, other.deadwood)
    res = resolve_knock(by, defender, knock_limit=knock_limit)
    return _Solved(res.knocker, res.defender, res, res.knocker_deadwood, res.defender_deadwood)


def _disagreement(solved: _Solved, ending: str, knock_limit: int) -> str:
    """Why the cards do not fit the ending ("" when they do)."""
    dead = solved.knocker_deadwood
    if ending == "knock":
        if dead == 0:
            return _("the knocker's cards all meld (0 deadwood): that is gin, so record it as gin")
        if not solved.knock.legal:
            return _("not a legal knock: %(reason)s") % {"reason": solved.knock.reason}
        return ""
    if dead:
        if ending == "big_gin":
            return _("not big gin: the 11 cards leave %(deadwood)s deadwood") % {"deadwood": dead}
        return _("not gin: the cards of who went out leave %(deadwood)s deadwood") % {"deadwood": dead}
    return ""


def _figures(values: Iterable[int]) -> str:
    """Figures in words: "3", "3 or 9", "3, 6 or 9" (long lists shortened: "3, 6, 9, … or 40")."""
    values = sorted(values)
    if len(values) > 8:
        return _("%(figures)s, … or %(last)s") % {"figures": ", ".join(map(str, values[:5])), "last": values[-1]}
    if len(values) == 1:
        return str(values[0])
    return _("%(figures)s or %(last)s") % {"figures": ", ".join(map(str, values[:-1])), "last": values[-1]}


def _entered_figures_problem(
    by: tuple[int, ...],
    defender: tuple[int, ...],
    ending: str,
    knocker_deadwood: Any,
    defender_deadwood: Any,
    knock_limit: int,
) -> tuple[str, str] | None:
    """(field, message) when no legal play of the cards gives the entered figures (imperfect play is fine)."""
    if ending != "knock":
        allowed = meld_deadwoods(defender)
        if defender_deadwood not in allowed:
            return "defender_deadwood", (
                _(
                    "the cards allow the other player %(figures)s deadwood (their own melds, no lay-offs), "
                    "not %(entered)s"
                )
                % {"figures": _figures(allowed), "entered": defender_deadwood}
            )
        return None
    outcomes = knock_outcomes(by, defender)
    knocks = sorted(k for k in outcomes if 0 < k <= knock_limit)
    if knocker_deadwood not in knocks:
        return "knocker_deadwood", (
            _("the cards allow the knocker %(figures)s deadwood (knock limit %(limit)s), not %(entered)s")
            % {"figures": _figures(knocks), "limit": knock_limit, "entered": knocker_deadwood}
        )
    allowed = outcomes[knocker_deadwood]
    if defender_deadwood not in allowed:
        return "defender_deadwood", (
            _(
                "against the knocker's %(knocker)s, the cards allow the other player %(figures)s "
                "deadwood after lay-offs, not %(entered)s"
            )
            % {"knocker": knocker_deadwood, "figures": _figures(allowed), "entered": defender_deadwood}
        )
    return None


def check_cards(
    cards: Any, *, ending: str, knocker_deadwood: int | None, defender_deadwood: int | None, knock_limit: int
) -> dict[str, list[str]]:
    """Refuse cards that are malformed or that no legal play makes agree with the facts; return them tidied.

    Play need not be the best: any figures some legal spread and lay-offs of
    these cards give are accepted (``best_play_note`` says what was possible).
    """
    try:
        by, defender = _parse(cards, ending)
    except CardError as error:
        raise CardFactError("cards", str(error)) from None
    solved = _solve(by, defender, knock_limit)
    best = (solved.knocker_deadwood if ending == "knock" else None, solved.defender_deadwood)
    if (
        ending == "knock"
        and solved.knocker_deadwood
        and solved.knock.legal
        and best == (knocker_deadwood, defender_deadwood)
    ):
        return normalize(by, defender)  # the best play: nothing more to check
    problem = _disagreement(solved, ending, knock_limit)
    if problem and not (ending == "knock" and solved.knocker_deadwood == 0):
        raise CardFactError("cards", problem)
    wrong = _entered_figures_problem(by, defender, ending, knocker_deadwood, defender_deadwood, knock_limit)
    if wrong is not None:
        if problem:  # gin cards knocked with a figure no spread leaves: say it is gin
            raise CardFactError("cards", problem)
        raise CardFactError(*wrong)
    return normalize(by, defender)


def best_play_note(cards: Any, ending: str, knocker_deadwood: int | None, defender_deadwood: int | None) -> str:
    """ "best play: K 3, D 83" when a stored hand's figures are legal but not the best its cards allowed, else ""."""
    if not cards:
        return ""
    try:
        by, defender = _parse(cards, ending)
    except CardError:
        return ""
    solved = _solve(by, defender, _NO_LIMIT)
    if ending == "knock":
        if (solved.knocker_deadwood, solved.defender_deadwood) == (knocker_deadwood, defender_deadwood):
            return ""
        if solved.knocker_deadwood == 0:
            return _("best play: gin, D %(defender)s") % {"defender": solved.defender_deadwood}
        return _("best play: K %(knocker)s, D %(defender)s") % {
            "knocker": solved.knocker_deadwood,
            "defender": solved.defender_deadwood,
        }
    if solved.defender_deadwood == defender_deadwood:
        return ""
    return _("best play: D %(defender)s") % {"defender": solved.defender_deadwood}


def check_facts(rules: RuleSet, facts: Any, cards: Any) -> dict[str, list[str]] | None:
    """``check_cards`` for a hand's facts (``HandFacts``-like) under ``rules``; None when there are no cards."""
    if cards is None:
        return None
    return check_cards(
        cards,
        ending=facts.ending,
        knocker_deadwood=facts.knocker_deadwood,
        defender_deadwood=facts.defender_deadwood,
        knock_limit=knock_limit_for(rules, facts.upcard),
    )


# --------------------------------------------------------------------------
# Working out a hand being entered, and showing stored hands
# --------------------------------------------------------------------------
def card_face(card: int) -> dict[str, Any]:
    """What a template needs to draw a card: rank, suit symbol, colour, words for screen readers."""
    rank = RANK_NAMES[card_rank(card) - 1]
    suit = card_suit(card)
    return {
        "code": card_name(card),
        "rank": rank,
        "suit": SUIT_SYMBOLS[suit],
        "red": suit in ("H", "D"),
        "words": _("%(rank)s of %(suit)s") % {"rank": _(_RANK_WORDS[rank]), "suit": _(_SUIT_WORDS[suit])},
    }


def _side(arrangement: Arrangement, *, layoffs=()) -> dict[str, Any]:
    return {
        "melds": [[card_face(c) for c in meld] for meld in arrangement.melds],
        "deadwood_cards": [card_face(c) for c in arrangement.deadwood_cards],
        "deadwood": arrangement.deadwood,
        "layoffs": [
            {"cards": [card_face(c) for c in cards], "meld": [card_face(c) for c in meld]} for cards, meld in layoffs
        ],
    }


def _display(solved: _Solved, ending: str) -> dict[str, Any]:
    layoffs: list[tuple[list[int], tuple[int, ...]]] = []
    if solved.knock is not None and not solved.knock.gin:
        by_meld: dict[int, list[int]] = {}
        for lay in solved.knock.layoffs:
            by_meld.setdefault(lay.meld_index, []).append(lay.card)
        layoffs = [(cards, solved.by.melds[index]) for index, cards in by_meld.items()]
    return {"ending": ending, "by": _side(solved.by), "defender": _side(solved.defender, layoffs=layoffs)}


def hand_display(cards: Any, ending: str) -> dict[str, Any] | None:
    """Melds, lay-offs and deadwood of a stored hand's cards as card faces (None if there are none or they are bad)."""
    if not cards:
        return None
    try:
        by, defender = _parse(cards, ending)
    except CardError:
        return None
    return _display(_solve(by, defender, _NO_LIMIT), ending)


@dataclass(frozen=True)
class Worked:
    """A hand being entered card by card: what the cards give so far."""

    cards: dict[str, list[str]] | None  # tidied, when both hands are complete
    knocker_deadwood: int | None
    defender_deadwood: int | None
    display: dict[str, Any] | None
    problem: str  # why the cards cannot be used yet ("" when they can)
    counts: tuple[int, int]  # cards picked: who went out, the other player
    needed: tuple[int, int]

    @property
    def complete(self) -> bool:
        return self.cards is not None and not self.problem


def work_out(
    by: Iterable[str], defender: Iterable[str], *, ending: str | None, knock_limit: int, who_known: bool = True
) -> Worked:
    """Melds, lay-offs and both deadwood figures of the cards picked so far (never raises).

    ``who_known`` false: who went out is not chosen yet, so the two hands' roles are unknown.
    """
    by, defender = list(by), list(defender)
    needed = (_hand_size(ending or ""), 10)
    counts = (len(by), len(defender))

    def unfinished(problem: str) -> Worked:
        return Worked(None, None, None, None, problem, counts, needed)

    if ending not in ENDINGS_WITH_CARDS:
        return unfinished(_("Choose how the hand ended (knock, gin or big gin) to use the cards."))
    if not who_known:
        return unfinished(_("Choose who went out to use the cards."))
    if counts != needed:
        return unfinished(
            _(
                "Pick %(by_needed)s cards for who went out (%(by_count)s so far) "
                "and %(defender_needed)s for the other player (%(defender_count)s so far)."
            )
            % {
                "by_needed": needed[0],
                "by_count": counts[0],
                "defender_needed": needed[1],
                "defender_count": counts[1],
            }
        )
    try:
        by_cards, defender_cards = _parse({"by": by, "defender": defender}, ending)
    except CardError as error:
        return unfinished(str(error)[:1].upper() + str(error)[1:] + ".")
    solved = _solve(by_cards, defender_cards, knock_limit)
    problem = _disagreement(solved, ending, knock_limit)
    display = _display(solved, ending)
    if problem:
        return Worked(None, None, None, display, problem[:1].upper() + problem[1:] + ".", counts, needed)
    return Worked(
        normalize(by_cards, defender_cards),
        solved.knocker_deadwood if ending == "knock" else None,
        solved.defender_deadwood,
        display,
        "",
        counts,
        needed,
    )


def suit_rows() -> list[tuple[str, list[dict[str, Any]]]]:
    """The 52 cards as four rows (one per suit) of 13 faces, for the tap-to-pick grid."""
    return [(suit, [card_face(index * 13 + rank) for rank in range(13)]) for index, suit in enumerate(SUITS)]
