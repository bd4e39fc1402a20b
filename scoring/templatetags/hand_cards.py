"""``{% hand_cards hand %}``: a stored hand's melds, lay-offs and deadwood as card faces.

Worked out at render time by the pure solver (scoring.engine.card_facts); hands
without cards render nothing and cost nothing.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.translation import pgettext_lazy

from scoring.engine.card_facts import hand_display

register = template.Library()

# How who went out did it, beside their name above their cards.
WENT_OUT = {
    "knock": pgettext_lazy("gin scoring: how a player went out", "knocked"),
    "gin": pgettext_lazy("gin scoring: how a player went out", "gin"),
    "big_gin": pgettext_lazy("gin scoring: how a player went out", "big gin"),
}


def card_sides(cards: Any, ending: str, *, by_name: str, other_name: str) -> list[dict] | None:
    """The two sides (who went out first) ready for scoring/_hand_cards.html; None without usable cards."""
    return display_sides(hand_display(cards, ending), ending, by_name=by_name, other_name=other_name)


def display_sides(shown: dict | None, ending: str, *, by_name: str, other_name: str) -> list[dict] | None:
    """``card_facts`` display data (``hand_display`` / ``Worked.display``) as the template's two sides."""
    if shown is None:
        return None
    return [
        {**shown["by"], "name": by_name, "went_out": WENT_OUT.get(ending, "")},
        {**shown["defender"], "name": other_name, "went_out": ""},
    ]


def hand_cards_html(hand, player_one, player_two) -> str:
    """The cards block of one hand as HTML ("" when it has none)."""
    if not hand.cards or not hand.by_id:
        return ""
    by, other = (player_one, player_two) if hand.by_id == player_one.pk else (player_two, player_one)
    sides = card_sides(hand.cards, hand.ending, by_name=by.name, other_name=other.name)
    if sides is None:
        return ""
    return render_to_string("scoring/_hand_cards.html", {"sides": sides})


@register.simple_tag
def hand_cards(hand) -> str:
    """Needs ``hand.game`` with its two players loaded (the selectors do)."""
    return hand_cards_html(hand, hand.game.player_one, hand.game.player_two)
