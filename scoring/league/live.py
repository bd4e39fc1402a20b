"""Live updates for wall screens: every change of a season reaches every open stream, across processes.

Writers announce changes through ``scoring.changes.notify_change`` (PostgreSQL NOTIFY, sent when
their transaction commits). Readers (the wall screen's Server-Sent Events stream) iterate
``season_changes``.

One hub per server process (per event loop) listens for all the streams of that process, so a
thousand open screens cost what one does:

* on PostgreSQL the hub holds ONE connection that LISTENs on the channel, and reads a season's
  version only when a notification for that season arrives, in one query for every season named
  in a burst of notifications; every ``SAFETY_SECONDS`` it also looks at every watched season (one
  query), a safety net for a write that sent no notification;
* on SQLite (no notifications) the hub polls the versions of every watched season in one query
  every ``POLL_SECONDS``.

Each stream hears the hub's news through a queue of its own. The hub starts with the first stream
of its process and stops (closing its connection) soon after the last one ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import weakref
from collections.abc import AsyncIterator

import psycopg
from asgiref.sync import sync_to_async
from django.db import DatabaseError, connection, connections

from scoring.changes import CHANNEL, season_version, season_versions, season_versions_sql, version_text

POLL_SECONDS = 0.5  # SQLite: how often the hub looks at the watched seasons' versions
SAFETY_SECONDS = 10.0  # PostgreSQL: look at every watched season this often, notified or not
WAIT_SECONDS = 1.0  # PostgreSQL: the longest the hub waits for a notification before looking around
BURST_SECONDS = 0.01  # PostgreSQL: after one notification, gather the others already on their way
RECONNECT_SECONDS = 1.0  # PostgreSQL: wait this long before listening again after the connection broke
KEEPALIVE_SECONDS = 15.0  # a comment line this often keeps proxies from closing a quiet stream
STREAM_SECONDS = 300.0  # the server ends a stream after this long; the browser reconnects
LISTENER_NAME = "ginleague-live"  # application_name of the hub's connection (pg_stat_activity shows it)
OPENING_AT_ONCE = 4  # streams of one process that may read the database at once while they open


async def season_changes(
    season_id: int,
    *,
    seconds: float = STREAM_SECONDS,
    keepalive: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[tuple[str, str]]:
    """Yield ("ready", version) once, then ("change", version) after every change of the
    season and ("keepalive", "") when nothing was sent for ``keepalive`` seconds; stop after ``seconds``."""
    loop = asyncio.get_running_loop()
    hub = _hub()
    news = hub.watch(season_id)  # before reading the version, so no change can fall between the two
    try:
        last = await briefly(season_version, season_id)
        yield "ready", last
        deadline = sent = loop.time()
        deadline += seconds
        while (remaining := deadline - loop.time()) > 0:
            try:
                version = await asyncio.wait_for(news.get(), timeout=min(remaining, sent + keepalive - loop.time()))
            except TimeoutError:
                if deadline - loop.time() > 0:
                    sent = loop.time()
                    yield "keepalive", ""
                continue
            while not news.empty():  # several changes in a row: only the newest matters
                version = news.get_nowait()
            if version != last:
                last, sent = version, loop.time()
                yield "change", version
    finally:
        hub.unwatch(season_id, news)


async def briefly(read, *args):
    """``read(*args)`` (a function that reads the database) for a stream that is opening, then let go
    of the connection it used: the stream runs for minutes and needs no connection of its own.

    Django's ASGI handler gives each request a thread, so a thousand screens reconnecting at once
    (a server restart) would open a thousand connections at once; at most ``OPENING_AT_ONCE`` streams
    of a process read at a time, so they cost a few connections of the request pool instead.
    """
    async with _hub().opening:
        return await sync_to_async(then_close)(read, *args)


def then_close(read, *args):
    """``read(*args)``, then hand this thread's database connection back: for a stream, which holds its
    request open for minutes without needing a connection."""
    try:
        return read(*args)
    finally:
        connection.close()


_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Hub] = weakref.WeakKeyDictionary()


def _hub() -> _Hub:
    loop = asyncio.get_running_loop()
    hub = _HUBS.get(loop)
    if hub is None:
        hub = _HUBS[loop] = _Hub()
    return hub


def hub_stats() -> dict[str, int]:
    """How many seasons and streams this process's hub is watching (for tests and benches)."""
    hub = _HUBS.get(asyncio.get_running_loop())
    if hub is None:
        return {"seasons": 0, "streams": 0, "running": 0}
    return {
        "seasons": len(hub.watchers),
        "streams": sum(len(queues) for queues in hub.watchers.values()),
        "running": int(hub.task is not None and not hub.task.done()),
    }


