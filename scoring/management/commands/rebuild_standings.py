"""Write every standings line again from scratch, from the stored games and hands."""

import time

from django.core.management.base import BaseCommand

from scoring.services import standing_lines_rebuild


class Command(BaseCommand):
    help = (
        "Rebuild the standings lines (two per confirmed, finished league game) from the games and hands. "
        "The services keep them right; run this after changing games outside them (e.g. raw SQL)."
    )

    def handle(self, *args, **options):
        started = time.perf_counter()
        written = standing_lines_rebuild()
        self.stdout.write(f"{written} standings lines written in {time.perf_counter() - started:.1f}s.")
