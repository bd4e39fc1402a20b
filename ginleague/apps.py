"""The project's own app: it registers the deployment's system checks (ginleague/checks.py) and keeps
translations' answers (ginleague/kept_gettext.py)."""

from django.apps import AppConfig


class GinLeagueConfig(AppConfig):
    name = "ginleague"
    verbose_name = "GinLeague"

    def ready(self) -> None:
        from ginleague import (
            checks,  # noqa: F401 (registers the checks: Django's documented place for it)
            kept_gettext,
        )

        kept_gettext.install()
