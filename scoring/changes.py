"""Announcing that a game changed, and the versions of seasons and games that move with every change.

Writers (scoring.services.game_recompute and hand_version_set_aside, scoring.league.services.game_confirm
and game_dispute, scoring.merge) call ``notify_change`` inside their transaction. It adds one to the
game's ``change_count`` (an UPDATE of the row the writer has already locked) and, on PostgreSQL, sends
``pg_notify('ginleague_changes', 'season:<id>')`` for a season's game (wall screens, season pages,
brackets, to-do counts follow those) and ``pg_notify('ginleague_games', 'game:<id>')`` for every game
(its open scoresheets follow that), delivered to every listening connection of every process when
the transaction commits, and not at all if it rolls back. A friendly game is never announced on the
seasons' channel: no wall follows one.

Readers compare versions: short texts that differ after every committed change. A season's is built
from the count of its games and published rounds, the SUM of its games' ``change_count`` and their
latest change times; a game's from its own ``change_count``, hands and league status.

Why a counter per game, summed: the version must move with every commit, in whatever order
transactions commit and whatever the clocks of several app servers say. Times do neither: a
transaction stamps ``updated_at`` when it writes, not when it commits, so a save that started first
and commits last (or one stamped by a server whose clock is behind) left the season's latest time,
and so its version, where it was, and no page heard of that change until the next one. A game's
counter moves under the row lock its writer already holds, so two writers of one game add one each,
one after the other; writers of two games of a season touch two rows and never wait for each other,
and the sum a reader sees grows by one with each commit, whichever comes first. (A counter row per
season would do the same but make every table of a club night wait for the others' commits; a
sequence or a clock is taken when the transaction writes, not in commit order.) The same on
PostgreSQL and SQLite; the times stay in the versions only for writes that call no ``notify_change``.

A "topic" names what a live page follows: ``season:<id>`` or ``game:<id>``, as the notifications do,
or ``todo:<id>``: what of a season can move anyone's "Needs you" list. Its version moves only with its
finished games (a game finishing or reopened, a finished result corrected, confirmed, disputed or voided)
and its published rounds (their fixtures), not with the hands of games in play, which move no one's
list: a signed-in page's badge is not fetched again on every hand of a club night. A season's
notification is heard for both of its topics.
"""

from __future__ import annotations

import collections
import datetime
import functools

from django.db import DatabaseError, connections
from django.db.models import Count, Max, Sum

from ginleague import numbers
from scoring import writes
from scoring.models import Game, Season, SeasonResults, SwissRound
from scoring.prepared import Prepared

CHANNEL = "ginleague_changes"  # season:<id>: a game of the season changed
GAME_CHANNEL = "ginleague_games"  # game:<id>: the game changed (friendly games too)
CHANNELS = (CHANNEL, GAME_CHANNEL)


def notify_change(*, game, save: tuple[str, ...] = ()) -> None:
    """Count a change of ``game`` (its ``change_count`` goes up by one in the caller's transaction: the
    versions of the game and its season move when it commits) and tell every live page of the game (its
    scoresheets) and of its season (walls, season pages, brackets, to-do counts), delivered when the
    caller's transaction commits.

    ``save``: the fields of ``game`` to write with it (``updated_at``, when named, set to now as
    ``save()`` sets it), in the same UPDATE as the count: the writer's ``game.save(update_fields=...)``
    and the count were two statements on every hand POST (no signal listens to a game's save).

    On SQLite nothing is sent: the polling streams see the versions move.
    """
    connection = connections["default"]
    fields = _fields(save)
    values = [field.get_db_prep_save(field.pre_save(game, False), connection) for field in fields]
    # PostgreSQL: the notifications go in the UPDATE's RETURNING, one statement (sent, as ever, at the commit).
    told = connection.vendor == "postgresql"
    topics = [] if not told else [GAME_CHANNEL, f"game:{game.pk}"]
    if told and game.season_id is not None:
        topics = [CHANNEL, f"season:{game.season_id}", *topics]

    def counted(rows: list) -> None:
        if rows:
            game.change_count = rows[0][0]
        elif save:  # as save(update_fields=...) says of a row that is gone
            raise DatabaseError("Save with update_fields did not affect any rows.")

    # Inside writes.together() (a hand POST's writes), sent with the other writes in one round trip.
    sql = _count_change_sql(connection.vendor, tuple(save), len(topics) // 2)
    writes.run(connection, sql, [*values, game.pk, *topics], counted)


@functools.cache
def _fields(save: tuple[str, ...]) -> list:
    return [Game._meta.get_field(name) for name in save]


@functools.cache
def _count_change_sql(vendor: str, save: tuple[str, ...], notifications: int = 0) -> str:
    """The UPDATE that counts a change (and writes the ``save`` fields, and sends ``notifications``
    pg_notify calls), built once per database kind."""
    quote = connections["default"].ops.quote_name
    table = quote(Game._meta.db_table)
    written = "".join(f"{quote(Game._meta.get_field(name).column)} = %s, " for name in save)
    told = ", pg_notify(%s, %s)" * notifications
    return f"UPDATE {table} SET {written}change_count = change_count + 1 WHERE id = %s RETURNING change_count{told}"  # noqa: S608


def notify_season_change(*, season_id: int) -> None:
    """Tell every live page of a season that it changed without a game changing (a Swiss night's round
    published), delivered when the caller's transaction commits; nothing is sent on SQLite."""
    connection = connections["default"]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"season:{season_id}"])


