"""Reads that join: each selector owns its select_related/prefetch_related."""

import datetime
from dataclasses import dataclass
from functools import cache

from django.contrib.auth import get_user_model
from django.db import connections, router
from django.db.models import Case, Count, F, Field, IntegerField, Prefetch, Q, QuerySet, Sum, Value, When
from django.db.models.sql import Query
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from players.models import MANAGER_ROLES, Invitation, Membership, Player
from scoring.engine.record import evaluate, hand_to_record
from scoring.engine.rules import RuleSet, resolve_rules
from scoring.engine.score import HandFacts, SessionResult, score_session
from scoring.models import Fixture, Game, GameScore, Hand, LeagueStatus, Season
from scoring.permissions import asked_to_confirm_q, visible_game_q
from scoring.prepared import Prepared

GAME_PLAYERS = ("player_one", "player_two", "first_dealer", "winner", "next_dealer")


def game_list(*, player=None, viewer=None, of_user=None) -> QuerySet[Game]:
    """Games, in progress first, newest first, with their players and scores.

    With ``viewer``, only the games that user may see (private clubs' games only for members);
    with ``of_user``, only that user's own games (they play in them or started them).
    """
    games = Game.objects.select_related(*GAME_PLAYERS).prefetch_related(
        Prefetch("scores", queryset=GameScore.objects.select_related("winner").order_by("number"))
    )
    if player is not None:
        games = games.filter(Q(player_one=player) | Q(player_two=player))
    if viewer is not None:
        games = games.filter(visible_game_q(viewer))
    if of_user is not None:
        games = games.filter(Q(created_by=of_user) | Q(player_one__user=of_user) | Q(player_two__user=of_user))
    return games.order_by("over", "-created_at")


def _own_games(user_id: int, limit: int = 50):
    user = get_user_model()(pk=user_id)
    return game_list(viewer=user, of_user=user)[:limit]


_OWN_GAMES = Prepared(Game, _own_games, user_id=int)


def own_games(user) -> list[Game]:
    """The latest 50 games ``user`` plays in or started, of clubs they may see (their home page, every
    visit: the SQL is built once, scoring/prepared.py); ``game_list`` says the order."""
    return _OWN_GAMES(user_id=user.pk)


def _recent_games(user_id: int, limit: int = 30):
    return (
        game_list()
        .filter(Q(created_by_id=user_id) | Q(player_one__user_id=user_id) | Q(player_two__user_id=user_id))
        .order_by("-created_at")[:limit]
    )


_RECENT_GAMES = Prepared(Game, _recent_games, user_id=int)


def recent_games(user) -> list[Game]:
    """The latest 30 games ``user`` started or plays in, newest first (the new-game page's "play again")."""
    return _RECENT_GAMES(user_id=user.pk)


def game_detail(*, pk: int) -> Game:
    """One game with everything its scoresheet shows, in a fixed number of queries."""
    return (
        Game.objects.select_related(*GAME_PLAYERS)
        .prefetch_related(
            Prefetch("scores", queryset=GameScore.objects.select_related("winner").order_by("number")),
            Prefetch("hands", queryset=Hand.objects.select_related("by", "winner", "dealer").order_by("number")),
        )
        .get(pk=pk)
    )


def game_hands(*, pk: int) -> tuple[Game, QuerySet[Hand]]:
    """A game without its hands (and its club, for who may see it), and its hands in order, to page through."""
    game = Game.objects.select_related("season__club").get(pk=pk)
    return game, Hand.objects.filter(game=game).order_by("number")


def games_for_export() -> QuerySet[Game]:
    return Game.objects.select_related("player_one", "player_two", "first_dealer").prefetch_related(
        Prefetch("hands", queryset=Hand.objects.select_related("by").order_by("number"))
    ).order_by("created_at", "pk")


