"""The language of an account: its choice (on every device), the middleware that applies it, the sign-in hook.

The language of an answer is, in order: the account's choice (kept in the database, copied into the
session at sign-in and whenever it changes, so applying it costs no query), then the footer's choice
(Django's language cookie), then the browser's (Accept-Language), then English (settings.LANGUAGE_CODE).
Django's LocaleMiddleware does the last three; ``account_language`` below runs after the session and
the user are known and puts the account's choice first.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DatabaseError
from django.utils import translation

from players.models import LanguageChoice

SESSION_KEY = "ginleague_language"  # the signed-in account's choice, for this session


def shipped_languages() -> dict[str, str]:
    """Code -> the language's own name, as settings.LANGUAGES lists them."""
    return dict(settings.LANGUAGES)


def language_of(user) -> str:
    """The account's chosen language code, or "" (the browser's)."""
    if user is None or not getattr(user, "pk", None):
        return ""
    choice = LanguageChoice.objects.filter(user=user).values_list("language", flat=True).first()
    return choice if choice in shipped_languages() else ""


def languages_of_addresses(addresses: Iterable[str]) -> dict[str, str]:
    """E-mail address -> the language e-mail to the account with that address is written in: its choice, else
    the language it signed up in, else the one it last signed in with (only addresses with one of these)."""
    wanted = [address for address in addresses if address]
    if not wanted:
        return {}
    rows = (
        get_user_model()
        .objects.filter(email__in=wanted, language_choice__isnull=False)
        .order_by("pk")
        .values_list(
            "email", "language_choice__language", "language_choice__signed_up_in", "language_choice__last_used"
        )
    )
    shipped = shipped_languages()
    chosen: dict[str, str] = {}
    for address, *in_order in rows:
        language = next((code for code in in_order if code in shipped), "")
        if language and address not in chosen:  # two accounts with one address: the older one's
            chosen[address] = language
    return chosen


def account_language_seen(*, user, language: str, signed_up: bool = False) -> None:
    """Note the language ``user`` signed up in (``signed_up``) or signed in with: e-mail's, without a choice."""
    if language not in shipped_languages() or user is None or not getattr(user, "pk", None):
        return
    seen = {"last_used": language, **({"signed_up_in": language} if signed_up else {})}
    LanguageChoice.objects.update_or_create(user=user, defaults=seen)


def account_language_set(*, user, language: str, session=None) -> None:
    """Keep ``language`` ("" for the browser's) as the account's choice, and in ``session`` (this device's)."""
    if language and language not in shipped_languages():
        raise ValueError(f"{language!r} is not one of settings.LANGUAGES")
    LanguageChoice.objects.update_or_create(user=user, defaults={"language": language})
    if session is not None:
        if language:
            session[SESSION_KEY] = language
        else:
            session.pop(SESSION_KEY, None)


def remember_at_sign_in(sender, request, user, **kwargs) -> None:
    """user_logged_in: this session follows the account's choice (made on another device, perhaps)."""
    if request is None or not hasattr(request, "session"):
        return
    language = language_of(user)
    if language:
        request.session[SESSION_KEY] = language
    elif getattr(request, "LANGUAGE_CODE", None):  # a sign-in page's request: the language it was read in
        account_language_seen(user=user, language=request.LANGUAGE_CODE)


def account_language(get_response):
    """Middleware (after AuthenticationMiddleware): a signed-in account's chosen language wins over the rest."""

    def middleware(request):
        session = getattr(request, "session", None)
        try:
            # No session cookie: nobody is signed in, and the session is not loaded for nothing.
            language = session.get(SESSION_KEY) if session is not None and session.session_key else None
        except DatabaseError:
            # The database is out of reach: the page's own reads meet it again inside the error
            # middleware, which answers 503 in the browser's language (ginleague/errors.py).
            language = None
        if language and language in shipped_languages():
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return get_response(request)

    return middleware
