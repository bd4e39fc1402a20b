"""manage.py knock --knocker "..." --defender "...": resolve a knock (layoffs, deadwood, legality)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.engine.cards import CardError
from scoring.engine.melds import format_knock, knock_data, resolve_knock


def split_cards(value: str) -> list[str]:
    return value.replace(",", " ").split()


class Command(BaseCommand):
    help = (
        "Resolve a knock: the knocker's best arrangement, the defender's melds and layoffs, "
        "both deadwoods and whether the knock is legal. Cards are rank then suit, e.g. 10H QS."
    )

    def add_arguments(self, parser):
        parser.add_argument("--knocker", required=True, help='the knocker\'s 10 cards, e.g. "AS 2S 3S 7H ..."')
        parser.add_argument("--defender", required=True, help="the defender's 10 cards")
        parser.add_argument(
            "--limit",
            type=int,
            default=10,
            help="knock limit: most deadwood the knocker may hold (default 10; 0 = gin only)",
        )
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")

    def handle(self, *args, **options):
        limit = options["limit"]
        if limit < 0:
            raise CommandError(f"--limit must be 0 or more, not {limit}")
        try:
            res = resolve_knock(split_cards(options["knocker"]), split_cards(options["defender"]), knock_limit=limit)
        except CardError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(knock_data(res)))
        else:
            self.stdout.write(format_knock(res))
