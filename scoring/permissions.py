"""Every who-may rule: who sees and who changes games, clubs' league games, fixtures and results.

Pages, the API and the services all ask these functions; none of them works a rule out again.
"""

from __future__ import annotations

from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404

from players.clubs import can_view_club, club_role, clubs_not_run_by, player_of
from players.models import MANAGER_ROLES, Club, Membership, Player, Role
from scoring.models import Fixture, Game, LeagueStatus, Season

CLOSED_SEASON = (
    "This season is closed: its results are final. No game can be started, recorded, corrected, "
    "confirmed or disputed in it."
)


def season_is_closed(game) -> bool:
    """Whether ``game`` belongs to a closed season (nothing in it changes any more).

    No query when the game's season is loaded (``select_related("season")``); one small one otherwise.
    """
    if getattr(game, "season_id", None) is None:
        return False
    if "season" in game._state.fields_cache:
        return game.season.closed_at is not None
    return Season.objects.filter(pk=game.season_id, closed_at__isnull=False).exists()


def can_edit_game(user, game) -> bool:
    """The game's creator, a user linked to one of its players, and staff; nobody once its season is closed.

    ``game`` should have player_one and player_two loaded (the selectors do),
    so this costs no query.
    """
    if user is None or not user.is_authenticated:
        return False
    if season_is_closed(game):
        return False
    if getattr(game, "season_id", None) is not None and game.league_status in ("confirmed", "disputed"):
        # League: once confirmed (or disputed) only the club's admins correct it.
        return can_correct_game(user, game)
    if user.is_staff or user.is_superuser:
        return True
    if game.created_by_id is not None and game.created_by_id == user.pk:
        return True
    return user.pk in (game.player_one.user_id, game.player_two.user_id)


def edit_refusal(user, game) -> str:
    """Why ``user`` may not change ``game``, saying what to do instead ("" when they may)."""
    if can_edit_game(user, game):
        return ""
    if season_is_closed(game):
        return CLOSED_SEASON
    if getattr(game, "season_id", None) is not None and game.league_status in ("confirmed", "disputed"):
        return (
            f"This result is {game.league_status}: only the club's admins can correct it now. "
            "Ask one of them; the game's league page keeps its history."
        )
    return "Only the game's players, its creator and staff may change it."


# Whose record a casual game may go on.


def may_record_for(user, player) -> bool:
    """Whether ``user`` may start a game that puts ``player`` on the record.

    A player nobody has claimed (a guest, a name typed at the table) is anyone's to use;
    a player claimed by an account is that account's own, its club mates' (they play at the
    same tables, and league games are between club members) and staff's. ``user`` None is
    the operator on the command line (imports, seeding), who may record anything.
    """
    if user is None:
        return True
    if player.user_id is None:
        return True
    if not user.is_authenticated:
        return False
    if player.user_id == user.pk or user.is_staff or user.is_superuser:
        return True
    return Membership.objects.filter(
        player__user=user, club_id__in=Membership.objects.filter(player=player).values("club_id")
    ).exists()


def record_owner_message(player) -> str:
    return f"{player.name}'s record belongs to another account; ask them to start the game, or use a different name."


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


def visible_club(user, slug: str) -> Club:
    """The club at ``slug`` if ``user`` may see it; Http404 otherwise (pages of clubs, seasons and stats)."""
    club = get_object_or_404(Club, slug=slug)
    if not can_view_club(user, club):
        raise Http404("No such club.")
    return club


def visible_season(user, slug: str, pk: int) -> Season:
    """Season ``pk`` of the club at ``slug`` if ``user`` may see it; Http404 otherwise."""
    season = get_object_or_404(Season.objects.select_related("club"), pk=pk, club__slug=slug)
    if not can_view_club(user, season.club):
        raise Http404("No such season.")
    return season


def club_of_game(game: Game) -> Club | None:
    """The club a league game belongs to, None for a friendly game. Every page, the API and
    the services ask this; it costs no query when the caller loaded ``season__club``."""
    if game.season_id is None:
        return None
    if Game.season.is_cached(game):
        return game.season.club
    return Season.objects.select_related("club").get(pk=game.season_id).club


def can_view_game(user, game) -> bool:
    club = club_of_game(game)
    return club is None or can_view_club(user, club)


# Who may do what in a league (pages and API ask these; the services enforce the state rules).


