"""Who may change a game (pages and, if it likes, the API)."""

from __future__ import annotations

from django.db.models import Q


def can_edit_game(user, game) -> bool:
    """The game's creator, a user linked to one of its players, and staff.

    ``game`` should have player_one and player_two loaded (the selectors do),
    so this costs no query.
    """
    if user is None or not user.is_authenticated:
        return False
    if getattr(game, "season_id", None) is not None and game.league_status in ("confirmed", "disputed"):
        # League: once confirmed (or disputed) only the club's admins correct it (scoring/league.py).
        from scoring.league import can_correct_game

        return can_correct_game(user, game)
    if user.is_staff or user.is_superuser:
        return True
    if game.created_by_id is not None and game.created_by_id == user.pk:
        return True
    return user.pk in (game.player_one.user_id, game.player_two.user_id)


# Who may SEE what: a private club, and every league game in it, does not exist
# for anyone who is not a member (404 on pages and API alike).


def member_club_ids(user):
    """A subquery of the ids of the clubs ``user`` belongs to (empty for anonymous)."""
    from players.models import Membership

    if user is None or not getattr(user, "is_authenticated", False):
        return Membership.objects.none().values("club_id")
    return Membership.objects.filter(player__user=user).values("club_id")


def visible_club_q(user, club_path: str = "") -> Q:
    """Rows whose club (reached by ``club_path``, e.g. ``"season__club"``; ``""`` for Club itself)
    ``user`` may see: public clubs, and the clubs they are a member of."""
    public = Q(**{f"{club_path}__is_public" if club_path else "is_public": True})
    if user is None or not getattr(user, "is_authenticated", False):
        return public
    return public | Q(**{f"{club_path}_id__in" if club_path else "pk__in": member_club_ids(user)})


def visible_game_q(user) -> Q:
    """Friendly games, and league games of clubs ``user`` may see."""
    return Q(season__isnull=True) | visible_club_q(user, "season__club")


def can_view_game(user, game) -> bool:
    if game.season_id is None:
        return True
    from players.clubs import can_view_club
    from scoring.models import Season

    club = Season.objects.select_related("club").get(pk=game.season_id).club
    return can_view_club(user, club)
