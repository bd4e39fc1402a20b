"""Live updates for wall screens and every page that follows changes: each change of a season or a
game reaches every open stream that follows it, across processes.

Writers announce changes through ``scoring.changes.notify_change`` (PostgreSQL NOTIFY, sent when
their transaction commits). Readers iterate ``topic_changes`` (a live page's one stream, following
any topics: ``season:<id>``, ``game:<id>``, ``todo:<id>``: a season's notification is heard for its
to-do topic too) or ``season_changes`` (the wall screen's stream).

One hub per server process (per event loop) listens for all the streams of that process, so a
thousand open pages cost what one does:

* on PostgreSQL the hub holds ONE connection that LISTENs on the channels, and reads a topic's
  version only when a notification for that topic arrives, in one query per kind for every topic
  named in a burst of notifications; every ``SAFETY_SECONDS`` it also looks at every watched topic
  (one query per kind), a safety net for a write that sent no notification;
* on SQLite (no notifications) the hub polls the versions of every watched topic in one query per
  kind every ``POLL_SECONDS``.

Every stream, a page's or a wall's, is answered through ``counted_stream``: one client address holds
at most ``LIVE_STREAMS_PER_ADDRESS`` open in this process, one more is a 429 saying so.

Each stream hears the hub's news through a queue of its own. The hub starts with the first stream
of its process and stops (closing its connection) soon after the last one ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import weakref
from collections import Counter
from collections.abc import AsyncIterator

import psycopg
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, connection, connections
from django.http import HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext as _

from scoring.changes import (
    CHANNELS,
    GONE,
    game_topic,
    game_version_text,
    game_versions_sql,
    season_todo_versions_sql,
    season_topic,
    season_versions_sql,
    todo_topic,
    todo_version_text,
    topic_ids,
    topic_versions,
    topics_told,
    version_text,
)

POLL_SECONDS = 0.5  # SQLite: how often the hub looks at the watched topics' versions
SAFETY_SECONDS = 10.0  # PostgreSQL: look at every watched topic this often, notified or not
WAIT_SECONDS = 1.0  # PostgreSQL: the longest the hub waits for a notification before looking around
BURST_SECONDS = 0.01  # PostgreSQL: after one notification, gather the others already on their way
RECONNECT_SECONDS = 1.0  # wait this long before listening (polling) again after the connection (hub) broke
KEEPALIVE_SECONDS = 15.0  # a comment line this often keeps proxies from closing a quiet stream
STREAM_SECONDS = 300.0  # the server ends a stream after this long; the browser reconnects
# What a stream says when the server shuts down: the page reconnects by itself 10 to 20 s later (to the
# restarted server; spread out, so a thousand pages do not all come back at once).
CLOSING = "retry: 20000\n\nevent: closing\ndata: reconnect later\n\n"
LISTENER_NAME = "ginleague-live"  # application_name of the hub's connection (pg_stat_activity shows it)
OPENING_AT_ONCE = 4  # streams of one process that may read the database at once while they open

logger = logging.getLogger(__name__)


async def topic_changes(
    topics,
    *,
    seconds: float = STREAM_SECONDS,
    keepalive: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """Yield ("ready", {topic: version} of every topic) once, then ("change", {topic: version} of the
    topics that changed) after every change and ("keepalive", {}) when nothing was sent for
    ``keepalive`` seconds; stop after ``seconds``, or after ("closing", {}) when the server shuts down."""
    loop = asyncio.get_running_loop()
    topics = sorted(set(topics))
    hub = _hub()
    news = hub.watch(topics)  # before reading the versions, so no change can fall between the two
    try:
        last = await briefly(topic_versions, topics)
        yield "ready", dict(last)
        deadline = sent = loop.time()
        deadline += seconds
        while (remaining := deadline - loop.time()) > 0:
            try:
                topic, version = await asyncio.wait_for(
                    news.get(), timeout=min(remaining, sent + keepalive - loop.time())
                )
            except TimeoutError:
                if deadline - loop.time() > 0:
                    sent = loop.time()
                    yield "keepalive", {}
                continue
            newest = {topic: version}
            while not news.empty():  # several changes in a row: only the newest of each topic matters
                topic, version = news.get_nowait()
                newest[topic] = version
            closing = newest.pop(None, None) is not None  # end_streams: the server is shutting down
            changed = {topic: version for topic, version in newest.items() if last.get(topic) != version}
            if changed:
                last.update(changed)
                sent = loop.time()
                yield "change", changed
            if closing:
                yield "closing", {}
                return
    finally:
        hub.unwatch(topics, news)


async def season_changes(
    season_id: int,
    *,
    seconds: float = STREAM_SECONDS,
    keepalive: float = KEEPALIVE_SECONDS,
) -> AsyncIterator[tuple[str, str]]:
    """Yield ("ready", version) once, then ("change", version) after every change of the
    season and ("keepalive", "") when nothing was sent for ``keepalive`` seconds; stop after ``seconds``."""
    topic = season_topic(season_id)
    async for kind, versions in topic_changes([topic], seconds=seconds, keepalive=keepalive):
        yield kind, versions.get(topic, "")


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


def end_streams() -> None:
    """Have every open stream of this process end now, cleanly (the server is shutting down: a stream
    cut instead shows as a broken answer in the browser, and holds the shutdown for its grace time).
    Safe to call from a signal handler."""
    for hub in list(_HUBS.values()):
        if not hub.loop.is_closed():  # a loop that ended (tests run one per test) has no stream left
            hub.loop.call_soon_threadsafe(hub.close_all)


def hub_stats() -> dict[str, int]:
    """How many seasons and streams this process's hub is watching (for tests and benches)."""
    hub = _HUBS.get(asyncio.get_running_loop())
    if hub is None:
        return {"seasons": 0, "streams": 0, "running": 0}
    return {
        "seasons": len(topic_ids(hub.watchers)["season"]),
        "streams": len(set().union(*hub.watchers.values())),
        "running": int(hub.task is not None and not hub.task.done()),
    }


