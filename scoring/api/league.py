"""League endpoints: clubs, members, seasons, fixtures, standings.

The same rules as the club pages (scoring/league_views.py) through the same
services (players.clubs, scoring.league.services) and selectors (scoring.league.standings):
a private club and everything in it is a 404 to anyone who is not a member;
a member without the right role gets a 403; anonymous callers read public
clubs only. Refusals are problems, ``{"field", "message", "hand"}``.
"""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from players import clubs
from players.models import Club, Membership
from scoring import permissions
from scoring.api import league_serializers as ls
from scoring.api import stats as stats_views
from scoring.api.common import (
    IDEMPOTENCY_KEY,
    LIST_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    Pages,
    game_detail_data,
)
from scoring.api.filters import ClubFilter, FixtureFilter, MemberFilter, SeasonFilter
from scoring.api.idempotency import idempotent
from scoring.api.permissions import visible_club_q
from scoring.api.serializers import GameDetailSerializer
from scoring.league import night
from scoring.league import services as league
from scoring.league.standings import RANKING_CRITERIA, season_standings
from scoring.models import Fixture, Season

MANAGERS_ONLY = gettext_lazy("Only the club's owner and admins may do this.")


def _managed(user, club: Club) -> None:
    if not clubs.can_manage_club(user, club):
        raise PermissionDenied(MANAGERS_ONLY)


# ---------------------------------------------------------------------------
# Clubs


