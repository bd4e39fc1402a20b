"""DRF permission classes: the same rule as the pages (scoring.permissions)."""

from django.db.models import Exists, OuterRef, Q
from rest_framework.permissions import SAFE_METHODS, BasePermission

from players.clubs import can_view_club
from players.models import Membership
from scoring.permissions import can_edit_game


def can_delete_game(user, game) -> bool:
    """Deleting a whole game is for its creator and staff only, and only while they may change it at all
    (a confirmed league result is not deleted by its creator)."""
    if user is None or not user.is_authenticated or not can_edit_game(user, game):
        return False
    return bool(user.is_staff or user.is_superuser or (game.created_by_id and game.created_by_id == user.pk))


class CanEditGame(BasePermission):
    """Anyone may read; changing a game (its hands) needs ``can_edit_game``."""

    message = "Only the game's creator, a user linked to one of its players, or staff may change this game."

    def has_object_permission(self, request, view, obj) -> bool:
        return request.method in SAFE_METHODS or can_edit_game(request.user, obj)


# ---------------------------------------------------------------------------
# Clubs: the same rules as the club pages (players.clubs). A private club, and
# everything in it, does not exist for anyone who is not a member (404).


def visible_club_q(user, club_path: str = "") -> Q:
    """Rows whose club (reached by ``club_path``, e.g. ``"season__club"``; ``""`` for Club itself)
    ``user`` may see: public clubs, and the clubs they are a member of."""
    prefix = f"{club_path}__" if club_path else ""
    public = Q(**{f"{prefix}is_public": True})
    if user is None or not user.is_authenticated:
        return public
    member = Membership.objects.filter(club=OuterRef(club_path or "pk"), player__user=user)
    return public | Q(Exists(member))


def visible_game_q(user) -> Q:
    """Friendly games, and league games of clubs ``user`` may see."""
    return Q(season__isnull=True) | visible_club_q(user, "season__club")


def can_view_game(user, game) -> bool:
    if game.season_id is None:
        return True
    from scoring.models import Season

    club = Season.objects.select_related("club").get(pk=game.season_id).club
    return can_view_club(user, club)