def merge_refusal(user, keep, drop) -> str:
    """Why ``user`` may not merge ``drop`` into ``keep``, saying what to do instead ("" when they may).

    Staff merge any two records (the service still refuses two accounts). Anyone else runs (owns or
    administers) a club both records belong to, and every club ``drop`` belongs to: its memberships,
    roles and results move to ``keep``, so a merge never takes anyone into a club the merger does not
    run. ``keep``'s other clubs must be run by the merger too, unless ``keep`` is the merger's own
    record (whose clubs see only the merger's own record gain the guest's games). Only a guest (no
    account) is merged away, never into another account that has not joined its clubs (a person with
    an account joins a club by accepting an invitation), and never a club's owner (ownership changes
    hands only through staff).
    """
    if user is None or not user.is_authenticated:
        return "Sign in to merge player records."
    if user.is_staff or user.is_superuser:
        return ""
    if drop.user_id is not None:
        return (
            f"{drop.name}'s record belongs to an account: only a guest (no account) can be merged into "
            "another record."
        )
    managed = Membership.objects.filter(player__user=user, role__in=MANAGER_ROLES).values("club_id")
    shared = Membership.objects.filter(player=drop, club_id__in=managed).filter(
        club_id__in=Membership.objects.filter(player=keep).values("club_id")
    )
    own_record = keep.user_id is not None and keep.user_id == user.pk
    if (
        not shared.exists()
        or clubs_not_run_by(user, drop).exists()
        or (not own_record and clubs_not_run_by(user, keep).exists())
    ):
        return (
            "You may merge only records of the clubs you run (as owner or admin): both must be members of "
            "one of your clubs, and neither of a club you do not run (your own record aside). "
            "Ask staff for any other merge."
        )
    if Membership.objects.filter(player=drop, role=Role.OWNER).exists():
        return f"{drop.name} owns a club: only staff merge a club owner's record."
    if keep.user_id is not None and not own_record:
        missing = (
            Club.objects.filter(memberships__player=drop).exclude(memberships__player=keep).order_by("name").first()
        )
        if missing is not None:
            return (
                f"{keep.name} has an account and is not a member of {missing.name}: send them an invitation "
                "link first (they join when they accept it), then merge."
            )
    return ""


def mergeable_players(user):
    """The records ``user`` may pick from when merging: every player for staff, else the members
    of the clubs they run."""
    if user.is_staff or user.is_superuser:
        return Player.objects.order_by("name")
    managed = Membership.objects.filter(player__user=user, role__in=MANAGER_ROLES).values("club_id")
    return Player.objects.filter(memberships__club_id__in=managed).distinct().order_by("name")


def can_correct_game(user, game: Game) -> bool:
    """A confirmed (or disputed) league game: only its club's owner and admins."""
    club = club_of_game(game)
    return club is not None and club_role(user, club) in MANAGER_ROLES


def _user_player_id(user) -> int | None:
    player = player_of(user)
    return player.pk if player else None


def can_start_fixture(user, fixture: Fixture, club: Club) -> bool:
    """Either player of the fixture, or a club admin (for guests without a phone); not in a closed season."""
    if fixture.season.closed_at is not None:
        return False
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return _user_player_id(user) in (fixture.home_id, fixture.away_id) and club_role(user, club) is not None


def can_start_open_game(user, season: Season) -> bool:
    return season.closed_at is None and club_role(user, season.club) is not None


def can_start_tie(user, season: Season, player_ids) -> bool:
    """A knockout tie's game: either of its players (members) or a club admin; not in a closed season."""
    if season.closed_at is not None:
        return False
    role = club_role(user, season.club)
    if role in MANAGER_ROLES:
        return True
    return role is not None and _user_player_id(user) in player_ids


def can_manage_season(user, season: Season) -> bool:
    """The club's owner and admins organise its seasons: due dates, closing, the playoffs."""
    return club_role(user, season.club) in MANAGER_ROLES


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
    if season_is_closed(game):
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


def is_asked_to_confirm(user, game: Game, club: Club) -> bool:
    """The player asked to confirm (or dispute) a provisional result, in the to-do and by e-mail:
    the other player (not the one who started the game), a member of the club."""
    return _is_opponent(user, game) and club_role(user, club) is not None


def can_dispute(user, game: Game, club: Club) -> bool:
    return (
        game.season_id is not None
        and game.over
        and game.league_status == LeagueStatus.PLAYING
        and not season_is_closed(game)
        and club_role(user, club) is not None
        and _is_opponent(user, game)
    )
