"""The REST API's games, hands, players and tokens: thin views over the same services and selectors as
the pages. The error shape, paging and the schema's common responses are in scoring/api/common.py."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ParseError, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView

from players.models import Club, Player
from players.services import clean_name, player_get_or_create
from players.tokens import token_create, token_revoke
from scoring import audit, permissions, selectors, services
from scoring.api import league_serializers as ls
from scoring.api import serializers as s
from scoring.api import stats as stats_views
from scoring.api.common import (
    CONFLICT,
    FORBIDDEN,
    IDEMPOTENCY_KEY,
    KEY_REUSED,
    LIST_ERRORS,
    NO_GAME,
    PROBLEM,
    READ_ERRORS,
    WRITE_ERRORS,
    Pages,
    game_data,
    game_detail_data,
    game_or_404,
    problem,
    visible_or_404,
)
from scoring.api.filters import GameFilter, PlayerFilter
from scoring.api.idempotency import HEADER, idempotent, key_problem
from scoring.api.json_text import find_nul
from scoring.api.permissions import CanEditGame, SignedInSession, visible_game_q
from scoring.api.rendering import RENDERERS, Rendered
from scoring.api.throttles import TokenThrottle, UserThrottle
from scoring.engine.record import RecordError, parse_record
from scoring.league import services as league
from scoring.models import Game, Hand

# ---------------------------------------------------------------------------
# Players


@extend_schema_view(
    list=extend_schema(summary="List players", responses={200: s.PlayerSerializer(many=True), **LIST_ERRORS}),
    retrieve=extend_schema(summary="One player", responses={200: s.PlayerSerializer, **READ_ERRORS}),
)
class PlayerViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
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
            name = clean_name(serializer.validated_data["name"])
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


def _leaguegame_or_404(pk, user) -> tuple[Game, Club]:
    """A league game the user may see, and its club (like the league game page: a friendly game is a 404 here)."""
    game = game_or_404(pk, user)
    if game.season_id is None:
        raise Http404(_("This is not a league game."))
    return game, permissions.club_of_game(game)


@extend_schema_view(
    list=extend_schema(
        summary="List games",
        description="Games in progress first, then newest first, with their per-game scores (no hands).",
        responses={200: s.GameSerializer(many=True), **LIST_ERRORS},
    ),
)
class GameViewSet(viewsets.GenericViewSet):
    serializer_class = s.GameSerializer
    filterset_class = GameFilter
    pagination_class = Pages
    permission_classes = [IsAuthenticatedOrReadOnly, CanEditGame]
    lookup_value_regex = "[0-9]+"
    queryset = Game.objects.none()  # for the schema; the selectors own the real queries

    def get_queryset(self):
        return selectors.game_list().filter(visible_game_q(self.request.user))

    def get_object(self) -> Game:
        game = game_or_404(self.kwargs["pk"], self.request.user)
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
        return Response(game_data(self.get_object(), request))  # get_object read it whole: no second read

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
                player_three=data["player_three"],
                player_four=data["player_four"],
                first_dealer=data["first_dealer"],
                rules=data["rules"],
                name=data["name"],
                source=data["source"],
                created_by=request.user,
            )
            return Response(self._detail(game), status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Delete a game (its creator or staff), or void a finished league result (an organiser)",
        description="A finished league game is never deleted by a player (403, saying why). An organiser of its "
        "club who did not play in it voids it with a `reason` (JSON body or query string; 400 naming `reason` "
        "without one): the game is deleted, the fixture is open again, and its history, with the reason, "
        "stays with the fixture (`GET /api/fixtures/{id}/history/`).",
        parameters=[
            IDEMPOTENCY_KEY,
            OpenApiParameter("reason", str, OpenApiParameter.QUERY, required=False,
                             description="Why a finished league result is voided (as the JSON body's `reason`)."),
        ],
        responses={204: None, **WRITE_ERRORS},
    )
    def destroy(self, request, pk=None):
        game = game_or_404(pk, request.user)
        permissions.refuse_closed_season(season_id=game.season_id)  # the state first (400), then the person
        refusal = permissions.delete_refusal(request.user, game)
        if refusal:
            raise PermissionDenied(refusal)

        def perform():
            if permissions.is_void_not_delete(game):
                data = request.data if "reason" in request.data else request.query_params
                serializer = ls.VoidSerializer(data=data)
                serializer.is_valid(raise_exception=True)
                league.game_void(game=game, voided_by=request.user, reason=serializer.validated_data.get("reason", ""))
            else:
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
        description="The body is a game record (docs/game-record.md). An invalid record is refused as a "
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
            field = getattr(error, "field", "record")  # a duplicate key or a lone surrogate: that key
            message = _("not valid JSON: %(problem)s") % {"problem": error.detail}
            return Response(RecordError(None, field, message).as_json(), status=400)
        bad_key = key_problem(request)
        if bad_key:
            return Response(RecordError(None, HEADER, bad_key).as_json(), status=status.HTTP_400_BAD_REQUEST)

        def perform():
            try:
                nul_at = find_nul(data)
                if nul_at is not None:
                    message = _("%(field)s: text may not contain the NUL character") % {"field": nul_at}
                    raise RecordError(None, nul_at, message)
                record = parse_record(data)
                game = services.game_import(record=record, created_by=request.user)
            except RecordError as error:
                return Response(error.as_json(), status=status.HTTP_400_BAD_REQUEST)
            return Response(self._detail(game), status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        methods=["DELETE"],
        summary="Withdraw a time call (pressed by mistake) while the game is still open",
        description="The game goes on to the target again; its history keeps the call and its withdrawal. Refused "
        "with 400 (field `time_called_after`) when time was not called or the game is already over (undo its last "
        "hand first). The same people as calling time.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.GameDetailSerializer, **WRITE_ERRORS},
    )
    @extend_schema(
        methods=["POST"],
        summary="Call time on a game (a timed round)",
        description="The hand in progress (the one after the hands recorded now) is the game's last, unless the "
        "players are level on hand points after it: then play goes on until a hand leaves one ahead, who wins "
        "(docs/rules.md, \"A game ended by time\"). For whoever may record its hands and the organisers of its "
        "season. Refused with 400 (field `time_called_after`) for a game already over, a second call and a "
        "Hollywood sitting. No body.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.GameDetailSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post", "delete"], url_path="time", pagination_class=None, filterset_class=None)
    def call_time(self, request, pk=None):
        def may_call_time(game: Game) -> None:
            # Asked of the locked row, as a hand's write is: the game as it now is.
            visible_or_404(game, request.user)
            permissions.refuse_closed_season(season_id=game.season_id)  # the state first (400), then the person
            if not permissions.can_call_time(request.user, game):
                raise PermissionDenied(permissions.CALL_TIME_REFUSAL)

        def perform():
            try:
                if request.method == "DELETE":
                    game = services.game_time_withdraw(game=int(pk), withdrawn_by=request.user, check=may_call_time)
                else:
                    game = services.game_call_time(game=int(pk), called_by=request.user, check=may_call_time)
            except Game.DoesNotExist:
                raise Http404(NO_GAME) from None
            return Response(game_detail_data(game, request))

        return idempotent(request, perform, self.handle_exception)

    # --- league play: the same rules and services as the league game page (scoring/league_views.py)

    @extend_schema(
        summary="Confirm a league result (the other player, or a club organiser who did not play)",
        description="A finished, provisional result then counts in the season's standings. Nobody confirms a "
        "result they started, entered any hand of, or changed (403, saying whom it waits for); a result "
        "against a guest, or one both players entered or changed, waits for an organiser who did not play. "
        "An organiser who did not play may also confirm a disputed result. Refused with 400 (field `game`) if "
        "the game is not over or already confirmed.",
        request=ls.ConfirmSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: s.GameDetailSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], pagination_class=None, filterset_class=None)
    def confirm(self, request, pk=None):
        game, club = _leaguegame_or_404(pk, request.user)
        user = request.user

        def perform():
            # The state first (the service names why not now: closed, not over yet, already confirmed),
            # then who; inside the key's run, so a retried confirmation gets the first one's answer.
            league.game_confirm_check(game=game)
            if not permissions.can_confirm(user, game, club) and not permissions.may_confirm(user, game, club):
                raise PermissionDenied(permissions.confirm_refusal(user, game))
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
        game, club = _leaguegame_or_404(pk, request.user)
        def perform():
            # The state first (the service names why not now), then who; inside the key's run (a retry replays).
            league.game_dispute_check(game=game)
            if not permissions.may_dispute(request.user, game, club):
                raise PermissionDenied(_("Only the other player disputes a provisional result."))
            serializer = ls.DisputeSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            league.game_dispute(game=game, disputed_by=request.user, comment=serializer.validated_data["comment"])
            return Response(game_detail_data(game, request))

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="A game's audit trail (who changed what, when)",
        description="Every game's, league game or not: corrections, removals, versions not kept after two phones "
        "recorded one hand, and a league game's confirmations and disputes.",
        responses={200: ls.FactChangeSerializer(many=True), **LIST_ERRORS},
    )
    @action(detail=True, methods=["get"], filterset_class=None, serializer_class=ls.FactChangeSerializer)
    def audit(self, request, pk=None):
        game = game_or_404(pk, request.user)
        page = self.paginate_queryset(audit.game_audit_trail(game))
        return self.get_paginated_response(ls.FactChangeSerializer(page, many=True).data)


# ---------------------------------------------------------------------------
# Hands (nested under a game)


class _HandViewBase(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly, CanEditGame]

    def get_game(self, game_pk) -> Game:
        game = game_or_404(game_pk, self.request.user)
        self.check_object_permissions(self.request, game)
        return game

    def detail(self, game: Game) -> dict:
        return game_detail_data(game, self.request)


class HandListView(_HandViewBase):
    pagination_class = Pages
    renderer_classes = RENDERERS

    @extend_schema(
        operation_id="games_hands_list",
        summary="A game's hands, in order, a page at a time",
        description="Hand 1 first, 50 a page (`page_size` up to 200). `GET /api/games/{id}/` carries every "
        "hand at once (at most 1000, the cap of a game: docs/game-record.md); this list pages them.",
        responses={200: s.HandSerializer(many=True), **LIST_ERRORS},
    )
    def get(self, request, game_pk):
        try:
            game, hands = selectors.game_hands(pk=game_pk)
        except Game.DoesNotExist:
            raise Http404(NO_GAME) from None
        visible_or_404(game, request.user)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(hands, request, view=self)
        return paginator.get_paginated_response(s.HandSerializer(page, many=True).data)

    @extend_schema(
        operation_id="games_hands_create",
        summary="Record the next hand (or a partnership game's board)",
        description="Scored by the same rules engine as the pages. Send `number` (the hand number you believe you "
        "are recording) so that two devices recording the same hand cannot both store it: the second gets 409. "
        "The response carries the hand and the recomputed game. A partnership game (four players) records one "
        "board at a time: send `board` (1 or 2) and `number` (the deal); a refusal names the deal (`hand`), the "
        "board and the field, e.g. `{\"hand\": 2, \"board\": 2, \"field\": \"by\"}`.",
        request=s.HandRecordSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: s.HandRecordedSerializer, **WRITE_ERRORS, 409: CONFLICT},
    )
    def post(self, request, game_pk):
        def may_record(game: Game) -> None:
            # Asked of the row the write holds locked: the game is read once, and a game confirmed
            # or closed a moment ago is judged as it now is.
            visible_or_404(game, request.user)
            self.check_object_permissions(request, game)

        def perform():
            data = s.plain_hand_record(request.data)  # the usual body, checked without the serializer's copies
            if data is None:
                serializer = s.HandRecordSerializer(data=request.data)
                if not serializer.is_valid():
                    # Refused in the order every write is: no such game, not yours to change, then the body.
                    self.get_game(game_pk)
                    raise ValidationError(serializer.errors)
                data = dict(serializer.validated_data)
            expected = data.pop("number", None)
            board = data.pop("board", None)
            # With an Idempotency-Key the write runs in the key's transaction, which a refusal
            # rolls back whole: no savepoint needed (two statements fewer).
            keyed = request.headers.get(HEADER) is not None
            try:
                if board is None:
                    hand = services.hand_record(
                        game=game_pk,
                        recorded_by=request.user,
                        expected_number=expected,
                        savepoint=not keyed,
                        check=may_record,
                        **data,
                    )
                else:  # a partnership game's board (a game of two refuses it, naming `board`)
                    hand = services.board_record(
                        game=game_pk,
                        board=board,
                        deal=expected,
                        recorded_by=request.user,
                        savepoint=not keyed,
                        check=may_record,
                        **data,
                    )
            except Game.DoesNotExist:
                raise Http404(NO_GAME) from None
            # Written as JSON once, for the response and the Idempotency-Key's store alike (RENDERERS).
            body = Rendered({"hand": s.HandSerializer(hand).data, "game": game_data(hand.game, request)})
            return Response(body, status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)


class HandDetailView(_HandViewBase):
    def get_hand(self, game: Game, pk) -> Hand:
        try:
            return Hand.objects.select_related("game").get(pk=pk, game=game)
        except (Hand.DoesNotExist, ValueError, TypeError, OverflowError):
            raise Http404(_("No hand with this id in this game.")) from None

    @extend_schema(
        operation_id="games_hands_retrieve", summary="One hand", responses={200: s.HandSerializer, **READ_ERRORS}
    )
    def get(self, request, game_pk, pk):
        return Response(s.HandSerializer(self.get_hand(game_or_404(game_pk, request.user), pk)).data)

    def _edit(self, request, game_pk, pk, *, partial: bool):
        game = self.get_game(game_pk)
        hand = self.get_hand(game, pk)

        def perform():
            serializer = s.HandEditSerializer(data=request.data, partial=partial)
            serializer.is_valid(raise_exception=True)
            facts = s.hand_facts_data(hand) if partial else {
                "by": None, "knocker_deadwood": None, "defender_deadwood": None, "upcard": None, "cards": None
            }
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
        description="Later hands move up one and everything is recomputed. The response carries the game. "
        "An optional `reason` (kept in the audit trail; required when the game is a confirmed league result, "
        "else 400 naming `reason`) goes in the query string or in a JSON body.",
        request=s.HandRemoveSerializer,
        parameters=[
            IDEMPOTENCY_KEY,
            OpenApiParameter("reason", str, OpenApiParameter.QUERY, required=False,
                             description="Why the hand is removed (as the JSON body's `reason`)."),
        ],
        responses={200: s.HandRemovedSerializer, **WRITE_ERRORS},
    )
    def delete(self, request, game_pk, pk):
        game = self.get_game(game_pk)
        hand = self.get_hand(game, pk)

        def perform():
            # Some HTTP clients send no body with DELETE: the query string carries the reason just as well.
            data = request.data if "reason" in request.data else request.query_params
            serializer = s.HandRemoveSerializer(data=data)
            serializer.is_valid(raise_exception=True)
            reason = serializer.validated_data.get("reason", "")
            changes = services.hand_remove(hand=hand, removed_by=request.user, reason=reason)
            body = {"game": self.detail(game), "changes": s.ChangeSerializer(changes, many=True).data}
            return Response(body)

        return idempotent(request, perform, self.handle_exception)


class HandSetAsideView(_HandViewBase):
    @extend_schema(
        operation_id="games_hands_set_aside",
        summary="Keep the stored hand, noting another phone's version of it",
        description="Two phones recorded the same hand (the second got 409) and the players kept the stored one: "
        "the other version (its facts, as for recording a hand) changes no figure but goes to the game's audit "
        "trail. The response carries the game.",
        request=s.HandWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: s.HandRemovedSerializer, **WRITE_ERRORS},
    )
    def post(self, request, game_pk, pk):
        game = self.get_game(game_pk)
        hand = HandDetailView.get_hand(self, game, pk)

        def perform():
            serializer = s.HandWriteSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            facts = dict(serializer.validated_data)
            facts.pop("cards", None)
            services.hand_version_set_aside(hand=hand, actor=request.user, **facts)
            return Response({"game": self.detail(game), "changes": []}, status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)


# ---------------------------------------------------------------------------
# Tokens


class TokenView(APIView):
    # A signed-in session opens this door: not a password, and not a token; the token scope
    # still caps how often keys are minted (shared with the account page).
    permission_classes = [SignedInSession]
    throttle_classes = [UserThrottle, TokenThrottle]

    @extend_schema(
        summary="Create an API token for the signed-in user",
        description="Replaces any token the user had (the old one stops working). Send it as "
        "`Authorization: Token <token>`. Needs a signed-in session with its CSRF token: a request "
        "authenticated by a token is refused with 403.",
        request=None,
        responses={201: s.TokenSerializer, 403: FORBIDDEN},
    )
    def post(self, request):
        token = token_create(user=request.user)
        return Response({"token": token.key, "created": token.created}, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Revoke the signed-in user's API token",
        description="Needs a signed-in session with its CSRF token, like creating one.",
        responses={204: None, 403: FORBIDDEN},
    )
    def delete(self, request):
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---------------------------------------------------------------------------
# Unknown paths under /api/


@csrf_exempt  # it changes nothing, and must answer a stray POST in JSON, not with the CSRF page
def not_found(request, *args, **kwargs):
    """Any other path under /api/: a JSON 404 in the problem shape, not the site's HTML page."""
    from django.http import JsonResponse

    if request.path.endswith("/"):
        message = _("No such API endpoint.")
    else:
        message = _("No such API endpoint (API paths end with a slash).")
    return JsonResponse(problem(None, message), status=404)


# ---------------------------------------------------------------------------
# Docs


class SwaggerDocsView(SpectacularSwaggerSplitView):
    """Swagger UI under the site's CSP: no inline script or style.

    The split view loads its init script from ``?script`` (same origin); our
    template replaces the package's inline <style> with a static stylesheet.
    """

    template_name = "api/swagger_ui.html"
