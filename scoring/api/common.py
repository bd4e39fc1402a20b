"""What every API endpoint shares: the error shape and exception handler (set in settings'
REST_FRAMEWORK["EXCEPTION_HANDLER"]), paging, the schema's common responses, and a game as the API shows it.

Errors: a serializer's validation errors are DRF's field map
(``{"ending": ["..."]}``); every other refusal is a *problem*,
``{"field": "knocker_deadwood" | null, "message": "...", "hand": 3 | null}``
(400 refused by the rules, 403 not allowed, 404 not found, 409 conflict,
422 Idempotency-Key reused). The bulk import alone answers in the
``scoresheet --json`` shape, ``{"error": {"hand": N, "field": "..."}, "message": "..."}``.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ginleague import numbers
from scoring import selectors, services
from scoring.api.idempotency import HEADER, MAX_KEY_LENGTH
from scoring.api.serializers import GameDetailSerializer, ProblemSerializer
from scoring.models import Game
from scoring.permissions import can_view_game

# ---------------------------------------------------------------------------
# Errors


def problem(field, message, hand=None, board=None) -> dict:
    """The error shape of every refusal that is not a serializer's field map (``board``: a partnership
    board at fault, only then present)."""
    shaped = {"field": field, "message": str(message), "hand": hand}
    if board is not None:
        shaped["board"] = board
    return shaped


def api_exception_handler(exc, context):
    """Service refusals -> problems; DRF's own errors reshaped to the same problem form."""
    if isinstance(exc, services.HandConflict):
        return Response(problem(exc.field, exc.message_text, exc.hand, exc.board), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, services.HandRefused):
        return Response(
            problem(exc.field, exc.message_text, exc.hand, exc.board), status=status.HTTP_400_BAD_REQUEST
        )
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            field, errors = next(iter(exc.error_dict.items()))
            message = " ".join(message for error in errors for message in error.messages)
        else:
            field, message = None, " ".join(exc.messages)
        return Response(problem(field, message), status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None and not isinstance(exc, DRFValidationError) and isinstance(response.data, dict):
        detail = response.data.get("detail", "")
        if isinstance(exc, NotAuthenticated):
            # Words for people, not DRF's "Authentication credentials were not provided." A phone's queued
            # hand reads the X-Sign-In header and waits for its account instead of being refused
            # (static/js/offline/: not the words, which follow the request's Accept-Language).
            detail = _("Sign in to do this: nobody is signed in.")
            response.headers["X-Sign-In"] = "required"  # said without words, for the phone's queue
        response.data = problem(getattr(exc, "field", None), detail)  # the parser's BadJSONText names its key
    return response


class Pages(PageNumberPagination):
    """Page-number pagination that refuses a bad ``page_size`` instead of quietly ignoring it."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        size = numbers.whole_or_none(raw) or 0
        if not 1 <= size <= self.max_page_size:
            raise DRFValidationError(
                {
                    self.page_size_query_param: [
                        _("A whole number from %(low)s to %(high)s.") % {"low": 1, "high": self.max_page_size}
                    ]
                }
            )
        return size

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and not raw.strip():  # DRF would quietly serve page 1
            raise DRFValidationError({self.page_query_param: [_("Give a page number, or leave the parameter out.")]})
        return super().get_page_number(request, paginator)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update({"minimum": 1, "maximum": self.max_page_size})
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters


# ---------------------------------------------------------------------------
# Schema helpers

PROBLEM = OpenApiResponse(ProblemSerializer, description="Refused: the field (or header) and hand at fault.")
BAD_REQUEST = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="Refused. Either a serializer's field map, e.g. `{\"ending\": [\"...\"]}`, or a problem "
    "`{\"field\": ..., \"message\": ..., \"hand\": ...}` when the rules refuse the request.",
    examples=[
        OpenApiExample(
            "Refused by the rules",
            value={"field": "knocker_deadwood", "message": "hand 3: knocker_deadwood 12 is over the knock limit "
                   "of 10", "hand": 3},
        ),
        OpenApiExample("Field map", value={"ending": ['"lost" is not a valid choice.']}),
    ],
)
FORBIDDEN = OpenApiResponse(ProblemSerializer, description="Not signed in, or not allowed to change this.")
NOT_FOUND = OpenApiResponse(ProblemSerializer, description="No such object (or page).")
CONFLICT = OpenApiResponse(
    ProblemSerializer, description="Another device recorded this hand a moment ago; nothing was stored."
)
KEY_REUSED = OpenApiResponse(
    ProblemSerializer, description="The Idempotency-Key was already used with a different request body."
)
IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": r"\S"},
    OpenApiParameter.HEADER,
    required=False,
    description="A client-chosen key (1-200 characters) that makes a retried write happen once: the same key "
    "with the same body replays the first response; with a different body it is refused (422).",
)
READ_ERRORS = {403: FORBIDDEN, 404: NOT_FOUND}
LIST_ERRORS = {400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND}
WRITE_ERRORS = {400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND, 415: PROBLEM, 422: KEY_REUSED}


# ---------------------------------------------------------------------------
# A game as the API shows it


NO_GAME = gettext_lazy("No game with this id.")


def game_or_404(pk, user) -> Game:
    """The game, unless there is none or it is a league game of a private club ``user`` is not in."""
    try:
        game = selectors.game_detail(pk=pk)
    except (Game.DoesNotExist, ValueError, TypeError, OverflowError):
        raise Http404(NO_GAME) from None
    return visible_or_404(game, user)


def visible_or_404(game: Game, user) -> Game:
    """``game``, unless it is a league game of a private club ``user`` is not in (then as if there were none)."""
    if not can_view_game(user, game):
        raise Http404(NO_GAME)
    return game


def game_detail_data(game: Game, request) -> dict:
    """A game as the API shows it after a write: reloaded with everything its detail shows."""
    return game_data(game_or_404(game.pk, request.user), request)


def game_data(game: Game, request) -> dict:
    """A game as the API shows it, from a game already loaded with everything its detail shows (by
    ``game_or_404``, or a write that left it so: the ``game`` of the hand ``services.hand_record``
    returns holds the hands, scores and players it wrote): no second read."""
    return GameDetailSerializer(game, context={"request": request}).data