class _Hub:
    """The one listener of this process's event loop, fanning changes out to its streams."""

    def __init__(self) -> None:
        self.watchers: dict[str, set[asyncio.Queue[tuple[str, str]]]] = {}
        self.versions: dict[str, str] = {}  # the newest version each watched topic was seen at
        self.task: asyncio.Task | None = None
        self.opening = asyncio.Semaphore(OPENING_AT_ONCE)
        self.loop = asyncio.get_running_loop()

    def watch(self, topics) -> asyncio.Queue[tuple[str, str]]:
        news: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        for topic in topics:
            self.watchers.setdefault(topic, set()).add(news)
        if topics and (self.task is None or self.task.done()):
            self.task = asyncio.get_running_loop().create_task(self._run())
        return news

    def unwatch(self, topics, news: asyncio.Queue[tuple[str, str]]) -> None:
        for topic in topics:
            queues = self.watchers.get(topic)
            if queues is None:
                continue
            queues.discard(news)
            if not queues:
                del self.watchers[topic]
                self.versions.pop(topic, None)

    def close_all(self) -> None:
        for news in set().union(*self.watchers.values()):
            news.put_nowait((None, ""))

    def publish(self, versions: dict[str, str]) -> None:
        for topic, version in versions.items():
            queues = self.watchers.get(topic)
            if queues is None or self.versions.get(topic) == version:
                continue
            self.versions[topic] = version
            for news in queues:
                news.put_nowait((topic, version))

    async def _run(self) -> None:
        # The hub outlives any one failure: a task that ended on an error nobody expected would leave every
        # open stream of this process deaf, with nothing to restart it until another stream opens.
        while self.watchers:
            try:
                if connections["default"].vendor == "postgresql":
                    await self._listen()
                else:
                    await self._poll()
            except Exception:
                logger.exception("The live hub failed; it starts again in %s s", RECONNECT_SECONDS)
                await asyncio.sleep(RECONNECT_SECONDS)

    # --- PostgreSQL: one LISTEN connection --------------------------------------------------------

    async def _listen(self) -> None:
        loop = asyncio.get_running_loop()
        while self.watchers:
            try:
                async with await psycopg.AsyncConnection.connect(**_listener_params()) as listener:
                    for channel in CHANNELS:
                        await listener.execute(f"LISTEN {channel}")
                    # Anything may have changed while nobody listened: look at every watched topic.
                    due, looked = set(self.watchers), loop.time()
                    while self.watchers:
                        if due:
                            self.publish(await _read_versions(listener, due))
                        heard = [note.payload async for note in listener.notifies(timeout=WAIT_SECONDS, stop_after=1)]
                        if heard:  # one change often comes with others (a busy club night): take them together
                            heard += [note.payload async for note in listener.notifies(timeout=BURST_SECONDS)]
                        due = {topic for payload in heard for topic in topics_told(payload) if topic in self.watchers}
                        if loop.time() - looked >= SAFETY_SECONDS:
                            due, looked = set(self.watchers), loop.time()
            except (psycopg.Error, OSError):  # a restart or failover: listen again shortly
                await asyncio.sleep(RECONNECT_SECONDS)

    # --- SQLite: one poll for every watched topic ----------------------------------------------------

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


