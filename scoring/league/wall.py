"""The wall screen: a season's standings, live, in large type for a TV across the room (a Swiss
night's wall also shows the current round's tables and its clock).

``wall`` renders the page (it works without JavaScript: a plain page with a
Reload link); ``wall_board`` renders its board partial (once per change for every screen: scoring/parts.py);
``wall_events`` answers with an
async Server-Sent Events stream (``scoring.league.live.season_changes``) that
static/js/wall.js listens to, re-fetching the board on every change.
A private club's wall is only for its members (404 to anyone else).
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone

from scoring import changes, parts, permissions
from scoring.league import live
from scoring.league.selectors import night_rounds
from scoring.league.standings import RANKING_CRITERIA, season_versions_now, season_wall
from scoring.models import Season

WALL_ROWS = 20


def _rows_shown(request) -> int | None:
    return None if request.GET.get("rows") == "all" else WALL_ROWS


def _context(request, season: Season, **versions) -> dict:
    board = season_wall(season, **versions)  # the season's versions, when the caller has just read them
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
        # A Swiss night: this round's tables (big type) and its clock, drawn from the server's time.
        "night_round": next(iter(night_rounds(season)), None) if season.is_swiss else None,
        "now": timezone.now(),
    }


def wall(request, slug, pk):
    season = permissions.visible_season(request.user, slug, pk)
    version, confirmed = season_versions_now(season)  # one pass over the season's games for both
    return render(request, "wall/wall.html", _context(request, season, version=version, confirmed=confirmed))


def _board_html(request, season: Season) -> str:
    """The board, rendered once per change for every screen of the season (scoring/parts.py): it shows
    the same to everyone who may see the season. Its key: the season's version (every game's change:
    the games in play and the latest results), its confirmed version (the standings) and how many rows
    are asked for. A Swiss night's board is drawn afresh each time: its round's clock starts from the
    server's time now."""

    version, confirmed = season_versions_now(season)
    if season.is_swiss:
        return render_to_string("wall/wall.html#board", _context(request, season, version=version, confirmed=confirmed))
    born = changes.version_text(0, season.created_at, season.closed_at)  # a re-used id is another season

    def render() -> str:
        context = _context(request, season, version=version, confirmed=confirmed)
        return render_to_string("wall/wall.html#board", context)

    versions = (season.pk, born, version, confirmed, _rows_shown(request))
    return parts.rendered("wall-board", versions=versions, render=render)


def wall_board(request, slug, pk):
    season = permissions.visible_season(request.user, slug, pk)
    response = HttpResponse(_board_html(request, season))
    response["Cache-Control"] = "no-store"
    return response


async def _events(season_id: int):
    yield "retry: 1000\n\n"  # reconnect a second after a dropped stream
    async for kind, data in live.season_changes(season_id):
        if kind == "closing":  # the server is shutting down: the page reconnects to its successor
            yield live.CLOSING
            return
        if kind == "keepalive":
            yield ": keep-alive\n\n"
        else:
            yield f"event: {kind}\ndata: {data}\n\n"
    yield "event: bye\ndata: reconnect\n\n"  # the stream's time is up; the page opens a new one at once


def wall_events(request, slug, pk):
    """text/event-stream: "ready" (with the season's version), "change" after every saved game or
    hand of the season, keep-alive comments, and "bye" when the server ends the stream.

    A plain view that answers with an async stream, which the server iterates on its event loop. It
    was an async view, which Django runs inside the sync middleware chain's thread through
    async_to_sync: the only executor of that kind in a request, and the one a server log named when it
    failed to end a request ("CurrentThreadExecutor already quit or is broken", seen once while a wall
    screen was open, not reproduced on its own)."""
    season_id = live.then_close(permissions.visible_season, request.user, slug, pk).pk
    return live.counted_stream(request, _events(season_id))  # counted against the client's address
