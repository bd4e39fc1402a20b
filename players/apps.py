"""The players app: people, accounts, clubs and e-mail."""

from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"

    def ready(self):
        from players import checks  # noqa: F401  (registers the system checks)