def game_record(game: Game) -> dict:
    """A stored game as a JSON game record (facts, then the computed ``expect``).

    ``game`` should come from ``games_for_export`` or ``game_detail`` so the
    hands and players are already loaded.
    """
    rules = resolve_rules(game.rules)
    record = {
        "name": game.name or f"{game.player_one.name} v {game.player_two.name}",
        "source": game.source or f"GinLeague game {game.pk}",
        "rules": rules.as_dict(),
        "players": [game.player_one.name, game.player_two.name],
        "first_dealer": game.first_dealer.name,
        "hands": [
            hand_to_record(
                HandFacts(
                    ending=hand.ending,
                    by=hand.by.name if hand.by else None,
                    knocker_deadwood=hand.knocker_deadwood,
                    defender_deadwood=hand.defender_deadwood,
                    upcard=hand.upcard or None,
                ),
                hand.cards,
            )
            for hand in game.hands.all()
        ],
    }
    if game.time_called_after is not None:  # docs/game-record.md: written only where time was called
        record["time_called_after"] = game.time_called_after
    record["expect"] = evaluate(record)
    return record


def game_for_sheet(*, pk: int) -> Game:
    """One game and its hands' facts, for pages that score them with the engine (2 queries).

    Lighter than game_detail: no GameScore rows and no player joins per hand
    (the page names players from the game's two). ``cards`` is loaded: the sheet
    shows the melds of hands entered card by card. Every scoresheet and hand form asks it: both
    statements are built once per database (scoring/prepared.py); the hands come as ``game.hands.all()``.
    """
    found = _SHEET_GAME(pk=pk)
    if not found:
        raise Game.DoesNotExist(f"No game with id {pk!r}.")
    game = found[0]
    hands = game.hands.all()
    hands._result_cache = _SHEET_HANDS(game_id=game.pk)
    hands._prefetch_done = True
    for hand in hands._result_cache:  # each hand's game is this one, as a prefetch sets it
        Hand.game.field.set_cached_value(hand, game)
    game._prefetched_objects_cache = {"hands": hands}
    return game


_SHEET_GAME = Prepared(Game, lambda pk: Game.objects.select_related("player_one", "player_two").filter(pk=pk), pk=int)
_SHEET_HANDS = Prepared(
    Hand,
    lambda game_id: Hand.objects.filter(game_id=game_id).defer("created_at", "updated_at").order_by("number"),
    game_id=int,
)


def game_for_update(*, pk: int) -> Game:
    """The game ``pk`` and its two players, its row locked until the transaction ends (Game.DoesNotExist
    if there is none). The lock serialises writers on one game on PostgreSQL; SQLite has no row locks
    (a writer holds the whole file) and reads it plainly.

    Every hand written, and every second phone's copy refused, starts here. The ORM rebuilt this join's
    SQL on each call, about a tenth of a hand POST's server time; the statement is built once per
    database from the models' own fields, and the row becomes models with their database converters,
    as Django's ``RawQuerySet`` does.
    """
    alias = router.db_for_write(Game)
    connection = connections[alias]
    if not connection.in_atomic_block:  # as the ORM's select_for_update refuses
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if not isinstance(pk, int) or not low <= pk <= high:  # past any id column: no such game
        raise Game.DoesNotExist(f"No game with id {pk!r}.")
    sql, columns = _game_for_update_statement(alias)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"No game with id {pk}.")
    compiler = connection.ops.compiler("SQLCompiler")(Query(Game), connection, alias)
    converters = compiler.get_converters([field.get_col(field.model._meta.db_table) for _, field in columns])
    if converters:
        row = next(compiler.apply_converters([row], converters))
    game_fields, player_fields = Game._meta.concrete_fields, Player._meta.concrete_fields
    game_end, one_end = len(game_fields), len(game_fields) + len(player_fields)
    game = Game.from_db(alias, [field.attname for field in game_fields], row[:game_end])
    player_names = [field.attname for field in player_fields]
    game.player_one = Player.from_db(alias, player_names, row[game_end:one_end])
    game.player_two = Player.from_db(alias, player_names, row[one_end:])
    return game


