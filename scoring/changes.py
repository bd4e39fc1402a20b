"""Announcing that a game changed, and the season "version" that moves with every change.

Writers (scoring.services.game_recompute, scoring.league.services.game_confirm and
game_dispute) call ``notify_change`` inside their transaction. On PostgreSQL that is
``pg_notify('ginleague_changes', 'season:<id>')`` for a season's game, delivered to every
listening connection of every process when the transaction commits, and not at all if it
rolls back. A friendly game (no season) is announced to nobody: no screen follows one, and
every listening process would wake for each of its hands. Readers (wall screens, cached standings and
ratings) compare versions: a short text built from the count and latest change times of
a season's games, which changes whenever any of them does.
"""

from __future__ import annotations

import datetime

from django.db import connections
from django.db.models import Count, Max

from scoring.models import Game

CHANNEL = "ginleague_changes"


def notify_change(*, game) -> None:
    """Tell every wall screen of ``game``'s season that it changed (delivered when the caller's
    transaction commits); a friendly game has no screen to tell.

    On SQLite nothing is sent: the game's ``updated_at``, which the caller's
    save bumps, is what the polling streams see.
    """
    connection = connections["default"]
    if connection.vendor != "postgresql" or game.season_id is None:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"season:{game.season_id}"])


# --- the season's version: changes whenever any of its games does ------------------------------------


def _stamp(value: datetime.datetime | None) -> int:
    return int(value.timestamp() * 1_000_000) if value else 0


def version_text(count: int, updated: datetime.datetime | None, confirmed: datetime.datetime | None) -> str:
    return f"{count}.{_stamp(updated)}.{_stamp(confirmed)}"


def season_version(season_id: int) -> str:
    """A short text that changes whenever a game of the season is added, changed, confirmed or removed.

    One aggregate over an index on (season, updated_at, confirmed_at).
    """
    figures = (
        Game.objects.filter(season_id=season_id)
        .order_by()
        .aggregate(count=Count("*"), updated=Max("updated_at"), confirmed=Max("confirmed_at"))
    )
    return version_text(figures["count"], figures["updated"], figures["confirmed"])


def season_versions(season_ids) -> dict[int, str]:
    """``season_version`` of many seasons in one query (a season with no game yet has the empty version)."""
    found = {
        row["season_id"]: version_text(row["count"], row["updated"], row["confirmed"])
        for row in Game.objects.filter(season_id__in=list(season_ids))
        .order_by()
        .values("season_id")
        .annotate(count=Count("*"), updated=Max("updated_at"), confirmed=Max("confirmed_at"))
    }
    return {season_id: found.get(season_id, version_text(0, None, None)) for season_id in season_ids}


def season_versions_sql() -> str:
    """``season_versions`` as one SQL statement taking a list of season ids (PostgreSQL's ANY)."""
    table = Game._meta.db_table
    return (
        f"SELECT season_id, count(*), max(updated_at), max(confirmed_at) FROM {table} "  # noqa: S608
        "WHERE season_id = ANY(%s) GROUP BY season_id"
    )
