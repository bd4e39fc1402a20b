"""manage.py send_reminders: e-mail each player whose league fixture is due by tomorrow or overdue (run daily)."""

from __future__ import annotations

import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from scoring.notify import fixture_reminders


class Command(BaseCommand):
    help = (
        "E-mail both players of every fixture of an open season that is due by tomorrow or overdue "
        "and not played. Run it once a day (cron); a fixture is e-mailed about at most once a day."
    )

    def add_arguments(self, parser):
        parser.add_argument("--date", help="act as if today were this day (YYYY-MM-DD); default: today")

    def handle(self, *args, **options):
        today = timezone.localdate()
        if options["date"]:
            try:
                today = datetime.date.fromisoformat(options["date"])
            except ValueError:
                raise CommandError(f"--date must be YYYY-MM-DD, not {options['date']!r}") from None
        sent = fixture_reminders(today=today)
        self.stdout.write(f"{sent} reminder e-mail{'' if sent == 1 else 's'} sent.")