class _Hub:
    """The one listener of this process's event loop, fanning changes out to its streams."""

    def __init__(self) -> None:
        self.watchers: dict[int, set[asyncio.Queue[str]]] = {}
        self.versions: dict[int, str] = {}  # the newest version each watched season was seen at
        self.task: asyncio.Task | None = None
        self.opening = asyncio.Semaphore(OPENING_AT_ONCE)

    def watch(self, season_id: int) -> asyncio.Queue[str]:
        news: asyncio.Queue[str] = asyncio.Queue()
        self.watchers.setdefault(season_id, set()).add(news)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
        return news

    def unwatch(self, season_id: int, news: asyncio.Queue[str]) -> None:
        queues = self.watchers.get(season_id)
        if queues is None:
            return
        queues.discard(news)
        if not queues:
            del self.watchers[season_id]
            self.versions.pop(season_id, None)

    def publish(self, versions: dict[int, str]) -> None:
        for season_id, version in versions.items():
            queues = self.watchers.get(season_id)
            if queues is None or self.versions.get(season_id) == version:
                continue
            self.versions[season_id] = version
            for news in queues:
                news.put_nowait(version)

    async def _run(self) -> None:
        if connections["default"].vendor == "postgresql":
            await self._listen()
        else:
            await self._poll()

    # --- PostgreSQL: one LISTEN connection --------------------------------------------------------

    async def _listen(self) -> None:
        loop = asyncio.get_running_loop()
        while self.watchers:
            try:
                async with await psycopg.AsyncConnection.connect(**_listener_params()) as listener:
                    await listener.execute(f"LISTEN {CHANNEL}")
                    # Anything may have changed while nobody listened: look at every watched season.
                    due, looked = set(self.watchers), loop.time()
                    while self.watchers:
                        if due:
                            self.publish(await _read_versions(listener, due))
                        heard = [note.payload async for note in listener.notifies(timeout=WAIT_SECONDS, stop_after=1)]
                        if heard:  # one change often comes with others (a busy club night): take them together
                            heard += [note.payload async for note in listener.notifies(timeout=BURST_SECONDS)]
                        due = {season for season in map(_season_of, heard) if season in self.watchers}
                        if loop.time() - looked >= SAFETY_SECONDS:
                            due, looked = set(self.watchers), loop.time()
            except (psycopg.Error, OSError):  # a restart or failover: listen again shortly
                await asyncio.sleep(RECONNECT_SECONDS)

    # --- SQLite: one poll for every watched season ---------------------------------------------------

    async def _poll(self) -> None:
        loop = asyncio.get_running_loop()
        # One thread, so one database connection, for every poll of this process; closed at the end.
        reader = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=LISTENER_NAME)
        try:
            while self.watchers:
                with contextlib.suppress(DatabaseError):  # e.g. locked for a moment by a writer: look again soon
                    self.publish(await loop.run_in_executor(reader, _polled_versions, list(self.watchers)))
                await asyncio.sleep(POLL_SECONDS)
        finally:
            await loop.run_in_executor(reader, connections.close_all)
            reader.shutdown(wait=False)


def _season_of(payload: str) -> int | None:
    kind, _, number = payload.partition(":")
    return int(number) if kind == "season" and number.isdigit() else None


def _listener_params() -> dict:
    settings = connections["default"].settings_dict
    params = {"dbname": settings["NAME"], "autocommit": True, "application_name": LISTENER_NAME}
    for key, name in (("user", "USER"), ("password", "PASSWORD"), ("host", "HOST"), ("port", "PORT")):
        if settings.get(name):
            params[key] = settings[name]
    return params


async def _read_versions(listener, season_ids: set[int]) -> dict[int, str]:
    cursor = await listener.execute(season_versions_sql(), [sorted(season_ids)])
    found = {row[0]: version_text(*row[1:]) async for row in cursor}
    return {season_id: found.get(season_id, version_text(0, None, None)) for season_id in season_ids}


def _polled_versions(season_ids: list[int]) -> dict[int, str]:
    if connection.connection is None:
        connection.ensure_connection()
        # Never hold a read lock a writer would wait for. A no-op for a file database in WAL mode
        # (readers never block writers there); it matters for a shared-cache database (tests).
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 1")
    return season_versions(season_ids)