@extend_schema_view(
    list=extend_schema(
        summary="List clubs",
        description="Public clubs, and the private clubs the caller is a member of.",
        responses={200: ls.ClubSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(summary="One club", responses={200: ls.ClubSerializer, **READ_ERRORS}),
)
class ClubViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ls.ClubSerializer
    filterset_class = ClubFilter
    pagination_class = Pages
    permission_classes = [IsAuthenticatedOrReadOnly]
    lookup_value_regex = "[0-9]+"
    queryset = Club.objects.none()  # for the schema

    def get_queryset(self):
        return clubs.clubs_visible_to(self.request.user)

    def get_object(self) -> Club:
        try:
            return clubs.clubs_visible_to(self.request.user).get(pk=self.kwargs["pk"])
        except (Club.DoesNotExist, ValueError, OverflowError):
            raise Http404(_("No such club.")) from None

    def _data(self, club: Club, code=status.HTTP_200_OK) -> Response:
        fresh = clubs.clubs_visible_to(self.request.user).get(pk=club.pk)
        return Response(ls.ClubSerializer(fresh, context=self.get_serializer_context()).data, status=code)

    @extend_schema(
        summary="Open a club (the caller becomes its owner)",
        request=ls.ClubWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: ls.ClubSerializer, **WRITE_ERRORS},
    )
    def create(self, request, *args, **kwargs):
        def perform():
            serializer = ls.ClubWriteSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            club = clubs.club_create(name=data["name"], is_public=data["is_public"], owner=request.user)
            return self._data(club, status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Rename a club or make it public/private (its owner and admins)",
        request=ls.ClubWriteSerializer(partial=True),
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.ClubSerializer, **WRITE_ERRORS},
    )
    def partial_update(self, request, *args, **kwargs):
        club = self.get_object()
        _managed(request.user, club)

        def perform():
            serializer = ls.ClubWriteSerializer(data=request.data, partial=True)
            serializer.is_valid(raise_exception=True)
            clubs.club_update(club=club, changed_by=request.user, **serializer.validated_data)
            return self._data(club)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="A club's members",
        responses={200: ls.MembershipSerializer(many=True), **LIST_ERRORS},
    )
    @action(
        detail=True,
        methods=["get"],
        filterset_class=MemberFilter,
        serializer_class=ls.MembershipSerializer,
        queryset=Membership.objects.none(),  # the model of this list, for its filters (and the schema)
    )
    def members(self, request, pk=None):
        club = self.get_object()
        members = self.filter_queryset(clubs.club_members(club))
        page = self.paginate_queryset(members)
        return self.get_paginated_response(ls.MembershipSerializer(page, many=True).data)

    @extend_schema(
        summary="A club's seasons",
        responses={200: ls.SeasonSerializer(many=True), **LIST_ERRORS},
    )
    @action(
        detail=True,
        methods=["get"],
        filterset_class=SeasonFilter,
        serializer_class=ls.SeasonSerializer,
        queryset=Season.objects.none(),
    )
    def seasons(self, request, pk=None):
        club = self.get_object()
        seasons = self.filter_queryset(season_list().filter(club=club))
        page = self.paginate_queryset(seasons)
        return self.get_paginated_response(ls.SeasonSerializer(page, many=True).data)

    @extend_schema(
        summary="Start a season (the club's owner and admins)",
        description="A round robin gets its fixtures at once. Refused (nothing stored) with the field at fault, "
        "e.g. a player who is not a member or an unknown rule.",
        request=ls.SeasonCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: ls.SeasonSerializer, **WRITE_ERRORS},
    )
    @seasons.mapping.post
    def season_create(self, request, pk=None):
        club = self.get_object()
        _managed(request.user, club)

        def perform():
            serializer = ls.SeasonCreateSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            season = league.season_create(
                club=club,
                name=data["name"],
                players=data["players"],
                rules=data["rules"],
                format=data["format"],
                ranking=data.get("ranking"),
                starts_on=data["starts_on"],
                ends_on=data["ends_on"],
                created_by=request.user,
                swiss_rounds=data["swiss_rounds"],
                round_minutes=data["round_minutes"],
                points_per_win=data["points_per_win"],
            )
            return Response(ls.SeasonSerializer(season_list().get(pk=season.pk)).data, status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)


    @extend_schema(
        summary="The club's Elo ratings",
        description="Every member, highest rating first, from the club's confirmed results.",
        responses={200: ls.ClubRatingSerializer(many=True), **LIST_ERRORS},
    )
    @action(detail=True, methods=["get"], filterset_class=None, serializer_class=ls.ClubRatingSerializer)
    def ratings(self, request, pk=None):
        page = self.paginate_queryset(stats_views.club_ratings_data(self.get_object()))
        return self.get_paginated_response(ls.ClubRatingSerializer(page, many=True).data)

    @extend_schema(
        summary="The club's hand history",
        description="Every hand of the club's seasons, newest game first, filtered like the history page "
        "(`opponent` = one member's hands). Paged without a total: `next` is null on the last page.",
        parameters=stats_views.HISTORY_PARAMETERS,
        responses={200: ls.HistoryPageSerializer, **LIST_ERRORS},
    )
    @action(detail=True, methods=["get"], filterset_class=None, pagination_class=None)
    def hands(self, request, pk=None):
        return stats_views.history_response(request, club=self.get_object())


# ---------------------------------------------------------------------------
# Seasons


def season_list():
    return Season.objects.select_related("club").prefetch_related("players").order_by("-created_at", "-pk")