# --- the season's version: changes whenever any of its games does ------------------------------------


def _stamp(value: datetime.datetime | None) -> int:
    return int(value.timestamp() * 1_000_000) if value else 0


def version_text(
    count: int, updated: datetime.datetime | None, confirmed: datetime.datetime | None, changed: int | None = 0
) -> str:
    """``count`` games (and rounds) whose ``change_count`` add up to ``changed``, latest stamps ``updated`` and
    ``confirmed``: the sum orders the commits, the stamps only cover a write that counted no change."""
    return f"{count}.{changed or 0}.{_stamp(updated)}.{_stamp(confirmed)}"


def season_version(season_id: int) -> str:
    """A short text that changes whenever a game of the season is added, changed, confirmed or removed,
    or a round of a Swiss night is published (its pairings go up on the wall before any game starts).

    Two queries: one pass over an index on (season, updated_at, confirmed_at, change_count), and one over the
    night's rounds.
    """
    return season_versions([season_id])[season_id]


def _later(one: datetime.datetime | None, two: datetime.datetime | None) -> datetime.datetime | None:
    return max(one, two) if one and two else one or two


def figures_per_season(queryset, **figures):
    """``figures`` (aggregates) of ``queryset``'s rows (rows with a ``season_id``) as rows ``(season_id, *figures)``,
    one a season: one pass over each season's rows. A subquery per figure read a 100,000-game season's games
    once per figure (4 x 36 ms on every live part's fetch there, issue 40)."""
    return queryset.order_by().values("season_id").annotate(**figures).values_list("season_id", *figures)


def by_season(rows, empty: tuple) -> dict:
    """``figures_per_season``'s rows as {season_id: figures}; ``empty`` stands for a season without rows."""
    return collections.defaultdict(lambda: empty, {season_id: tuple(figures) for season_id, *figures in rows})


def _game_figures(games):
    return figures_per_season(games, n=Count("*"), u=Max("updated_at"), c=Max("confirmed_at"), s=Sum("change_count"))


def _round_figures(rounds):
    return figures_per_season(rounds.filter(published=True), n=Count("*"), s=Max("started_at"))


NO_GAMES, NO_ROUNDS = (0, None, None, 0), (0, None)


def _version_of(games: tuple, rounds: tuple) -> str:
    (game_count, updated, confirmed, changed), (round_count, started) = games, rounds
    return version_text(game_count + round_count, _later(updated, started), confirmed, changed)


# One season's version is asked on every fetch of a live part (the key of its render, scoring/parts.py):
# its statements are built once per database, not on every request (building them cost more than running them).
_ONE_SEASON_GAMES = Prepared(
    Game, lambda season_id: _game_figures(Game.objects.filter(season_id=season_id)), season_id=int
)
_ONE_SEASON_ROUNDS = Prepared(
    SwissRound, lambda season_id: _round_figures(SwissRound.objects.filter(season_id=season_id)), season_id=int
)


def season_version_of(season_id: int, games: tuple) -> str:
    """``season_version`` of a season whose games' figures (count, latest update, latest confirmation, sum of
    changes; ``NO_GAMES`` without games) the caller read with others in the same pass: its rounds read here."""
    return _version_of(games, by_season(_ONE_SEASON_ROUNDS(season_id=season_id), NO_ROUNDS)[season_id])


