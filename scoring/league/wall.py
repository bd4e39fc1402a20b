"""The wall screen: a season's standings, live, in large type for a TV across the room.

``wall`` renders the page (it works without JavaScript: a plain page with a
Reload link); ``wall_board`` renders its board partial; ``wall_events`` is an
async Server-Sent Events stream (``scoring.league.live.season_changes``) that
static/js/wall.js listens to, re-fetching the board on every change.
A private club's wall is only for its members (404 to anyone else).
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.db import connection
from django.http import StreamingHttpResponse
from django.shortcuts import render

from scoring import permissions
from scoring.league import live
from scoring.league.standings import RANKING_CRITERIA, season_wall
from scoring.models import Season

WALL_ROWS = 20


def _rows_shown(request) -> int | None:
    return None if request.GET.get("rows") == "all" else WALL_ROWS


def _context(request, season: Season) -> dict:
    board = season_wall(season)
    shown = _rows_shown(request)
    rows = board.standings.rows
    return {
        "club": season.club,
        "season": season,
        "board": board,
        "rows": rows if shown is None else rows[:shown],
        "more": 0 if shown is None else max(0, len(rows) - shown),
        "criteria": [RANKING_CRITERIA[name] for name in board.standings.ranking],
        "all_rows": shown is None,
    }


def wall(request, slug, pk):
    season = permissions.visible_season(request.user, slug, pk)
    return render(request, "wall/wall.html", _context(request, season))


def wall_board(request, slug, pk):
    season = permissions.visible_season(request.user, slug, pk)
    response = render(request, "wall/wall.html#board", _context(request, season))
    response["Cache-Control"] = "no-store"
    return response


async def _events(season_id: int):
    yield "retry: 1000\n\n"  # reconnect a second after a dropped stream
    async for kind, data in live.season_changes(season_id):
        if kind == "keepalive":
            yield ": keep-alive\n\n"
        else:
            yield f"event: {kind}\ndata: {data}\n\n"
    yield "event: bye\ndata: reconnect\n\n"  # the stream's time is up; the page opens a new one at once


def _visible_season_id(user, slug: str, pk: int) -> int:
    """The season's id if ``user`` may see it; then let go of this thread's database connection.

    The stream that follows runs for minutes (and listens on a connection of its own): holding the
    request's connection meanwhile would cost one PostgreSQL session per open screen, and a stream cut
    off by a disconnect never reaches the request_finished signal that would otherwise close it.
    """
    try:
        return permissions.visible_season(user, slug, pk).pk
    finally:
        connection.close()


async def wall_events(request, slug, pk):
    """text/event-stream: "ready" (with the season's version), "change" after every saved game or
    hand of the season, keep-alive comments, and "bye" when the server ends the stream."""
    season_id = await sync_to_async(_visible_season_id)(request.user, slug, pk)
    response = StreamingHttpResponse(_events(season_id), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass events on at once
    return response