@extend_schema_view(
    list=extend_schema(
        summary="List seasons",
        description="Seasons of the clubs the caller may see, newest first.",
        responses={200: ls.SeasonSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(summary="One season", responses={200: ls.SeasonSerializer, **READ_ERRORS}),
)
class SeasonViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ls.SeasonSerializer
    filterset_class = SeasonFilter
    pagination_class = Pages
    permission_classes = [IsAuthenticatedOrReadOnly]
    lookup_value_regex = "[0-9]+"
    queryset = Season.objects.none()  # for the schema

    def get_queryset(self):
        return season_list().filter(visible_club_q(self.request.user, "club"))

    def get_object(self) -> Season:
        try:
            return self.get_queryset().get(pk=self.kwargs["pk"])
        except (Season.DoesNotExist, ValueError, OverflowError):
            raise Http404(_("No such season.")) from None

    @extend_schema(
        summary="Change a season's rules or ranking (the club's owner and admins)",
        description="The rules are fixed once any game of the season exists; the ranking may change at any time "
        "(the standings follow it). All or nothing.",
        request=ls.SeasonUpdateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.SeasonSerializer, **WRITE_ERRORS},
    )
    def partial_update(self, request, *args, **kwargs):
        season = self.get_object()
        _managed(request.user, season.club)

        def perform():
            serializer = ls.SeasonUpdateSerializer(data=request.data, partial=True)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            with transaction.atomic():
                if "rules" in data:
                    league.season_set_rules(season=season, rules=data["rules"])
                if "ranking" in data:
                    league.season_set_ranking(season=season, ranking=data["ranking"])
            return Response(ls.SeasonSerializer(self.get_object()).data)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="A season's standings",
        description="Confirmed results ranked by the season's criteria; finished games awaiting confirmation "
        "are listed apart under `provisional` and not counted.",
        responses={200: ls.StandingsSerializer, **READ_ERRORS},
    )
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def standings(self, request, pk=None):
        season = self.get_object()
        standings = season_standings(season)
        body = {
            "season": season.pk,
            "ranking": [{"key": key, "label": RANKING_CRITERIA[key]} for key in standings.ranking],
            "rows": standings.rows,
            "provisional": standings.provisional,
        }
        return Response(ls.StandingsSerializer(body).data)

    @extend_schema(
        summary="Start an open-play game (the club's members)",
        description="Open-play seasons only: any two of the season's players. Round robins start a fixture's game.",
        request=ls.OpenGameSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: GameDetailSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], pagination_class=None, filterset_class=None)
    def games(self, request, pk=None):
        season = self.get_object()
        def perform():
            league.season_open_check(season=season)  # the state first (400), then the person (403)
            if not permissions.can_start_open_game(request.user, season):
                raise PermissionDenied(_("Only the club's members record games."))
            serializer = ls.OpenGameSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            game = league.open_game_start(
                season=season,
                player_one=data["player_one"],
                player_two=data["player_two"],
                first_dealer=data.get("first_dealer"),
                started_by=request.user,
            )
            return Response(game_detail_data(game, request), status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Check a player in or out of a Swiss night",
        description="The night's organisers for any member of the club, a player for themselves. A player "
        "checked in is paired from the next round; one checked out after playing drops out (their games "
        "stay, they are not paired again).",
        request=ls.CheckInSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.SwissEntrySerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="check-in", pagination_class=None, filterset_class=None)
    def check_in(self, request, pk=None):
        season = self.get_object()

        def perform():
            serializer = ls.CheckInSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            if data["here"]:
                entry = night.check_in(
                    season=season, player=data["player"], checked_in_by=request.user, fixed_table=data["fixed_table"]
                )
            else:
                entry = night.check_out(season=season, player=data["player"], checked_out_by=request.user)
            return Response(ls.SwissEntrySerializer(entry).data)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Pair the next round of a Swiss night (the club's owner and admins)",
        description="Swiss pairing over the players checked in (no rematch while one can be avoided, one bye "
        "for an odd field). The round is a draft until published; pairing again replaces it. Refused while "
        "a game of the last round is not played and confirmed.",
        request=ls.PairSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.SwissRoundSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="rounds/pair", pagination_class=None, filterset_class=None)
    def round_pair(self, request, pk=None):
        season = self.get_object()
        _managed(request.user, season.club)

        def perform():
            serializer = ls.PairSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            draft = night.round_pair(
                season=season, paired_by=request.user, first_round=serializer.validated_data["first_round"]
            )
            return Response(ls.SwissRoundSerializer(draft).data)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Swap two players of the draft round (the club's owner and admins)",
        description="Their places are exchanged (either may be the bye); tables stay put. "
        "`swap_created_rematch` says whether that seats a pair who have met tonight.",
        request=ls.SwapSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.SwissRoundSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="rounds/swap", pagination_class=None, filterset_class=None)
    def round_swap(self, request, pk=None):
        season = self.get_object()
        _managed(request.user, season.club)

        def perform():
            serializer = ls.SwapSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            one, two = serializer.validated_data["one"], serializer.validated_data["two"]
            rematch = night.swap_creates_rematch(season=season, one=one, two=two)
            draft = night.round_swap(season=season, one=one, two=two, swapped_by=request.user)
            draft.swap_created_rematch = rematch
            return Response(ls.SwissRoundSerializer(draft).data)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Publish the draft round (the club's owner and admins)",
        description="Creates the round's fixtures (with their tables) and stores the bye; the round starts now.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.SwissRoundSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="rounds/publish", pagination_class=None, filterset_class=None)
    def round_publish(self, request, pk=None):
        season = self.get_object()
        _managed(request.user, season.club)

        def perform():
            return Response(ls.SwissRoundSerializer(night.round_publish(season=season, published_by=request.user)).data)

        return idempotent(request, perform, self.handle_exception)

    @extend_schema(
        summary="Call time for the room (the club's owner and admins)",
        description="A timed Swiss night: time is called on every game of the current round still in play "
        "(the hand in progress is each game's last unless the players are level; docs/rules.md).",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ls.RoomTimeSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="rounds/time", pagination_class=None, filterset_class=None)
    def round_time(self, request, pk=None):
        season = self.get_object()
        _managed(request.user, season.club)

        def perform():
            called = night.round_call_time(season=season, called_by=request.user)
            return Response(ls.RoomTimeSerializer({"games": [game.pk for game in called]}).data)

        return idempotent(request, perform, self.handle_exception)


# ---------------------------------------------------------------------------
# Fixtures


@extend_schema_view(
    list=extend_schema(
        summary="List fixtures",
        description="Fixtures of the round-robin seasons the caller may see, by season and round.",
        responses={200: ls.FixtureSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(summary="One fixture", responses={200: ls.FixtureSerializer, **READ_ERRORS}),
)
class FixtureViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ls.FixtureSerializer
    filterset_class = FixtureFilter
    pagination_class = Pages
    permission_classes = [IsAuthenticatedOrReadOnly]
    lookup_value_regex = "[0-9]+"
    queryset = Fixture.objects.none()  # for the schema

    def get_queryset(self):
        return (
            Fixture.objects.filter(visible_club_q(self.request.user, "season__club"))
            .select_related("home", "away", "game")
            .order_by("-season__created_at", "season_id", "round", "pk")
        )

    def get_object(self) -> Fixture:
        try:
            return self.get_queryset().select_related("season__club").get(pk=self.kwargs["pk"])
        except (Fixture.DoesNotExist, ValueError, OverflowError):
            raise Http404(_("No such fixture.")) from None

    @extend_schema(
        summary="A fixture's history: the audit lines of its games an organiser voided",
        description="Each voided game's lines, ending with the line saying who voided it and why (`comment`).",
        responses={200: ls.FactChangeSerializer(many=True), **READ_ERRORS},
    )
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def history(self, request, pk=None):
        fixture = self.get_object()
        return Response(ls.FactChangeSerializer(league.fixture_history(fixture_id=fixture.pk), many=True).data)

    @extend_schema(
        summary="Start the fixture's game (its two players or the club's admins)",
        description="Under the season's rules, once: a second start is refused (400, field `fixture`).",
        request=ls.FixtureStartSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: GameDetailSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], pagination_class=None, filterset_class=None)
    def start(self, request, pk=None):
        fixture = self.get_object()
        def perform():
            # The state first (400: closed, already started), then the person (403); inside the key's
            # run, so a retried start gets the first one's answer.
            league.fixture_start_check(fixture=fixture)
            if not permissions.can_start_fixture(request.user, fixture, fixture.season.club):
                raise PermissionDenied(_("Only the fixture's players and the club's admins start its game."))
            serializer = ls.FixtureStartSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            game = league.fixture_start(
                fixture=fixture, started_by=request.user, first_dealer=serializer.validated_data.get("first_dealer")
            )
            return Response(game_detail_data(game, request), status=status.HTTP_201_CREATED)

        return idempotent(request, perform, self.handle_exception)
