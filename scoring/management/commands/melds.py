"""manage.py melds CARDS... : the best arrangement of 10 cards, or the best discard from 11."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.engine.cards import CardError
from scoring.engine.melds import (
    arrangement_data,
    best_arrangement,
    best_discard,
    cards_mask,
    discard_data,
    format_arrangement,
    format_cards,
    mask_cards,
)


def split_cards(values: list[str]) -> list[str]:
    """Cards given as separate arguments and/or in quoted lists ("AS 2S,3S")."""
    return [token for value in values for token in value.replace(",", " ").split()]


class Command(BaseCommand):
    help = (
        "Show the best arrangement of 10 cards, or for 11 cards the best discard "
        "(and gin / big gin). Cards are rank then suit: A 2..10 J Q K + S H D C, e.g. 10H QS."
    )

    def add_arguments(self, parser):
        parser.add_argument("cards", nargs="+", help="10 or 11 cards, e.g. AS 2S 3S 7H 7D 7C ...")
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")

    def handle(self, *args, **options):
        try:
            mask = cards_mask(split_cards(options["cards"]))
        except CardError as exc:
            raise CommandError(str(exc)) from exc
        cards = mask_cards(mask)
        if len(cards) not in (10, 11):
            raise CommandError(f"give 10 or 11 cards, not {len(cards)}")
        names = format_cards(cards).split()
        if len(cards) == 10:
            arr = best_arrangement(cards)
            if options["json"]:
                data = {"cards": names, **arrangement_data(arr), "gin": arr.deadwood == 0}
                self.stdout.write(json.dumps(data))
                return
            self.stdout.write(format_arrangement(arr))
            if arr.deadwood == 0:
                self.stdout.write("gin")
            return
        res = best_discard(cards)
        if options["json"]:
            self.stdout.write(json.dumps({"cards": names, **discard_data(res)}))
            return
        if res.big_gin:
            self.stdout.write("big gin: all 11 cards meld, no discard")
            self.stdout.write(format_arrangement(res.arrangement))
            return
        self.stdout.write(f"discard: {format_cards([res.discard])}")
        self.stdout.write(f"keep:    {format_arrangement(res.arrangement)}")
        if res.gin:
            self.stdout.write("gin")
