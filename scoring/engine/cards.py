"""Playing cards as small integers (pure Python, no Django).

A card is an int 0..51: ``suit_index * 13 + (rank - 1)`` with suits in the
order S, H, D, C and ranks 1 (ace) .. 13 (king). Text form is rank then
suit: ``A 2..10 J Q K`` + ``S H D C`` (``10H``, ``QS``, ``AD``).
"""

from __future__ import annotations

from collections.abc import Iterable

from scoring.engine.text import _

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_RANK_BY_NAME = {name: rank for rank, name in enumerate(RANK_NAMES, start=1)}
_SUIT_BY_NAME = {name: index for index, name in enumerate(SUITS)}


class CardError(ValueError):
    """Raised for a card text that is not a card, or a card given twice."""


def make_card(rank: int, suit: str) -> int:
    return _SUIT_BY_NAME[suit] * 13 + rank - 1


def parse_card(text: str) -> int:
    if not isinstance(text, str):
        raise CardError(_("%(text)s is not a card: write rank then suit, e.g. 10H or QS") % {"text": repr(text)})
    cleaned = text.strip().upper()
    rank_name, suit_name = cleaned[:-1], cleaned[-1:]
    if rank_name == "T":  # a common shorthand for ten
        rank_name = "10"
    if rank_name not in _RANK_BY_NAME or suit_name not in _SUIT_BY_NAME:
        raise CardError(
            _("%(text)s is not a card: write rank (A 2..10 J Q K) then suit (S H D C), e.g. 10H or QS")
            % {"text": repr(text)}
        )
    return make_card(_RANK_BY_NAME[rank_name], suit_name)


def parse_cards(texts: Iterable[str]) -> list[int]:
    """Parse several cards; a card given twice is an error."""
    cards: list[int] = []
    for text in texts:
        card = parse_card(text)
        if card in cards:
            raise CardError(_("%(card)s is given twice") % {"card": card_name(card)})
        cards.append(card)
    return cards


def card_rank(card: int) -> int:
    return card % 13 + 1


def card_suit(card: int) -> str:
    return SUITS[card // 13]


def card_value(card: int) -> int:
    """Deadwood value: ace 1, pips as printed, faces 10."""
    return min(card % 13 + 1, 10)


def card_name(card: int) -> str:
    return RANK_NAMES[card % 13] + SUITS[card // 13]