def season_versions(season_ids) -> dict[int, str]:
    """``season_version`` of many seasons in two queries (a season with no game yet has the empty version)."""
    ids = list(season_ids)
    if len(ids) == 1:
        games, rounds = _ONE_SEASON_GAMES(season_id=ids[0]), _ONE_SEASON_ROUNDS(season_id=ids[0])
    else:
        games = _game_figures(Game.objects.filter(season_id__in=ids))
        rounds = _round_figures(SwissRound.objects.filter(season_id__in=ids))
    games, rounds = by_season(games, NO_GAMES), by_season(rounds, NO_ROUNDS)
    return {season_id: _version_of(games[season_id], rounds[season_id]) for season_id in ids}


def season_todo_versions(season_ids) -> dict[int, str]:
    """The ``todo:<id>`` version of many seasons in two queries: what can move a to-do list (the module's
    docstring), from its finished games and its published rounds."""
    ids = list(season_ids)
    games = by_season(_game_figures(Game.objects.filter(over=True, season_id__in=ids)), NO_GAMES)
    rounds = by_season(_round_figures(SwissRound.objects.filter(season_id__in=ids)), NO_ROUNDS)
    return {season_id: todo_version_text(*games[season_id], *rounds[season_id]) for season_id in ids}


def todo_version_text(over: int | None, updated, confirmed, changed: int | None, rounds: int | None, started) -> str:
    """``over`` finished games whose ``change_count`` add up to ``changed`` (latest stamps ``updated``,
    ``confirmed``), and ``rounds`` published rounds, the latest started at ``started``."""
    return f"t{over or 0}.{changed or 0}.{_stamp(updated)}.{_stamp(confirmed)}.{rounds or 0}.{_stamp(started)}"


def season_todo_versions_sql() -> str:
    """``season_todo_versions`` as one SQL statement taking a list of season ids twice (PostgreSQL's ANY)."""
    games, rounds = Game._meta.db_table, SwissRound._meta.db_table
    return (
        "SELECT season_id, sum(n)::bigint, max(u), max(c), sum(s)::bigint, sum(r)::bigint, max(t) FROM ("  # noqa: S608
        "SELECT season_id, count(*) AS n, max(updated_at) AS u, max(confirmed_at) AS c, sum(change_count) AS s, "
        f"0 AS r, NULL::timestamptz AS t FROM {games} WHERE over AND season_id = ANY(%s) GROUP BY season_id "
        f"UNION ALL SELECT season_id, 0, NULL, NULL, 0, count(*), max(started_at) FROM {rounds} "
        "WHERE published AND season_id = ANY(%s) GROUP BY season_id"
        ") AS versions GROUP BY season_id"
    )


def season_versions_sql() -> str:
    """``season_versions`` as one SQL statement taking a list of season ids twice (PostgreSQL's ANY)."""
    games, rounds = Game._meta.db_table, SwissRound._meta.db_table
    return (
        "SELECT season_id, sum(n)::bigint, max(u), max(c), sum(s)::bigint FROM ("  # noqa: S608
        f"SELECT season_id, count(*) AS n, max(updated_at) AS u, max(confirmed_at) AS c, sum(change_count) AS s "
        f"FROM {games} WHERE season_id = ANY(%s) GROUP BY season_id "
        f"UNION ALL SELECT season_id, count(*), max(started_at), NULL::timestamptz, 0 FROM {rounds} "
        "WHERE published AND season_id = ANY(%s) GROUP BY season_id"
        ") AS versions GROUP BY season_id"
    )


# --- a club's counted results: what its ratings are computed from ----------------------------------


def count_results_change(*, season_id: int) -> None:
    """Add one to ``season_id``'s count of changes to its counted results, in the caller's transaction
    (the row written the first time). ``scoring.services.standing_totals_write`` calls it: every change of
    a counted result rewrites its season's totals, in the transaction of the change; and a merge of
    players (``scoring.merge``), which moves the totals to the kept record without rewriting them.

    A row per season, not per club or per game: a reader reads a row per season of a club, not a pass
    over its games (at 100,000 games that pass was most of a profile's database time, issue 40). The row
    is locked from here to the commit, after the game's own lock: a result confirmed or corrected waits
    for another of the season's to commit, hands of games in play (no counted result) never do.
    """
    with connections["default"].cursor() as cursor:
        cursor.execute(_results_change_sql(), [season_id])