@cache
def _game_for_update_statement(alias: str) -> tuple[str, list[tuple[str, Field]]]:
    """The locked read's SQL for one database, and its columns as (table alias, field), in order."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    columns = [
        *(("locked_game", field) for field in Game._meta.concrete_fields),
        *(("player_one", field) for field in Player._meta.concrete_fields),
        *(("player_two", field) for field in Player._meta.concrete_fields),
    ]
    players, player_id = quote(Player._meta.db_table), quote(Player._meta.pk.column)
    # Names from the models, quoted; the id is a parameter.
    selected = ", ".join(f"{table}.{quote(field.column)}" for table, field in columns)
    sql = (
        f"SELECT {selected}"  # noqa: S608
        f" FROM {quote(Game._meta.db_table)} locked_game"
        f" INNER JOIN {players} player_one"
        f" ON player_one.{player_id} = locked_game.{quote(Game._meta.get_field('player_one').column)}"
        f" INNER JOIN {players} player_two"
        f" ON player_two.{player_id} = locked_game.{quote(Game._meta.get_field('player_two').column)}"
        f" WHERE locked_game.{quote(Game._meta.pk.column)} = %s"
    )
    if connection.features.has_select_for_update:
        # Only the game's row: a merge locks the players, then their games.
        of = ("locked_game",) if connection.features.has_select_for_update_of else ()
        sql += " " + connection.ops.for_update_sql(of=of)
    return sql, columns


def hand_facts(hand: Hand) -> HandFacts:
    """A stored hand's facts, as the engine takes them (players keyed by id)."""
    return HandFacts(
        ending=hand.ending,
        by=hand.by_id,
        knocker_deadwood=hand.knocker_deadwood,
        defender_deadwood=hand.defender_deadwood,
        upcard=hand.upcard or None,
    )


def game_session(game: Game, rules: RuleSet | None = None) -> tuple[list[Hand], SessionResult]:
    """The game's hands (prefetched by ``game_for_sheet``) and the engine's scoring of them."""
    hands = list(game.hands.all())
    result = score_session(
        rules or game.rule_set,
        (game.player_one_id, game.player_two_id),
        game.first_dealer_id,
        [hand_facts(hand) for hand in hands],
        game.time_called_after,
    )
    return hands, result


def pair_totals(games: QuerySet[Game], *extra_values: str) -> QuerySet:
    """Games grouped by (player_one, player_two): played, each side's wins and
    player_one's net margin, summed by the database (one query)."""
    return (
        games.order_by()
        .values("player_one_id", "player_two_id", *extra_values)
        .annotate(
            played=Count("pk"),
            wins_one=Count("pk", filter=Q(winner_id=F("player_one_id"))),
            wins_two=Count("pk", filter=Q(winner_id=F("player_two_id"))),
            net_one=Sum(
                Case(
                    When(winner_id=F("player_one_id"), then=F("margin")),
                    When(winner_id=F("player_two_id"), then=-F("margin")),
                    default=Value(0),
                    output_field=IntegerField(),
                )
            ),
        )
    )


# --- what needs a user: the to-do list and its count ------------------------------------------------


def overdue_q(today) -> Q:
    """Fixtures past their due date whose game is not finished (of seasons still open)."""
    return Q(due_on__lt=today, season__closed_at__isnull=True) & (Q(game__isnull=True) | Q(game__over=False))


def is_overdue(fixture, today, *, season_closed: bool = False) -> bool:
    """``overdue_q`` for one fixture already loaded with its game (no query)."""
    if season_closed or fixture.due_on is None or fixture.due_on >= today:
        return False
    return not (hasattr(fixture, "game") and fixture.game.over)


DUE_SOON_DAYS = 7  # a fixture shows in the to-do from a week before its due date


@dataclass
class Todo:
    """What needs ``user`` now (see ``todo_for``)."""

    to_confirm: list  # Game: finished provisional league results waiting for the user (permissions.asked_to_confirm_q)
    disputed: list  # Game: disputed results of theirs, and of the clubs they run
    due: list  # Fixture: their fixtures not played, due within a week or overdue (``overdue`` set)
    invitations: list  # Invitation: opened by them (this session) and not yet accepted

    @property
    def count(self) -> int:
        return len(self.to_confirm) + len(self.disputed) + len(self.due) + len(self.invitations)


