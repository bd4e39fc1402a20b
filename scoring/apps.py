"""The scoring app: the kitchen table, and the home of the league, statistics and API wings."""

from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"

    def ready(self) -> None:
        # The pure engine's messages answer in the request's language (scoring/engine/text.py).
        from django.utils.translation import gettext, ngettext

        from scoring.engine.text import install_translator

        install_translator(gettext, ngettext)
