"""E-mail to people: who wants it, absolute links, and sending after the write commits.

Every e-mail the app sends goes through ``send_after_commit``: it runs once the
caller's transaction commits (never if it rolls back), sends one message per
address (nobody sees another's address), and logs a failure instead of raising,
so a mail server that is down never breaks or undoes a write.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.template.loader import render_to_string

from players.models import NotificationPreference

logger = logging.getLogger(__name__)


def absolute_url(path: str) -> str:
    """``path`` (from ``reverse``) as a link that works from a mail reader: SITE_URL in front."""
    return f"{settings.SITE_URL}{path}"


def addresses_of(users: Iterable) -> list[str]:
    """The e-mail addresses of those ``users`` who have one and have not turned e-mail off (one query)."""
    by_pk = {user.pk: user for user in users if user is not None and getattr(user, "email", "")}
    if not by_pk:
        return []
    opted_out = set(
        NotificationPreference.objects.filter(user_id__in=list(by_pk), email=False).values_list("user_id", flat=True)
    )
    addresses = []
    for pk, user in by_pk.items():
        if pk not in opted_out and user.email not in addresses:
            addresses.append(user.email)
    return addresses


def wants_email(user) -> bool:
    """The account's switch on the account page (on unless turned off)."""
    return not NotificationPreference.objects.filter(user=user, email=False).exists()


def send_now(*, to: Iterable[str], subject: str, template: str, context: dict) -> int:
    """Render ``templates/email/<template>.txt`` and send it to each address on its own; how many went.

    A failure is logged, never raised.
    """
    addresses = [address for address in to if address]
    if not addresses:
        return 0
    try:
        body = render_to_string(f"email/{template}.txt", context)
        messages = [EmailMessage(subject=subject, body=body, to=[address]) for address in addresses]
        return mailers.default.send_messages(messages) or 0
    except Exception:  # the write is done; a mail server's trouble must not turn it into an error page
        logger.exception("Could not send the %s e-mail to %d address(es)", template, len(addresses))
        return 0


def after_commit(action: Callable[[], object], *, what: str) -> None:
    """Run ``action`` (which works out who to tell and sends) once the current transaction commits.

    Called outside a transaction it runs at once. Any error is logged: the write stands.
    """

    def run() -> None:
        try:
            action()
        except Exception:
            logger.exception("Could not send the %s e-mail", what)

    transaction.on_commit(run)


def send_after_commit(*, to: Iterable[str], subject: str, template: str, context: dict) -> None:
    """``send_now`` once the caller's transaction commits (nothing at all if it rolls back)."""
    addresses = list(to)
    if addresses:
        after_commit(
            lambda: send_now(to=addresses, subject=subject, template=template, context=context), what=template
        )