def _listener_params() -> dict:
    settings = connections["default"].settings_dict
    params = {"dbname": settings["NAME"], "autocommit": True, "application_name": LISTENER_NAME}
    for key, name in (("user", "USER"), ("password", "PASSWORD"), ("host", "HOST"), ("port", "PORT")):
        if settings.get(name):
            params[key] = settings[name]
    return params


async def _read_versions(listener, topics: set[str]) -> dict[str, str]:
    ids = topic_ids(topics)
    versions = {}
    if ids["season"]:
        seasons = sorted(ids["season"])
        cursor = await listener.execute(season_versions_sql(), [seasons, seasons])
        found = {row[0]: version_text(*row[1:]) async for row in cursor}
        versions.update((season_topic(pk), found.get(pk, version_text(0, None, None))) for pk in ids["season"])
    if ids["game"]:
        cursor = await listener.execute(game_versions_sql(), [sorted(ids["game"])])
        found = {row[0]: game_version_text(*row[1:]) async for row in cursor}
        versions.update((game_topic(pk), found.get(pk, GONE)) for pk in ids["game"])
    if ids["todo"]:
        seasons = sorted(ids["todo"])
        cursor = await listener.execute(season_todo_versions_sql(), [seasons, seasons])
        found = {row[0]: todo_version_text(*row[1:]) async for row in cursor}
        none = todo_version_text(0, None, None, 0, 0, None)
        versions.update((todo_topic(pk), found.get(pk, none)) for pk in ids["todo"])
    return versions


def _polled_versions(topics: list[str]) -> dict[str, str]:
    if connection.connection is None:
        connection.ensure_connection()
        # Never hold a read lock a writer would wait for. A no-op for a file database in WAL mode
        # (readers never block writers there); it matters for a shared-cache database (tests).
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 1")
    return topic_versions(topics)


# --- at most LIVE_STREAMS_PER_ADDRESS open streams per client address, in this process ---------------

_OPEN: Counter[str] = Counter()
_OPEN_LOCK = threading.Lock()
RETRY_AFTER_SECONDS = 60


def client_address(request) -> str:
    """The caller's address: behind ``NUM_PROXIES`` proxies, the one they wrote into X-Forwarded-For."""
    forwarded, proxies = request.META.get("HTTP_X_FORWARDED_FOR"), settings.NUM_PROXIES
    if proxies and forwarded:
        addresses = [address.strip() for address in forwarded.split(",")]
        return addresses[-min(proxies, len(addresses))]
    return request.META.get("REMOTE_ADDR", "")


def _admit(address: str) -> bool:
    limit = settings.LIVE_STREAMS_PER_ADDRESS
    with _OPEN_LOCK:
        if limit and _OPEN[address] >= limit:
            return False
        _OPEN[address] += 1
        return True


def _release(address: str) -> None:
    with _OPEN_LOCK:
        _OPEN[address] -= 1
        if _OPEN[address] <= 0:
            del _OPEN[address]


def open_streams(address: str) -> int:
    """How many streams ``address`` holds open in this process (tests and benches)."""
    with _OPEN_LOCK:
        return _OPEN[address]


class _CountedStream(StreamingHttpResponse):
    """An event stream counted against its client's address until the server closes it."""

    def __init__(self, *args, address: str, **kwargs):
        super().__init__(*args, **kwargs)
        self._address = address

    def close(self):
        try:
            super().close()
        finally:
            if self._address is not None:
                address, self._address = self._address, None
                _release(address)


def _too_many(limit: int) -> HttpResponse:
    message = _(
        "Too many live pages are open from your address (at most %(limit)s). Close some, then reload this one."
    ) % {"limit": limit}
    response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def counted_stream(request, events) -> HttpResponse:
    """The text/event-stream answer of ``events`` (an async iterator), counted against the client's
    address while it is open: 429 instead when that address holds its ``LIVE_STREAMS_PER_ADDRESS``.
    For every live stream: a page's (scoring.league.streams) and a wall screen's (scoring.league.wall)."""
    address = client_address(request)
    if not _admit(address):
        return _too_many(settings.LIVE_STREAMS_PER_ADDRESS)
    response = _CountedStream(events, content_type="text/event-stream", address=address)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass events on at once
    return response
