"""Write stored games out as JSON game records, with the computed ``expect``."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from scoring.selectors import game_record, games_for_export


class Command(BaseCommand):
    help = "Export every stored game as a JSON list of game records."

    def add_arguments(self, parser):
        parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")
        parser.add_argument("--game", type=int, action="append", help="only this game id (repeatable)")

    def handle(self, *args, out=None, game=None, **options):
        games = games_for_export()
        if game:
            games = games.filter(pk__in=game)
        text = json.dumps([game_record(item) for item in games.iterator(chunk_size=200)], indent=1, ensure_ascii=False)
        if out:
            Path(out).write_text(text + "\n", encoding="utf-8")
            self.stderr.write(f"wrote {out}")
        else:
            self.stdout.write(text)
