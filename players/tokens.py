"""API tokens for scripts: each user has at most one, created and revoked by themself.

Used by the API (POST/DELETE /api/token/) and by the profile page.
"""

from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token


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
