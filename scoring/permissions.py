"""Every who-may rule: who sees and who changes games, clubs' league games, fixtures and results.

Pages, the API and the services all ask these functions; none of them works a rule out again.
"""

from __future__ import annotations

from django.db.models import Q

from players.clubs import can_view_club, club_role, player_of
from players.models import MANAGER_ROLES, Club, Membership
from scoring.models import Fixture, Game, LeagueStatus, Season


def can_edit_game(user, game) -> bool:
    """The game's creator, a user linked to one of its players, and staff.

    ``game`` should have player_one and player_two loaded (the selectors do),
    so this costs no query.
    """
    if user is None or not user.is_authenticated:
        return False
    if getattr(game, "season_id", None) is not None and game.league_status in ("confirmed", "disputed"):
        # League: once confirmed (or disputed) only the club's admins correct it.
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
    club = Season.objects.select_related("club").get(pk=game.season_id).club
    return can_view_club(user, club)


# Who may do what in a league (pages and API ask these; the services enforce the state rules).


def club_of_game(game: Game) -> Club | None:
    if game.season_id is None:
        return None
    return Club.objects.filter(seasons=game.season_id).first()


def can_correct_game(user, game: Game) -> bool:
    """A confirmed (or disputed) league game: only its club's owner and admins."""
    club = club_of_game(game)
    return club is not None and club_role(user, club) in MANAGER_ROLES


def _user_player_id(user) -> int | None:
    player = player_of(user)
    return player.pk if player else None


def can_start_fixture(user, fixture: Fixture, club: Club) -> bool:
    """Either player of the fixture, or a club admin (for guests without a phone)."""
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return _user_player_id(user) in (fixture.home_id, fixture.away_id) and club_role(user, club) is not None


def can_start_open_game(user, season: Season) -> bool:
    return club_role(user, season.club) is not None


def _is_opponent(user, game: Game) -> bool:
    """``user`` plays in ``game`` and is not the one who started it."""
    player_id = _user_player_id(user)
    if player_id is None or player_id not in (game.player_one_id, game.player_two_id):
        return False
    return game.created_by_id != user.pk


def can_confirm(user, game: Game, club: Club) -> bool:
    """The other player confirms an over, provisional game; an admin may confirm any over game."""
    if game.season_id is None or not game.over or game.league_status == LeagueStatus.CONFIRMED:
        return False
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return game.league_status == LeagueStatus.PLAYING and _is_opponent(user, game)


def may_confirm(user, game: Game, club: Club) -> bool:
    """Whether ``user`` is someone who confirms this result at all (its state aside):
    a club admin, or the other player while the result is not disputed."""
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return (
        _is_opponent(user, game)
        and club_role(user, club) is not None
        and game.league_status != LeagueStatus.DISPUTED
    )


def may_dispute(user, game: Game, club: Club) -> bool:
    """Whether ``user`` is someone who disputes this result at all: the other player, a member."""
    return _is_opponent(user, game) and club_role(user, club) is not None


def can_dispute(user, game: Game, club: Club) -> bool:
    return (
        game.season_id is not None
        and game.over
        and game.league_status == LeagueStatus.PLAYING
        and club_role(user, club) is not None
        and _is_opponent(user, game)
    )
