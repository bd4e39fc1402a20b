"""System checks of the players app: e-mail that is really sent needs SITE_URL for its links."""

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.core.checks.mail import NON_PRODUCTION_EMAIL_BACKENDS
from django.core.mail import DEFAULT_MAILER_ALIAS
from django.core.mail.handler import DEFAULT_MAILER_BACKEND


def sending_backend() -> str | None:
    """The default mailer's backend when it really sends e-mail (SMTP or another server), else None."""
    mailers = getattr(settings, "MAILERS", None)
    if mailers is not None:
        backend = (mailers.get(DEFAULT_MAILER_ALIAS) or {}).get("BACKEND", DEFAULT_MAILER_BACKEND)
    else:
        backend = getattr(settings, "EMAIL_BACKEND", DEFAULT_MAILER_BACKEND)
    return None if backend in NON_PRODUCTION_EMAIL_BACKENDS else backend


@register(Tags.mail)
def site_url_for_emails_sent_without_a_request(app_configs, **kwargs):
    """E-mail is sent and SITE_URL is not set: the daily reminders (no request) would link to a guess."""
    backend = sending_backend()
    if backend is None or settings.SITE_URL:
        return []
    return [
        Warning(
            f"E-mail is sent ({backend}) but SITE_URL is not set: the fixture reminders of "
            f"manage.py send_reminders link to {settings.SITE_URL_GUESS}, which may not be where people "
            "open GinLeague.",
            hint="Set SITE_URL to the address people open the app at, e.g. SITE_URL=https://gin.example.org.",
            id="players.W001",
        )
    ]
