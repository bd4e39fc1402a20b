"""E-mail to people: who wants it, absolute links, and sending after the write commits.

A link in an e-mail goes to the address the request that caused the e-mail came to
(``links_from_the_request``, a middleware, remembers the request); without a request (the
daily reminders) to SITE_URL. Every e-mail the app sends goes through ``send_after_commit``: it runs once the
caller's transaction commits (never if it rolls back), sends one message per
address (nobody sees another's address), and logs a failure instead of raising,
so a mail server that is down never breaks or undoes a write.

Each message is written in its recipient's language: the language their account chose (players.languages),
else the one it signed up in, else the one it last signed in with, else English (settings.LANGUAGE_CODE),
never the language of whoever caused it. The body's template is
rendered under that language; so is the subject when it is lazy (``gettext_lazy``, ``format_lazy``) or a
callable, while a plain str is sent as it is.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation

from players.languages import languages_of_addresses
from players.models import NotificationPreference

logger = logging.getLogger(__name__)

# The request being answered, if any: its e-mail links to where the app was reached (host, port, scheme).
_current_request: contextvars.ContextVar = contextvars.ContextVar("ginleague_mail_request", default=None)


def links_from_the_request(get_response):
    """Middleware: e-mail caused by this request links to the address the request came to."""

    def middleware(request):
        token = _current_request.set(request)
        try:
            return get_response(request)
        finally:
            _current_request.reset(token)

    return middleware


def absolute_url(path: str) -> str:
    """``path`` (from ``reverse``) as a link that works from a mail reader.

    Built from the request that caused the e-mail when there is one; else (``send_reminders``) from
    SITE_URL, or its guess when it is not set (``manage.py check`` warns when e-mail is sent then).
    """
    request = _current_request.get()
    if request is not None:
        return request.build_absolute_uri(path)
    return f"{settings.SITE_URL or settings.SITE_URL_GUESS}{path}"


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


def send_now(*, to: Iterable[str], subject: Any, template: str, context: dict) -> int:
    """Render ``templates/email/<template>.txt`` and send it to each address on its own; how many went.

    Rendered once per language among the recipients, each in its own (see the module). ``subject``: a str,
    a lazy string or a callable returning one. A failure is logged, never raised.
    """
    addresses = [address for address in to if address]
    if not addresses:
        return 0
    try:
        chosen = languages_of_addresses(addresses)
        by_language: dict[str, list[str]] = {}
        for address in addresses:
            by_language.setdefault(chosen.get(address, settings.LANGUAGE_CODE), []).append(address)
        messages = []
        for language, group in by_language.items():
            with translation.override(language):
                subject_text = str(subject() if callable(subject) else subject)
                body = render_to_string(f"email/{template}.txt", context)
            messages += [EmailMessage(subject=subject_text, body=body, to=[address]) for address in group]
        return mailers.default.send_messages(messages) or 0
    except Exception:  # the write is done; a mail server's trouble must not turn it into an error page
        logger.exception("Could not send the %s e-mail to %d address(es)", template, len(addresses))
        return 0


def after_commit(action: Callable[[], object], *, what: str) -> None:
    """Run ``action`` (which works out who to tell and sends) once the current transaction commits.

    Called outside a transaction it runs at once. Any error is logged: the write stands. It runs in the
    context it was scheduled in, so its links follow the request that made the change.
    """
    scheduled_in = contextvars.copy_context()

    def run() -> None:
        try:
            scheduled_in.run(action)
        except Exception:
            logger.exception("Could not send the %s e-mail", what)

    transaction.on_commit(run)


def send_after_commit(*, to: Iterable[str], subject: Any, template: str, context: dict) -> None:
    """``send_now`` once the caller's transaction commits (nothing at all if it rolls back)."""
    addresses = list(to)
    if addresses:
        after_commit(
            lambda: send_now(to=addresses, subject=subject, template=template, context=context), what=template
        )
