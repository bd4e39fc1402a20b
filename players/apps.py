"""The players app: people, accounts, clubs and e-mail."""

from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from players import checks  # noqa: F401  (registers the system checks)
        from players.languages import remember_at_sign_in

        user_logged_in.connect(remember_at_sign_in, dispatch_uid="players.languages.remember_at_sign_in")
