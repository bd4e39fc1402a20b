"""DRF permission classes: the same rule as the pages (scoring.permissions)."""

from django.utils.translation import gettext_lazy
from rest_framework.permissions import SAFE_METHODS, BasePermission

from scoring.permissions import (
    can_view_game,
    delete_refusal,
    edit_refusal,
    refuse_closed_season,
    visible_club_q,
    visible_game_q,
)

__all__ = ["SignedInSession", "CanEditGame", "can_delete_game", "can_view_game", "visible_club_q", "visible_game_q"]


def can_delete_game(user, game) -> bool:
    """Deleting a whole game: its creator and staff while they may change it; a finished league game only
    voided by an organiser who did not play (scoring.permissions.delete_refusal says why not)."""
    return not delete_refusal(user, game)


class SignedInSession(BasePermission):
    """A signed-in session (whose writes DRF's session authentication checks for CSRF), not an API token.

    Whoever holds a leaked token must not be able to replace it and cut its owner's scripts off.
    """

    message = gettext_lazy(
        "An API token cannot create, replace or revoke a token: sign in on the site and use its session "
        "(with the CSRF token), or the account page."
    )

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and request.auth is None)


class CanEditGame(BasePermission):
    """Anyone may read; changing a game (its hands) needs ``can_edit_game``."""

    message = gettext_lazy(
        "Only the game's creator, a user linked to one of its players, or staff may change this game."
    )

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        # The state first: a closed season's game is refused as such (400), whoever asks.
        refuse_closed_season(season_id=getattr(obj, "season_id", None))
        refusal = edit_refusal(request.user, obj)
        if refusal:
            self.message = refusal  # why, and what to do (e.g. a disputed result: ask the club's admins)
        return not refusal
