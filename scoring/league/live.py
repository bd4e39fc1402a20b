"""Live updates for wall screens: the streams that hear of every change, across server processes.

Writers announce changes through ``scoring.changes.notify_change``. Readers (the wall
screen's Server-Sent Events stream) iterate ``season_changes``: on PostgreSQL a psycopg 3 AsyncConnection LISTENs on the
channel; on SQLite (no notifications) the stream polls the season's cheap
"version" (count and latest change time of its games, from one indexed
aggregate) every half second. Both are cross-process: no in-process signals.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.db import DatabaseError, connections

from scoring.changes import CHANNEL, change_payload, season_version, version_sql, version_text

POLL_SECONDS = 0.5  # SQLite: how often the stream looks at the season's version
FALLBACK_SECONDS = 1.0  # PostgreSQL: look anyway this often (a safety net for a write that sent no notification)
KEEPALIVE_SECONDS = 15.0  # a comment line this often keeps proxies from closing a quiet stream
STREAM_SECONDS = 300.0  # the server ends a stream after this long; the browser reconnects



async def season_changes(
    season_id: int,
    *,
    seconds: float = STREAM_SECONDS,
    keepalive: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[tuple[str, str]]:
    """Yield ("ready", version) once, then ("change", version) after every change of the
    season and ("keepalive", "") when nothing happened for ``keepalive`` seconds; stop after ``seconds``."""
    if connections["default"].vendor == "postgresql":
        changes = _listen_postgresql(season_id, seconds=seconds, keepalive=keepalive)
    else:
        changes = _poll(season_id, seconds=seconds, keepalive=keepalive)
    async for item in changes:
        yield item


def _postgresql_params() -> dict:
    settings = connections["default"].settings_dict
    params = {"dbname": settings["NAME"], "autocommit": True}
    for key, name in (("user", "USER"), ("password", "PASSWORD"), ("host", "HOST"), ("port", "PORT")):
        if settings.get(name):
            params[key] = settings[name]
    return params


async def _listen_postgresql(season_id: int, *, seconds: float, keepalive: float) -> AsyncIterator[tuple[str, str]]:
    import psycopg

    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    wanted = change_payload(season_id=season_id, game_id=0)
    sql = version_sql()

    async def version(conn) -> str:
        cursor = await conn.execute(sql, [season_id])
        count, updated, confirmed = await cursor.fetchone()
        return version_text(count, updated, confirmed)

    async with await psycopg.AsyncConnection.connect(**_postgresql_params()) as conn:
        await conn.execute(f"LISTEN {CHANNEL}")
        last = await version(conn)
        yield "ready", last
        checked = sent = loop.time()
        while (remaining := deadline - loop.time()) > 0:
            matched = False
            async for note in conn.notifies(timeout=min(FALLBACK_SECONDS, keepalive, remaining), stop_after=1):
                matched = note.payload == wanted
            now = loop.time()
            if matched or now - checked >= FALLBACK_SECONDS:
                checked = now
                current = await version(conn)
                if current != last:
                    last, sent = current, now
                    yield "change", current
                    continue
            if now - sent >= keepalive:
                sent = now
                yield "keepalive", ""


def _close_connection() -> None:
    connections["default"].close()


def _polled_version(season_id: int) -> str:
    connection = connections["default"]
    if connection.connection is None:
        connection.ensure_connection()
        # Never hold a read lock a writer would wait for. A no-op for a file database in WAL mode
        # (readers never block writers there); it matters for a shared-cache database (tests).
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 1")
    return season_version(season_id)


async def _poll(season_id: int, *, seconds: float, keepalive: float) -> AsyncIterator[tuple[str, str]]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    version = sync_to_async(_polled_version)  # one thread per request: one connection, closed below
    try:
        last = await version(season_id)
        yield "ready", last
        sent = loop.time()
        while deadline - loop.time() > 0:
            await asyncio.sleep(min(POLL_SECONDS, max(0.0, deadline - loop.time())))
            try:
                current = await version(season_id)
            except DatabaseError:  # e.g. locked for a moment by a writer: look again next time
                continue
            now = loop.time()
            if current != last:
                last, sent = current, now
                yield "change", current
            elif now - sent >= keepalive:
                sent = now
                yield "keepalive", ""
    finally:
        await sync_to_async(_close_connection)()
