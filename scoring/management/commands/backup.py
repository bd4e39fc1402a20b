"""Write the whole install (accounts, clubs, seasons, games, audit trail) to one JSON backup file."""

import gzip
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand

from scoring.backup import backup_write


class Command(BaseCommand):
    help = "Back up everything to one JSON file (FILE.gz is compressed); restore it with `manage.py restore FILE`."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="where to write (default: standard output)")
        parser.add_argument("--database", default="default", help="the database to back up")

    def handle(self, *args, file=None, database="default", **options):
        if not file or file == "-":
            backup_write(out=self.stdout, using=database)  # a line break between writes is still the same JSON
            return
        target = Path(file)
        # Written beside the target and renamed at the end: a failed run never leaves half a backup in its place.
        handle, temporary = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".part")
        os.close(handle)
        try:
            opener = gzip.open if target.suffix == ".gz" else open
            with opener(temporary, "wt", encoding="utf-8") as out:
                counts = backup_write(out=out, using=database)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        summary = ", ".join(f"{count} {label}" for label, count in counts.items() if count)
        self.stderr.write(f"wrote {target}: {summary}")
