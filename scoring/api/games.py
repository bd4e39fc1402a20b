"""The REST API: thin views over the same services and selectors as the pages.

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
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ParseError, PermissionDenied
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from players.models import Club, Player
from players.services import player_get_or_create
from players.tokens import token_create, token_revoke
from scoring import audit, permissions, selectors, services
from scoring.api import league_serializers as ls
from scoring.api import serializers as s
from scoring.api import stats as stats_views
from scoring.api.filters import GameFilter, PlayerFilter
from scoring.api.idempotency import HEADER, MAX_KEY_LENGTH, idempotent, key_problem
from scoring.api.permissions import CanEditGame, can_delete_game, can_view_game, visible_game_q
from scoring.engine.record import RecordError, parse_record
from scoring.league import services as league
from scoring.models import Game, Hand, Season

# ---------------------------------------------------------------------------
# Errors


def _problem(field, message, hand=None) -> dict:
    return {"field": field, "message": str(message), "hand": hand}


def api_exception_handler(exc, context):
    """Service refusals -> problems; DRF's own errors reshaped to the same problem form."""
    if isinstance(exc, services.HandConflict):
        return Response(_problem(exc.field, exc.message_text, exc.hand), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, services.HandRefused):
        return Response(_problem(exc.field, exc.message_text, exc.hand), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            field, errors = next(iter(exc.error_dict.items()))
            message = " ".join(message for error in errors for message in error.messages)
        else:
            field, message = None, " ".join(exc.messages)
        return Response(_problem(field, message), status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None and not isinstance(exc, DRFValidationError) and isinstance(response.data, dict):
        detail = response.data.get("detail", "")
        response.data = _problem(None, detail)
    return response


class ApiErrors:
    def get_exception_handler(self):
        return api_exception_handler


class Pages(PageNumberPagination):
    """Page-number pagination that refuses a bad ``page_size`` instead of quietly ignoring it."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if not 1 <= size <= self.max_page_size:
            raise DRFValidationError(
                {self.page_size_query_param: [f"A whole number from 1 to {self.max_page_size}."]}
            )
        return size

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and not raw.strip():  # DRF would quietly serve page 1
            raise DRFValidationError({self.page_query_param: ["Give a page number, or leave the parameter out."]})
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

PROBLEM = OpenApiResponse(s.ProblemSerializer, description="Refused: the field (or header) and hand at fault.")
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
FORBIDDEN = OpenApiResponse(s.ProblemSerializer, description="Not signed in, or not allowed to change this.")
NOT_FOUND = OpenApiResponse(s.ProblemSerializer, description="No such object (or page).")
CONFLICT = OpenApiResponse(
    s.ProblemSerializer, description="Another device recorded this hand a moment ago; nothing was stored."
)
KEY_REUSED = OpenApiResponse(
    s.ProblemSerializer, description="The Idempotency-Key was already used with a different request body."
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
# Players


@extend_schema_view(
    list=extend_schema(summary="List players", responses={200: s.PlayerSerializer(many=True), **LIST_ERRORS}),
    retrieve=extend_schema(summary="One player", responses={200: s.PlayerSerializer, **READ_ERRORS}),
)
class PlayerViewSet(ApiErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Player.objects.order_by("name", "pk")
    serializer_class = s.PlayerSerializer
    filterset_class = PlayerFilter
    pagination_class = Pages
    permission_classes = [IsAuthenticatedOrReadOnly]
    lookup_value_regex = "[0-9]+"

    @extend_schema(
        summary="Add a player (or get the one with that name)",
        description="A name already used (in any letter case) returns that player with 200 instead of a new one.",
        parameters=[IDEMPOTENCY_KEY],
        responses={201: s.PlayerSerializer, 200: s.PlayerSerializer, **WRITE_ERRORS},
    )
    def create(self, request, *args, **kwargs):
        def perform():
            serializer = s.PlayerSerializer(data=request.data, context=self.get_serializer_context())
            serializer.is_valid(raise_exception=True)
            name = " ".join(serializer.validated_data["name"].split())
            existed = Player.objects.filter(name__iexact=name).exists()
            player = player_get_or_create(name=name, created_by=request.user)
            code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
            return Response(s.PlayerSerializer(player).data, status=code)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="A player's Elo ratings, one per club",
        description="From the confirmed results of each club the player belongs to that the caller may see, with "
        "the rating after each of those games (the same figures as the profile page).",
        responses={200: ls.PlayerRatingSerializer(many=True), **LIST_ERRORS},
    )
    @action(detail=True, methods=["get"], filterset_class=None, serializer_class=ls.PlayerRatingSerializer)
    def ratings(self, request, pk=None):
        player = stats_views.player_or_404(pk)
        page = self.paginate_queryset(stats_views.player_ratings_data(player, request))
        return self.get_paginated_response(ls.PlayerRatingSerializer(page, many=True).data)

    @extend_schema(
        summary="A player's hand history",
        description="Every hand of the player's games the caller may see, newest game first, filtered like the "
        "history page. Paged without a total: `next` is null on the last page.",
        parameters=stats_views.HISTORY_PARAMETERS,
        responses={200: ls.HistoryPageSerializer, **LIST_ERRORS},
    )
    @action(detail=True, methods=["get"], filterset_class=None, pagination_class=None)
    def hands(self, request, pk=None):
        return stats_views.history_response(request, player=stats_views.player_or_404(pk))


# ---------------------------------------------------------------------------
# Games


def _game_or_404(pk, user) -> Game:
    """The game, unless there is none or it is a league game of a private club ``user`` is not in."""
    try:
        game = selectors.game_detail(pk=pk)
    except (Game.DoesNotExist, ValueError, TypeError, OverflowError):
        raise Http404("No game with this id.") from None
    if not can_view_game(user, game):
        raise Http404("No game with this id.")
    return game


def game_detail_data(game: Game, request) -> dict:
    """A game as the API shows it after a write: reloaded with everything its detail shows."""
    return s.GameDetailSerializer(_game_or_404(game.pk, request.user), context={"request": request}).data


def _league_game_or_404(pk, user) -> tuple[Game, Club]:
    """A league game the user may see, and its club (like the league game page: a friendly game is a 404 here)."""
    game = _game_or_404(pk, user)
    if game.season_id is None:
        raise Http404("This is not a league game.")
    return game, Season.objects.select_related("club").get(pk=game.season_id).club


@extend_schema_view(
    list=extend_schema(
        summary="List games",
        description="Games in progress first, then newest first, with their per-game scores (no hands).",
        responses={200: s.GameSerializer(many=True), **LIST_ERRORS},
    ),
)
class GameViewSet(ApiErrors, viewsets.GenericViewSet):
    serializer_class = s.GameSerializer
    filterset_class = GameFilter
    pagination_class = Pages
    permission_classes = [IsAuthenticatedOrReadOnly, CanEditGame]
    lookup_value_regex = "[0-9]+"
    queryset = Game.objects.none()  # for the schema; the selectors own the real queries

    def get_queryset(self):
        return selectors.game_list().filter(visible_game_q(self.request.user))

    def get_object(self) -> Game:
        game = _game_or_404(self.kwargs["pk"], self.request.user)
        self.check_object_permissions(self.request, game)
        return game

    def _detail(self, game: Game) -> dict:
        return game_detail_data(game, self.request)

    def list(self, request, *args, **kwargs):
        games = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(games)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(summary="One game with its hands and scores", responses={200: s.GameDetailSerializer, **READ_ERRORS})
    def retrieve(self, request, pk=None):
        return Response(self._detail(self.get_object()))

    @extend_schema(
        summary="Start a game",
        request=s.GameCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: s.GameDetailSerializer, **WRITE_ERRORS},
    )
    def create(self, request, *args, **kwargs):
        def perform():
            serializer = s.GameCreateSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            game = services.game_create(
                player_one=data["player_one"],
                player_two=data["player_two"],
                first_dealer=data["first_dealer"],
                rules=data["rules"],
                name=data["name"],
                source=data["source"],
                created_by=request.user,
            )
            return Response(self._detail(game), status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Delete a game (its creator or staff)",
        parameters=[IDEMPOTENCY_KEY],
        responses={204: None, **WRITE_ERRORS},
    )
    def destroy(self, request, pk=None):
        game = _game_or_404(pk, request.user)
        if not can_delete_game(request.user, game):
            raise PermissionDenied("Only the game's creator or staff may delete this game.")

        def perform():
            services.game_delete(game=game)
            return Response(status=status.HTTP_204_NO_CONTENT)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="A game as a JSON game record",
        description="The facts of every hand plus the computed `expect` (see the game-record spec).",
        responses={200: OpenApiTypes.OBJECT, **READ_ERRORS},
    )
    @action(detail=True, methods=["get"], url_path="record", pagination_class=None, filterset_class=None)
    def record(self, request, pk=None):
        return Response(selectors.game_record(self.get_object()))

    @extend_schema(
        summary="Import a whole game record, all or nothing",
        description="The body is a game record (shared/spec/game-record.md). An invalid record is refused as a "
        "whole (nothing stored) with 400 and `{\"error\": {\"hand\": N, \"field\": \"...\"}, \"message\": \"...\"}`"
        ", the same as `scoresheet --json`.",
        request=OpenApiTypes.OBJECT,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: s.GameDetailSerializer,
            400: OpenApiResponse(s.RecordErrorSerializer, description="The record is invalid; nothing was stored."),
            403: FORBIDDEN,
            415: PROBLEM,
            422: KEY_REUSED,
        },
        examples=[
            OpenApiExample(
                "A short game",
                request_only=True,
                value={
                    "rules": {"preset": "standard"},
                    "players": ["Ann", "Bob"],
                    "first_dealer": "Bob",
                    "hands": [{"ending": "knock", "by": "Ann", "knocker_deadwood": 6, "defender_deadwood": 20}],
                },
            )
        ],
    )
    @action(detail=False, methods=["post"], url_path="import", pagination_class=None, filterset_class=None)
    def import_record(self, request):
        try:
            data = request.data
        except ParseError as error:
            return Response(RecordError(None, "record", f"not valid JSON: {error.detail}").as_json(), status=400)
        bad_key = key_problem(request)
        if bad_key:
            return Response(RecordError(None, HEADER, bad_key).as_json(), status=status.HTTP_400_BAD_REQUEST)

        def perform():
            try:
                nul_at = s.find_nul(data)
                if nul_at is not None:
                    raise RecordError(None, nul_at, f"{nul_at}: text may not contain the NUL character")
                record = parse_record(data)
                game = services.game_import(record=record, created_by=request.user)
            except RecordError as error:
                return Response(error.as_json(), status=status.HTTP_400_BAD_REQUEST)
            return Response(self._detail(game), status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)


    # --- league play: the same rules and services as the league game page (scoring/league_views.py)

    @extend_schema(
        summary="Confirm a league result (the other player, or a club admin)",
        description="A finished, provisional result then counts in the season's standings. A club admin may also "
        "confirm a disputed result. Refused with 400 (field `game`) if the game is not over or already confirmed.",
        request=ls.ConfirmSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.GameDetailSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], pagination_class=None, filterset_class=None)
    def confirm(self, request, pk=None):
        game, club = _league_game_or_404(pk, request.user)
        # Someone who confirms, but not now: the service names why (not over yet, already confirmed).
        user = request.user
        if not permissions.can_confirm(user, game, club) and not permissions.may_confirm(user, game, club):
            raise PermissionDenied("Only the other player (or a club admin) confirms this result.")

        def perform():
            serializer = ls.ConfirmSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            league.game_confirm(game=game, confirmed_by=request.user, comment=serializer.validated_data["comment"])
            return Response(game_detail_data(game, request))

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Dispute a league result (the other player)",
        description="A finished, provisional result goes to the club's admins with the comment; it does not count "
        "until an admin corrects and confirms it.",
        request=ls.DisputeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.GameDetailSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], pagination_class=None, filterset_class=None)
    def dispute(self, request, pk=None):
        game, club = _league_game_or_404(pk, request.user)
        if not permissions.can_dispute(request.user, game, club):
            if not permissions.may_dispute(request.user, game, club):
                raise PermissionDenied("Only the other player disputes a provisional result.")
            if not game.over:
                raise DjangoValidationError({"game": "The game is not over yet; a result is disputed when it is."})
            # Otherwise (already confirmed or disputed) the service names why.

        def perform():
            serializer = ls.DisputeSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            league.game_dispute(game=game, disputed_by=request.user, comment=serializer.validated_data["comment"])
            return Response(game_detail_data(game, request))

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="A league game's audit trail (who changed what, when)",
        responses={200: ls.FactChangeSerializer(many=True), **LIST_ERRORS},
    )
    @action(detail=True, methods=["get"], filterset_class=None, serializer_class=ls.FactChangeSerializer)
    def audit(self, request, pk=None):
        game, _club = _league_game_or_404(pk, request.user)
        page = self.paginate_queryset(audit.game_audit_trail(game))
        return self.get_paginated_response(ls.FactChangeSerializer(page, many=True).data)


# ---------------------------------------------------------------------------
# Hands (nested under a game)


class _HandViewBase(ApiErrors, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly, CanEditGame]

    def get_game(self, game_pk) -> Game:
        game = _game_or_404(game_pk, self.request.user)
        self.check_object_permissions(self.request, game)
        return game

    def detail(self, game: Game) -> dict:
        return game_detail_data(game, self.request)


class HandListView(_HandViewBase):
    @extend_schema(
        operation_id="games_hands_create",
        summary="Record the next hand",
        description="Scored by the same rules engine as the pages. Send `number` (the hand number you believe you "
        "are recording) so that two devices recording the same hand cannot both store it: the second gets 409. "
        "The response carries the hand and the recomputed game.",
        request=s.HandRecordSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: s.HandRecordedSerializer, **WRITE_ERRORS, 409: CONFLICT},
    )
    def post(self, request, game_pk):
        game = self.get_game(game_pk)

        def perform():
            serializer = s.HandRecordSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = dict(serializer.validated_data)
            expected = data.pop("number", None)
            hand = services.hand_record(game=game, recorded_by=request.user, expected_number=expected, **data)
            body = {"hand": s.HandSerializer(hand).data, "game": self.detail(game)}
            return Response(body, status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)


class HandDetailView(_HandViewBase):
    def get_hand(self, game: Game, pk) -> Hand:
        try:
            return Hand.objects.select_related("game").get(pk=pk, game=game)
        except (Hand.DoesNotExist, ValueError, TypeError, OverflowError):
            raise Http404("No hand with this id in this game.") from None

    @extend_schema(
        operation_id="games_hands_retrieve", summary="One hand", responses={200: s.HandSerializer, **READ_ERRORS}
    )
    def get(self, request, game_pk, pk):
        return Response(s.HandSerializer(self.get_hand(_game_or_404(game_pk, request.user), pk)).data)

    def _edit(self, request, game_pk, pk, *, partial: bool):
        game = self.get_game(game_pk)
        hand = self.get_hand(game, pk)

        def perform():
            serializer = s.HandEditSerializer(data=request.data, partial=partial)
            serializer.is_valid(raise_exception=True)
            facts = {
                "ending": hand.ending,
                "by": hand.by_id,
                "knocker_deadwood": hand.knocker_deadwood,
                "defender_deadwood": hand.defender_deadwood,
                "upcard": hand.upcard,
                "cards": hand.cards,
            } if partial else {"by": None, "knocker_deadwood": None, "defender_deadwood": None, "upcard": None,
                               "cards": None}
            facts.update(serializer.validated_data)
            reason = facts.pop("reason", "")
            changes = services.hand_edit(hand=hand, edited_by=request.user, reason=reason, **facts)
            hand.refresh_from_db()
            body = {
                "hand": s.HandSerializer(hand).data,
                "game": self.detail(game),
                "changes": s.ChangeSerializer(changes, many=True).data,
            }
            return Response(body)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        operation_id="games_hands_update",
        summary="Correct a hand (all its facts)",
        description="Every later hand and score is recomputed; refused (nothing saved) if the corrected sheet "
        "breaks the rules anywhere. `changes` lists what moved.",
        request=s.HandEditSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.HandEditedSerializer, **WRITE_ERRORS},
    )
    def put(self, request, game_pk, pk):
        return self._edit(request, game_pk, pk, partial=False)

    @extend_schema(
        operation_id="games_hands_partial_update",
        summary="Correct some facts of a hand",
        request=s.HandEditSerializer(partial=True),
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.HandEditedSerializer, **WRITE_ERRORS},
    )
    def patch(self, request, game_pk, pk):
        return self._edit(request, game_pk, pk, partial=True)

    @extend_schema(
        operation_id="games_hands_destroy",
        summary="Remove a hand",
        description="Later hands move up one and everything is recomputed. The response carries the game.",
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.HandRemovedSerializer, **WRITE_ERRORS},
    )
    def delete(self, request, game_pk, pk):
        game = self.get_game(game_pk)
        hand = self.get_hand(game, pk)

        def perform():
            changes = services.hand_remove(hand=hand, removed_by=request.user)
            body = {"game": self.detail(game), "changes": s.ChangeSerializer(changes, many=True).data}
            return Response(body)

        return idempotent(request, perform, self.handle_exception)


# ---------------------------------------------------------------------------
# Tokens


class TokenView(ApiErrors, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Create an API token for the signed-in user",
        description="Replaces any token the user had (the old one stops working). Send it as "
        "`Authorization: Token <token>`.",
        request=None,
        responses={201: s.TokenSerializer, 403: FORBIDDEN},
    )
    def post(self, request):
        token = token_create(user=request.user)
        return Response({"token": token.key, "created": token.created}, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Revoke the signed-in user's API token", responses={204: None, 403: FORBIDDEN})
    def delete(self, request):
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---------------------------------------------------------------------------
# Unknown paths under /api/


@csrf_exempt  # it changes nothing, and must answer a stray POST in JSON, not with the CSRF page
def not_found(request, *args, **kwargs):
    """Any other path under /api/: a JSON 404 in the problem shape, not the site's HTML page."""
    from django.http import JsonResponse

    hint = "" if request.path.endswith("/") else " (API paths end with a slash)"
    return JsonResponse(_problem(None, f"No such API endpoint{hint}."), status=404)


# ---------------------------------------------------------------------------
# Docs


class SwaggerDocsView(SpectacularSwaggerSplitView):
    """Swagger UI under the site's CSP: no inline script or style.

    The split view loads its init script from ``?script`` (same origin); our
    template replaces the package's inline <style> with a static stylesheet.
    """

    template_name = "api/swagger_ui.html"