@functools.cache
def _results_change_sql() -> str:
    quote = connections["default"].ops.quote_name
    table, season, count = (
        quote(SeasonResults._meta.db_table),
        quote(SeasonResults._meta.get_field("season").column),
        quote("changes"),
    )
    # PostgreSQL and SQLite (3.24+) both: the row inserted, or counted up when it is there.
    return (
        f"INSERT INTO {table} ({season}, {count}) VALUES (%s, 1) "  # noqa: S608
        f"ON CONFLICT ({season}) DO UPDATE SET {count} = {table}.{count} + 1"
    )


def club_results_versions(club_ids) -> dict[int, str]:
    """A short text per club that changes with every committed change of its counted results (one query).

    Each of the club's seasons as (id, creation stamp, count of changes): a season added, deleted or moved to
    another club changes the list, a result confirmed, reopened, corrected, voided or merged counts up its
    season's changes. The creation stamp tells apart a season whose id the database gave again (SQLite's
    ids come back after a rollback).
    """
    ids = list(club_ids)
    versions: dict[int, list[str]] = {club_id: [] for club_id in ids}
    rows = (
        Season.objects.filter(club_id__in=ids)
        .order_by("pk")
        .values_list("club_id", "pk", "created_at", "results__changes")
    )
    for club_id, season_id, created_at, counted in rows:
        versions[club_id].append(f"{season_id}.{_stamp(created_at)}.{counted or 0}")
    return {club_id: ",".join(seasons) for club_id, seasons in versions.items()}


# --- a game's version: changes with every hand, correction, set-aside, confirmation and dispute --------

GONE = "gone"  # the version of a game that no longer exists


def game_version_text(hand_count: int, updated, confirmed, league_status: str, changed: int = 0) -> str:
    return f"{hand_count}.{changed}.{_stamp(updated)}.{_stamp(confirmed)}.{league_status or '-'}"


def game_version(game: Game) -> str:
    """``game``'s version from the loaded row (no query): what its scoresheet shows it at."""
    return game_version_text(game.hand_count, game.updated_at, game.confirmed_at, game.league_status, game.change_count)


GAME_VERSION_FIELDS = ("pk", "hand_count", "updated_at", "confirmed_at", "league_status", "change_count")


def game_versions(game_ids) -> dict[int, str]:
    """``game_version`` of many games in one query."""
    found = {
        row[0]: game_version_text(*row[1:])
        for row in Game.objects.filter(pk__in=list(game_ids)).values_list(*GAME_VERSION_FIELDS)
    }
    return {game_id: found.get(game_id, GONE) for game_id in game_ids}


def game_versions_sql() -> str:
    """``game_versions`` as one SQL statement taking a list of game ids (PostgreSQL's ANY)."""
    table = Game._meta.db_table
    return (
        f"SELECT id, hand_count, updated_at, confirmed_at, league_status, change_count FROM {table} "  # noqa: S608
        "WHERE id = ANY(%s)"
    )


# --- topics: what a live page follows ------------------------------------------------------------------


def season_topic(season_id: int) -> str:
    return f"season:{season_id}"


def game_topic(game_id: int) -> str:
    return f"game:{game_id}"


def todo_topic(season_id: int) -> str:
    return f"todo:{season_id}"


def topics_told(payload: str) -> tuple[str, ...]:
    """The topics a notification's payload moves: a season's moves its to-do topic too (a finished
    game; the hub then reads whether its to-do version did move)."""
    kind, _, number = payload.partition(":")
    return (payload, todo_topic(number)) if kind == "season" else (payload,)


def topic_ids(topics) -> dict[str, list[int]]:
    """The ids named by ``topics`` by kind: {"season": [...], "game": [...], "todo": [...]} (others are
    ignored)."""
    ids: dict[str, list[int]] = {"season": [], "game": [], "todo": []}
    for topic in topics:
        kind, _, number = topic.partition(":")
        if kind in ids and (read := numbers.whole_or_none(number, low=1, high=numbers.BIGINT)) is not None:
            ids[kind].append(read)
    return ids


def topic_versions(topics) -> dict[str, str]:
    """The version of every topic, in one query per kind of topic."""
    ids = topic_ids(topics)
    versions = {}
    if ids["season"]:
        versions.update((season_topic(pk), version) for pk, version in season_versions(ids["season"]).items())
    if ids["game"]:
        versions.update((game_topic(pk), version) for pk, version in game_versions(ids["game"]).items())
    if ids["todo"]:
        versions.update((todo_topic(pk), version) for pk, version in season_todo_versions(ids["todo"]).items())
    return versions
