"""Load a backup written by `manage.py backup` into an empty, migrated database."""

import gzip
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.backup import BackupError, backup_restore


class Command(BaseCommand):
    help = "Restore a `manage.py backup` file into an empty database (run `manage.py migrate` first)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the backup file (.gz is read compressed; - reads standard input)")
        parser.add_argument("--database", default="default", help="the database to restore into")
        parser.add_argument(
            "--force",
            action="store_true",
            help="restore a file whose digest does not match its content (changed after it was written)",
        )

    def handle(self, *args, file, database="default", force=False, **options):
        try:
            if file == "-":
                report = backup_restore(source=sys.stdin, using=database, force=force)
            else:
                path = Path(file)
                if not path.is_file():
                    raise CommandError(f"No backup file at {path}.")
                opener = gzip.open if path.suffix == ".gz" else open
                with opener(path, "rt", encoding="utf-8") as source:
                    report = backup_restore(source=source, using=database, force=force)
        except BackupError as error:
            raise CommandError(str(error)) from None
        summary = ", ".join(f"{count} {label}" for label, count in report.rows.items())
        self.stdout.write(f"Restored {summary}.")
        self.stdout.write(f"Recomputed {report.games_recomputed} games with the rules engine.")
        if report.games_changed:
            ids = ", ".join(str(pk) for pk in report.games_changed)
            self.stdout.write(self.style.WARNING(f"The engine corrected the stored figures of games {ids}."))
