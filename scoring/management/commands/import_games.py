"""Store JSON game records; each file is all or nothing."""

from django.core.management.base import BaseCommand, CommandError

from scoring.engine.record import RecordError, parse_record
from scoring.management.commands.scoresheet import load_record
from scoring.services import game_import


class Command(BaseCommand):
    help = "Import JSON game records. A file with any error is refused whole, naming the hand and field."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, files, **options):
        failed = []
        for path in files:
            try:
                data = load_record(path)
                records = data if isinstance(data, list) else [data]
                from django.db import transaction

                with transaction.atomic():
                    games = [game_import(record=parse_record(item)) for item in records]
            except RecordError as error:
                where = f"hand {error.hand}, " if error.hand else ""
                where += f"board {error.board}, " if error.board else ""
                self.stderr.write(f"{path}: refused ({where}field {error.field}): {error.message}")
                failed.append(path)
                continue
            ids = ", ".join(str(game.pk) for game in games)
            self.stdout.write(f"{path}: imported {len(games)} game(s) ({ids})")
        if failed:
            raise CommandError(f"{len(failed)} file(s) refused; nothing of them was stored")
