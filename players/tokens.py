"""API tokens for scripts: each user has at most one, created and revoked by themself.

Used by the API (POST/DELETE /api/token/, and ``TokenAuthentication`` on every request that
sends one) and by the profile page. Both doors share one rate limit (``TokenThrottle``).
"""

from functools import cache
from math import ceil

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from rest_framework import authentication, exceptions, throttling
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings


def token_create(*, user) -> Token:
    """A new token for ``user``; any previous token stops working at once."""
    if user is None or not user.is_authenticated:
        raise ValueError("Only a signed-in user can have an API token.")
    for attempt in range(2):
        try:
            with transaction.atomic():
                Token.objects.filter(user=user).delete()
                return Token.objects.create(user=user)
        except IntegrityError:  # the same user asked twice at the same moment: try once more
            if attempt:
                raise
    raise AssertionError("unreachable")


def token_revoke(*, user) -> bool:
    """Revoke ``user``'s token; True if there was one."""
    if user is None or not user.is_authenticated:
        return False
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def token_for(*, user) -> Token | None:
    """The user's current token, or None."""
    if user is None or not user.is_authenticated:
        return None
    return Token.objects.filter(user=user).first()


class TokenThrottle(throttling.SimpleRateThrottle):
    """Creating, replacing and revoking API tokens: one count per account for the API and the account page.

    The rate is REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["token"], read on every request (README: "Rate limits").
    """

    scope = "token"

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def token_change_refused(request) -> str | None:
    """Why this request may not create or revoke a token now (the shared limit is reached), else None (and counted)."""
    throttle = TokenThrottle()
    if throttle.allow_request(request, None):
        return None
    minutes = max(1, ceil((throttle.wait() or 0) / 60))
    return ngettext(
        "Too many API token changes: try again in %(count)s minute.",
        "Too many API token changes: try again in %(count)s minutes.",
        minutes,
    ) % {"count": minutes}


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's ``Authorization: Token <key>`` check, with the account read by one plain statement.

    DRF's own look-up builds and compiles an ORM join of token and account on every request: about
    0.5 ms, three times the statement's own cost, on every API request (a hand POST is ~6 ms in all).
    Same answers: the token's account if it is active, else DRF's refusals.
    """

    def authenticate_credentials(self, key):
        if "\x00" in key:  # no key holds one, and PostgreSQL refuses it in a parameter (a 500, not a 403)
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = next(iter(get_user_model()._default_manager.raw(_account_of_token_sql(), [key])), None)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, Token(key=key, user=user)  # request.auth: nothing reads more of it than this


@cache
def _account_of_token_sql() -> str:
    """The statement DRF's look-up amounts to (the account's columns, by token key), written once per process.

    For an account model whose columns are all in its own table (Django's User, this project's).
    """
    quote = connection.ops.quote_name
    account, token = get_user_model()._meta, Token._meta
    columns = ", ".join(f"{quote(account.db_table)}.{quote(field.column)}" for field in account.concrete_fields)
    # Only quoted names from the models' own metadata go into the text; the key is a parameter.
    return (
        f"SELECT {columns} FROM {quote(account.db_table)} INNER JOIN {quote(token.db_table)}"  # noqa: S608
        f" ON {quote(token.db_table)}.{quote(token.get_field('user').column)}"
        f" = {quote(account.db_table)}.{quote(account.pk.column)}"
        f" WHERE {quote(token.db_table)}.{quote(token.pk.column)} = %s"
    )