def todo_season_ids(user) -> list[int]:
    """The open seasons whose changes can move ``user``'s to-do list (their clubs' seasons): what a
    live "Needs you" count follows. Empty for anonymous."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    clubs = Membership.objects.filter(player__user=user).values("club_id")
    return list(Season.objects.filter(club_id__in=clubs, closed_at__isnull=True).values_list("pk", flat=True))


def games_in_play(club, *, limit: int = 30) -> list[Game]:
    """The club's league games not over yet (open seasons), the latest changed first: its page's "Playing now"."""
    return list(
        Game.objects.filter(season__club=club, season__closed_at__isnull=True, over=False)
        .select_related("player_one", "player_two", "season")
        .order_by("-updated_at", "-pk")[:limit]
    )


def open_season_ids(club) -> list[int]:
    """The club's seasons still open: what its page's games in play follow."""
    return list(Season.objects.filter(club=club, closed_at__isnull=True).values_list("pk", flat=True))


def _todo_games(user_id: int):
    """Finished league results of open seasons waiting for the user, and disputed ones of theirs or of
    the clubs they run (built once per database: ``_TODO_GAMES``)."""
    user = get_user_model()(pk=user_id)
    mine = Q(player_one__user=user) | Q(player_two__user=user)
    managed = Membership.objects.filter(player__user=user, role__in=MANAGER_ROLES).values("club_id")
    return (
        Game.objects.filter(season__isnull=False, season__closed_at__isnull=True, over=True)
        .filter(
            asked_to_confirm_q(user)
            | (Q(league_status=LeagueStatus.DISPUTED) & (mine | Q(season__club_id__in=managed)))
        )
        .select_related("player_one", "player_two", "winner", "season", "season__club")
        .order_by("finished_at", "pk")
    )


def _todo_fixtures(user_id: int, due_by: datetime.date):
    """The user's fixtures of open seasons not played yet and due by ``due_by`` (``_TODO_FIXTURES``)."""
    return (
        Fixture.objects.filter(Q(home__user_id=user_id) | Q(away__user_id=user_id))
        .filter(season__closed_at__isnull=True, due_on__lte=due_by)
        .filter(Q(game__isnull=True) | Q(game__over=False))
        .select_related("home", "away", "season", "season__club", "game")
        .order_by("due_on", "round", "pk")
    )


# Every signed-in page's "Needs you" asks these two: their SQL is built once (scoring/prepared.py).
_TODO_GAMES = Prepared(Game, _todo_games, user_id=int)
_TODO_FIXTURES = Prepared(Fixture, _todo_fixtures, user_id=int, due_by=datetime.date)


def todo_for(user, *, invitation_tokens=(), today=None) -> Todo:
    """The to-do list of ``user`` in at most three queries, whatever the number of clubs and seasons:
    league games (to confirm, disputed), fixtures due, invitations (only when there are tokens)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Todo([], [], [], [])
    today = today or timezone.localdate()
    games = _TODO_GAMES(user_id=user.pk)
    due = _TODO_FIXTURES(user_id=user.pk, due_by=today + datetime.timedelta(days=DUE_SOON_DAYS))
    for fixture in due:
        fixture.overdue = is_overdue(fixture, today)
    invitations = []
    if invitation_tokens:
        invitations = list(
            Invitation.objects.filter(token__in=list(invitation_tokens), accepted_at__isnull=True)
            .exclude(club__memberships__player__user=user, player__isnull=True)
            .select_related("club")
        )
    return Todo(
        to_confirm=[game for game in games if game.league_status == LeagueStatus.PLAYING],
        disputed=[game for game in games if game.league_status == LeagueStatus.DISPUTED],
        due=due,
        invitations=invitations,
    )
