"""A live page's one event stream: what it follows, limited to what its viewer may see.

Every page that shows changing figures opens at most one stream, ``/live/?game=<id>``,
``?season=<id>`` or ``?club=<slug>`` (one of them, or none), and static/js/wall.js re-fetches the
page's live parts when the stream names them. A signed-in viewer's stream also follows their own
"Needs you" count (the seasons of their clubs). The stream carries only event names and versions,
never figures: each part is re-fetched through its page's own view, which checks who may see it.
A game, season or club the viewer may not see is refused (404) before anything is streamed.

Events: "ready" (JSON: each followed part's version) when the stream opens; then "game", "season",
"club" or "todo" (the version) when that part changed; keep-alive comments; "bye" when the server
ends the stream (the page opens the next one at once). Served by a WSGI server (a thread per open
stream: never for long), the stream only says "unlive" and ends: the page stays a plain page.

One client address holds at most ``LIVE_STREAMS_PER_ADDRESS`` streams open in one server process
(each holds a socket, a file descriptor, for minutes): one more is refused with 429 and a message
saying so (the address as the API's rate limits see it: ``NUM_PROXIES``; scoring.league.live counts them).
"""

from __future__ import annotations

import json
from collections import defaultdict

from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, StreamingHttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from ginleague import numbers
from scoring import permissions
from scoring.changes import game_topic, season_topic, todo_topic
from scoring.league import live
from scoring.models import Game, Season
from scoring.selectors import open_season_ids, todo_season_ids

NOT_FOUND = {"game": gettext_noop("No such game."), "season": gettext_noop("No such season.")}
LABELS = {"game": gettext_noop("Game"), "season": gettext_noop("Season")}


def _id(request, name: str) -> int | None:
    value = request.GET.get(name)
    if value is None:
        return None
    return numbers.an_id(value, field=name, label=_(LABELS[name]))  # "²" or 1e30: 400 naming it


def followed(request) -> dict[str, set[str]]:
    """{topic: the parts it moves} for this viewer; Http404 for a game, season or club they may not see."""
    parts: dict[str, set[str]] = defaultdict(set)
    if (game_id := _id(request, "game")) is not None:
        game = Game.objects.select_related("season__club").filter(pk=game_id).first()
        if game is None or not permissions.can_view_game(request.user, game):
            raise Http404(_(NOT_FOUND["game"]))
        parts[game_topic(game.pk)].add("game")
    if (season_id := _id(request, "season")) is not None:
        season = Season.objects.select_related("club").filter(pk=season_id).first()
        if season is None or not permissions.can_view_club(request.user, season.club):
            raise Http404(_(NOT_FOUND["season"]))
        parts[season_topic(season.pk)].add("season")
    if slug := request.GET.get("club"):
        club = permissions.visible_club(request.user, slug)
        for season_id in open_season_ids(club):
            parts[season_topic(season_id)].add("club")
    # The viewer's own (nobody else's to-do), on the seasons' to-do topics: a hand of a game in play
    # moves nobody's list, so it does not make every signed-in page fetch its count again.
    for season_id in todo_season_ids(request.user):
        parts[todo_topic(season_id)].add("todo")
    return dict(parts)


def _by_part(parts: dict[str, set[str]], versions: dict[str, str]) -> dict[str, str]:
    """{part: version} from {topic: version}; a part that follows several topics gets them all, joined."""
    found: dict[str, list[str]] = defaultdict(list)
    for topic in sorted(versions):
        for part in parts.get(topic, ()):
            found[part].append(versions[topic])
    return {part: " ".join(texts) for part, texts in found.items()}


async def _events(parts: dict[str, set[str]]):
    yield "retry: 1000\n\n"  # reconnect a second after a dropped stream
    async for kind, versions in live.topic_changes(parts):
        if kind == "closing":  # the server is shutting down: the page reconnects to its successor
            yield live.CLOSING
            return
        if kind == "keepalive":
            yield ": keep-alive\n\n"
        elif kind == "ready":
            yield f"event: ready\ndata: {json.dumps(_by_part(parts, versions), sort_keys=True)}\n\n"
        else:
            for part, version in sorted(_by_part(parts, versions).items()):
                yield f"event: {part}\ndata: {version}\n\n"
    yield "event: bye\ndata: reconnect\n\n"


def live_events(request):
    """text/event-stream of the parts this page follows (see the module's docstring). A page that
    follows nothing today (a member of no club) gets a quiet stream: nothing to tell, no retries."""
    if not isinstance(request, ASGIRequest):
        followed(request)  # still refused (404) to whoever may not see it
        return StreamingHttpResponse(iter(["event: unlive\ndata: reload\n\n"]), content_type="text/event-stream")
    return live.counted_stream(request, _events(live.then_close(followed, request)))
