"""Every who-may rule: who sees and who changes games, clubs' league games, fixtures and results.

Pages, the API and the services all ask these functions; none of them works a rule out again.
"""

from __future__ import annotations

import functools

from django.core.exceptions import ValidationError
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.clubs import can_view_club, club_role, clubs_not_run_by, player_of
from players.models import MANAGER_ROLES, Club, Membership, Player, Role
from scoring.models import FactChange, Fixture, Game, Hand, LeagueStatus, Season

CLOSED_SEASON = gettext_lazy(
    "This season is closed: its results, final standings and champion are final. Nothing in it can "
    "change: no game started, recorded, corrected, confirmed or disputed, and no new ranking, rules "
    "or due dates."
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


def refuse_closed_season(*, season_id: int | None, lock: bool = False) -> None:
    """The one guard of a closed season: its results are final.

    Every write that could change a season's final order or champion (its ranking and rules, its
    fixtures and due dates, starting, recording, correcting, removing or deleting its games and hands,
    confirmations, disputes, and merges of players who both have results in it) calls this inside
    its transaction, before it asks who is writing: the state is refused first, then the person.
    It lives here, below every writer (the league wing, hands, merges), beside ``season_is_closed``.

    The season is read afresh (never from a loaded object that may predate the closing). ``lock``
    takes the season's row, as ``season_close`` does, for writes that hold no game's lock; a game's
    writers hold that game's lock, which ``season_close`` waits for before it closes.
    """
    if season_id is None:
        return
    seasons = Season.objects.filter(pk=season_id)
    if lock:
        seasons = seasons.select_for_update()
    # The row itself is read (not filtered on closed_at) so that ``lock`` locks it either way.
    if any(closed_at is not None for closed_at in seasons.values_list("closed_at", flat=True)):
        raise ValidationError({"season": [str(CLOSED_SEASON)]})


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
    return user.pk in player_user_ids(game)


def player_user_ids(game) -> tuple[int | None, ...]:
    """The accounts of the game's players: two, or a partnership game's four (whose partners are read if
    not loaded)."""
    users = (game.player_one.user_id, game.player_two.user_id)
    if getattr(game, "player_three_id", None) is not None:
        users += (game.player_three.user_id, game.player_four.user_id)
    return users


def played_by_q(user) -> Q:
    """Games a player of account ``user`` (an account or its id) plays in: either seat of two, or any of four.
    The account's player (an account has one) is a subquery compared with each seat, not a join of the players
    and their accounts per seat: with the seats' names, that made a nine-table join that PostgreSQL took
    30-70 ms to plan on every home page at 100,000 games."""
    player = Subquery(Player.objects.filter(user=user).values("pk")[:1])
    return Q(player_one_id=player) | Q(player_two_id=player) | Q(player_three_id=player) | Q(player_four_id=player)


def edit_refusal(user, game) -> str:
    """Why ``user`` may not change ``game``, saying what to do instead ("" when they may)."""
    if can_edit_game(user, game):
        return ""
    if season_is_closed(game):
        return str(CLOSED_SEASON)
    if getattr(game, "season_id", None) is not None and game.league_status in ("confirmed", "disputed"):
        if game.league_status == "confirmed":  # one sentence each: a translation may inflect the state
            return _(
                "This result is confirmed: only the club's admins can correct it now. "
                "Ask one of them; the game's league page keeps its history."
            )
        return _(
            "This result is disputed: only the club's admins can correct it now. "
            "Ask one of them; the game's league page keeps its history."
        )
    return _("Only the game's players, its creator and staff may change it.")


# Deleting a whole game. A finished league game is never deleted by a player: its result stays, confirmed
# or not. An organiser of its club who did not play in it (or staff) may void it, with a reason
# (scoring.league.services.game_void): its history then stays with its fixture, which is open again.


def is_void_not_delete(game) -> bool:
    """Whether removing ``game`` is voiding a finished league result (a reason needed) rather than deleting."""
    return getattr(game, "season_id", None) is not None and bool(game.over)


def delete_refusal(user, game) -> str:
    """Why ``user`` may not delete (or void) ``game`` now, saying what to do instead ("" when they may)."""
    if user is None or not user.is_authenticated:
        return _("Sign in to delete a game.")
    if season_is_closed(game):
        return str(CLOSED_SEASON)
    if is_void_not_delete(game):
        organiser = user.is_staff or user.is_superuser or can_correct_game(user, game)
        if organiser and not plays_in(user, game):
            if getattr(game, "fixture_id", None) is None:
                return _(
                    "Only a fixture's game is voided (its history stays with the fixture); correct the hands "
                    "of this game instead."
                )
            return ""
        if game.league_status == LeagueStatus.CONFIRMED:
            return _(
                "This result is confirmed: a finished league game is never deleted. An organiser of the club "
                "who did not play in it may void it, with a reason kept in the fixture's history."
            )
        return _(
            "A finished league game is never deleted by its players: its result stays until it is confirmed "
            "or disputed. An organiser of the club who did not play in it may void it, with a reason kept "
            "in the fixture's history."
        )
    if can_edit_game(user, game) and (
        user.is_staff or user.is_superuser or (game.created_by_id is not None and game.created_by_id == user.pk)
    ):
        return ""
    return _("Only the game's creator or staff may delete this game.")


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
    return _("%(name)s's record belongs to another account; ask them to start the game, or use a different name.") % {
        "name": player.name
    }


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
        raise Http404(_("No such club."))
    return club


def visible_season(user, slug: str, pk: int) -> Season:
    """Season ``pk`` of the club at ``slug`` if ``user`` may see it; Http404 otherwise."""
    season = get_object_or_404(Season.objects.select_related("club"), pk=pk, club__slug=slug)
    if not can_view_club(user, season.club):
        raise Http404(_("No such season."))
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
        return _("Sign in to merge player records.")
    if user.is_staff or user.is_superuser:
        return ""
    if drop.user_id is not None:
        return _(
            "%(name)s's record belongs to an account: only a guest (no account) can be merged into another record."
        ) % {"name": drop.name}
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
        return _(
            "You may merge only records of the clubs you run (as owner or admin): both must be members of "
            "one of your clubs, and neither of a club you do not run (your own record aside). "
            "Ask staff for any other merge."
        )
    if Membership.objects.filter(player=drop, role=Role.OWNER).exists():
        return _("%(name)s owns a club: only staff merge a club owner's record.") % {"name": drop.name}
    if keep.user_id is not None and not own_record:
        missing = (
            Club.objects.filter(memberships__player=drop).exclude(memberships__player=keep).order_by("name").first()
        )
        if missing is not None:
            return _(
                "%(name)s has an account and is not a member of %(club)s: send them an invitation "
                "link first (they join when they accept it), then merge."
            ) % {"name": keep.name, "club": missing.name}
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


def can_check_in(user, season: Season, player) -> bool:
    """Who marks a player here (or gone) at a Swiss night: the night's organisers, for any member; a
    player with an account, for themselves (from their phone)."""
    if season.closed_at is not None or not getattr(user, "is_authenticated", False):
        return False
    return can_manage_season(user, season) or (player.user_id is not None and player.user_id == user.pk)


CHECK_IN_REFUSAL = gettext_lazy("Only the night's organisers, or the player themselves, may check a player in or out.")


def can_call_time(user, game: Game) -> bool:
    """Who may call time on a game (docs/rules.md, "A game ended by time"): whoever may record its hands
    (its players, its creator, staff), and the organisers of the season it counts in, who run the room."""
    if can_edit_game(user, game):
        return True
    if user is None or not user.is_authenticated or game.season_id is None or season_is_closed(game):
        return False
    return can_manage_season(user, game.season)


CALL_TIME_REFUSAL = gettext_lazy(
    "Only the game's players, its creator, staff or the season's organisers may call time."
)


# Who confirms a league result. One rule, written once as filters on games (``confirmer_q``): the
# to-do selects with it, and the questions about one game below ask it of that game's row.
#
# Nobody confirms their own result: a player who started the game, entered any of its hands, or changed
# it (corrected, removed or set aside a hand, called time), on any phone, never confirms it. Once it is
# over, a change by one of its players makes it that player's alone (``Game.result_changed_by``): the other
# player then confirms it, checking the change.
# The other player does (when both have accounts and the other touched none of it), or an organiser (owner,
# admin) who did not play. When no player can (a guest, or both players entered or changed it), its
# organisers who did not play are asked; only when the club has none may its owner confirm their own game
# ("confirmed by a player of the game").

HAS_GUEST = Q(player_one__user__isnull=True) | Q(player_two__user__isnull=True)

# The audit lines of a change to a game's result (FactChange.Action values): whoever wrote one changed it.
RESULT_CHANGES = ("hand_added", "hand_edited", "hand_removed", "version_set_aside", "time_called", "time_withdrawn")


def _played_q(user) -> Q:
    return Q(player_one__user=user) | Q(player_two__user=user)  # league games: two players


def _entered_q(user=None, *, player: str = "") -> Q:
    """Games whose result an account started, entered or changed: ``user`` (an account or its id), or the
    account of the game's ``player`` ("player_one", "player_two")."""
    account = F(f"{player}__user") if player else user
    outer = OuterRef(f"{player}__user") if player else user
    # A player's change once the game was over makes the result theirs alone (the other checks the change).
    return Q(result_changed_by=account) | (
        Q(result_changed_by__isnull=True)
        & (
            Q(created_by=account)
            | Q(Exists(Hand.objects.filter(game=OuterRef("pk"), recorded_by=outer)))
            | Q(Exists(FactChange.objects.filter(game=OuterRef("pk"), actor=outer, action__in=RESULT_CHANGES)))
        )
    )


def _recorded_q(user) -> Q:
    """Games whose result ``user`` started, entered or changed (any hand, on any phone), or changed last once over."""
    return _entered_q(user)


def _no_player_confirms_q() -> Q:
    """Games neither of whose players may confirm: one is a guest, or both entered or changed the result."""
    return HAS_GUEST | (_entered_q(player="player_one") & _entered_q(player="player_two"))


def _club_ids(user, roles=None):
    """The clubs ``user`` (an account or its id) belongs to, with one of ``roles`` if given."""
    memberships = Membership.objects.filter(player__user=user)
    if roles is not None:
        memberships = memberships.filter(role__in=roles)
    return memberships.values("club_id")


def _opponent_q(user) -> Q:
    """Games ``user`` plays in, as a member of the club, and did not record: theirs to confirm or dispute."""
    return _played_q(user) & ~_recorded_q(user) & Q(season__club_id__in=_club_ids(user))


def _no_organiser_off_the_table_q() -> Q:
    """Games whose club has no organiser with an account who is not one of the game's two players."""
    return ~Exists(
        Membership.objects.filter(
            club_id=OuterRef("season__club_id"), role__in=MANAGER_ROLES, player__user__isnull=False
        )
        .exclude(player_id=OuterRef("player_one_id"))
        .exclude(player_id=OuterRef("player_two_id"))
    )


def _confirm_roles_q(user) -> tuple[Q, Q, Q]:
    """The three ways ``user`` confirms a result: as the opponent (provisional results only), as an
    organiser who did not play, as the owner playing a guest in a club with no other organiser."""
    opponent = _opponent_q(user) & ~HAS_GUEST & Q(league_status=LeagueStatus.PLAYING)
    organiser = Q(season__club_id__in=_club_ids(user, MANAGER_ROLES)) & ~_played_q(user)
    owner_alone = (
        Q(season__club_id__in=_club_ids(user, (Role.OWNER,)))
        & _played_q(user)
        & _no_player_confirms_q()
        & _no_organiser_off_the_table_q()
    )
    return opponent, organiser, owner_alone


def confirmer_q(user) -> Q:
    """League games whose result ``user`` is someone to confirm (whether it can be confirmed now aside)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Q(pk__in=[])
    opponent, organiser, owner_alone = _confirm_roles_q(user)
    return opponent | organiser | owner_alone


def asked_to_confirm_q(user) -> Q:
    """Finished provisional results of open seasons waiting for ``user`` (the to-do): the opponent's, and,
    when no player may confirm (a guest, or both entered or changed it), every organiser's who may."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Q(pk__in=[])
    opponent, organiser, owner_alone = _confirm_roles_q(user)
    waiting = Q(season__isnull=False, season__closed_at__isnull=True, over=True, league_status=LeagueStatus.PLAYING)
    return waiting & (opponent | (organiser & _no_player_confirms_q()) | owner_alone)


def _game_is(game: Game, condition: Q) -> bool:
    return Game.objects.filter(pk=game.pk).filter(condition).exists()


def plays_in(user, game: Game) -> bool:
    """``user`` is one of the game's players (no query when its players are loaded)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return user.pk in player_user_ids(game)


def can_confirm(user, game: Game, club: Club) -> bool:
    """``user`` may confirm ``game``'s result now: over, not yet confirmed, season open, and theirs to confirm."""
    if game.season_id is None or not game.over or game.league_status == LeagueStatus.CONFIRMED:
        return False
    if season_is_closed(game):
        return False
    return may_confirm(user, game, club)


def may_confirm(user, game: Game, club: Club | None = None) -> bool:
    """Whether ``user`` is someone who confirms this result at all (its state aside, but for the
    opponent, who confirms only a provisional result, not a disputed one)."""
    return _game_is(game, confirmer_q(user))


def confirmed_by_a_player(game: Game) -> bool:
    """The result was confirmed by one of its own players (the owner of a club with no other organiser)."""
    return game.confirmed_by_id is not None and game.confirmed_by_id in (
        game.player_one.user_id,
        game.player_two.user_id,
    )


def awaiting_confirmation(game: Game) -> str:
    """Who a finished provisional result waits for, in words: "Quinn or a club organiser"."""
    whom = [
        player.name
        for player in (game.player_one, game.player_two)
        if player.user_id is not None and _game_is(game, _opponent_q(player.user_id) & ~HAS_GUEST)
    ]
    if not _game_is(game, _no_organiser_off_the_table_q()):
        whom.append(_("a club organiser") if whom else _("a club organiser who did not play"))
    else:  # no organiser off the table: the owner, if they play a guest here, confirms their own game
        whom += [
            _("%(name)s (the club's owner, a player of the game)") % {"name": player.name}
            for player in (game.player_one, game.player_two)
            if player.user_id is not None and _game_is(game, _confirm_roles_q(player.user_id)[2])
        ]
    if not whom:
        return _("a club organiser")
    # Translators: who a result waits for, two at a time: "Quinn or a club organiser".
    return functools.reduce(lambda either, other: _("%(one)s or %(other)s") % {"one": either, "other": other}, whom)


def result_waits_for(game: Game) -> str:
    """Who a league result waits for, in words, while it is over and provisional in an open season ("" otherwise)."""
    if game.season_id is None or not game.over or game.league_status != LeagueStatus.PLAYING:
        return ""
    if season_is_closed(game):
        return ""
    return awaiting_confirmation(game)


def confirm_refusal(user, game: Game) -> str:
    """Why ``user`` may not confirm ``game``'s result ("" when they may)."""
    if may_confirm(user, game):
        return ""
    if _game_is(game, _played_q(user) & _recorded_q(user)):
        return _(
            "Nobody confirms a result they recorded or changed themselves: it waits for %(whom)s to confirm it."
        ) % {"whom": awaiting_confirmation(game)}
    return _("Only the other player, or a club organiser who did not play, confirms this result.")


def may_dispute(user, game: Game, club: Club | None = None) -> bool:
    """Whether ``user`` is someone who disputes this result at all: the other player, a member; when both
    players entered or changed it, either of them (each may object to the other's part)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    both_entered = _played_q(user) & Q(season__club_id__in=_club_ids(user)) & _entered_q(player="player_one")
    return _game_is(game, _opponent_q(user) | (both_entered & _entered_q(player="player_two")))


def is_asked_to_confirm(user, game: Game, club: Club | None = None) -> bool:
    """Whether this finished provisional result waits for ``user`` (their to-do, their e-mail)."""
    return _game_is(game, asked_to_confirm_q(user))


def can_dispute(user, game: Game, club: Club) -> bool:
    return (
        game.season_id is not None
        and game.over
        and game.league_status == LeagueStatus.PLAYING
        and not season_is_closed(game)
        and may_dispute(user, game, club)
    )
