"""Ratings and hand history: read-only, through the same selectors as the profile and history pages
(scoring.stats.selectors, scoring.stats.history), which show private clubs' games only to their members."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response

from ginleague import numbers
from players.models import Player
from scoring.api.league_serializers import HistoryHandSerializer
from scoring.models import Result
from scoring.stats.history import PAGE_SIZE, HandFilterForm, hand_history, page_of
from scoring.stats.selectors import cached_club_ratings, player_ratings

HISTORY_FILTERS = ["opponent", "season", "ending", "date_from", "date_to", "points_min", "points_max"]
MAX_HISTORY_PAGE_SIZE = 200

HISTORY_PARAMETERS = [
    OpenApiParameter(
        "opponent",
        {"type": "integer", "minimum": 1},
        description="A player's history: hands against this opponent (id). A club's: this member's hands.",
    ),
    OpenApiParameter("season", {"type": "integer", "minimum": 1}, description="Hands of this season (id)."),
    OpenApiParameter("ending", {"type": "string", "enum": list(Result.values)}, description="How the hand ended."),
    OpenApiParameter("date_from", OpenApiTypes.DATE, description="Hands recorded on or after (YYYY-MM-DD)."),
    OpenApiParameter("date_to", OpenApiTypes.DATE, description="Hands recorded on or before (YYYY-MM-DD)."),
    OpenApiParameter("points_min", {"type": "integer", "minimum": 0}, description="At least this many points."),
    OpenApiParameter("points_max", {"type": "integer", "minimum": 0}, description="At most this many points."),
    OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="A page number (from 1)."),
    OpenApiParameter(
        "page_size", {"type": "integer", "minimum": 1, "maximum": MAX_HISTORY_PAGE_SIZE}, description="Hands a page."
    ),
]


def _whole(request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    value = numbers.whole_or_none(raw, low=-numbers.BIGINT, high=numbers.BIGINT)
    if value is None:
        value = low - 1
    if not low <= value <= high:
        raise DRFValidationError({name: [_("A whole number from %(low)s to %(high)s.") % {"low": low, "high": high}]})
    return value


def history_response(request, *, player=None, club=None) -> Response:
    """One page of hands, newest game first, filtered like the history page (same form, same messages).

    Paged without a COUNT (a club may have hundreds of thousands of hands): ``next`` is null on the last page.
    """
    given = {name: request.query_params.get(name) for name in HISTORY_FILTERS if name in request.query_params}
    empty = [name for name, value in given.items() if not value.strip()]
    if empty:
        raise DRFValidationError({name: [_("Give a value, or leave the parameter out.")] for name in empty})
    form = HandFilterForm(given or None, player=player, club=club, viewer=request.user)
    if given and not form.is_valid():
        raise DRFValidationError({field: list(errors) for field, errors in form.errors.items()})
    page = _whole(request, "page", 1, 1, 10**6)
    size = _whole(request, "page_size", PAGE_SIZE, 1, MAX_HISTORY_PAGE_SIZE)
    filters = form.filters() if given else {}
    hands, has_next = page_of(hand_history(viewer=request.user, player=player, club=club, **filters), page, size)
    def link(number):
        return request.build_absolute_uri(request.path) + "?" + _query(request, number)

    return Response(
        {
            "next": link(page + 1) if has_next else None,
            "previous": link(page - 1) if page > 1 else None,
            "results": HistoryHandSerializer(hands, many=True).data,
        }
    )


def _query(request, page: int) -> str:
    params = request.query_params.copy()
    params["page"] = str(page)
    return params.urlencode()


def player_ratings_data(player: Player, request) -> list:
    return list(player_ratings(player, viewer=request.user))


def club_ratings_data(club) -> list[dict]:
    """The club's members by rating (highest first); members with no confirmed game have the initial rating."""
    (ratings,) = cached_club_ratings([club])
    members = Player.objects.filter(memberships__club=club).only("pk", "name")
    rows = sorted(
        (
            {"player": member, "rating": ratings.rating(member.pk), "games": len(ratings.history.get(member.pk, []))}
            for member in members
        ),
        key=lambda row: (-row["rating"], row["player"].name.lower()),
    )
    for position, row in enumerate(rows, start=1):
        row["position"] = position
    return rows


def player_or_404(pk) -> Player:
    try:
        return Player.objects.get(pk=pk)
    except (Player.DoesNotExist, ValueError, OverflowError):
        raise Http404(_("No such player.")) from None
