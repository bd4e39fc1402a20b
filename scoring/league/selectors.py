"""League reads that join: a Swiss night's field (who is here), each owning its select_related."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Q

from players.models import Membership, Player
from scoring.models import Fixture, Season, SwissEntry, SwissRound


@dataclass(frozen=True)
class FieldLine:
    """One member of the club as the night's check-in list shows them."""

    player: Player
    present: bool
    dropped_after_round: int | None
    fixed_table: int | None


def night_field(season: Season) -> list[FieldLine]:
    """Every member of the club (members and guests), by name, with their check-in state tonight."""
    entries = {entry.player_id: entry for entry in SwissEntry.objects.filter(season=season)}
    members = Membership.objects.filter(club_id=season.club_id).select_related("player").order_by("player__name")
    lines = []
    for membership in members:
        entry = entries.get(membership.player_id)
        lines.append(
            FieldLine(
                player=membership.player,
                present=bool(entry and entry.present),
                dropped_after_round=entry.dropped_after_round if entry else None,
                fixed_table=entry.fixed_table if entry else None,
            )
        )
    return lines


def previous_night(season: Season) -> Season | None:
    """The club's Swiss night before this one (the latest opened before it), or None."""
    return (
        Season.objects.filter(club_id=season.club_id, format=season.format, created_at__lte=season.created_at)
        .exclude(pk=season.pk)
        .filter(Q(created_at__lt=season.created_at) | Q(pk__lt=season.pk))
        .order_by("-created_at", "-pk")
        .first()
    )


def played_at(season: Season) -> list[Player]:
    """Who played at a Swiss night (a table in a published round, or its bye) and is still a member of its
    club, by name."""
    seated = Fixture.objects.filter(season=season)
    ids = (
        set(seated.values_list("home_id", flat=True))
        | set(seated.values_list("away_id", flat=True))
        | set(
            SwissRound.objects.filter(season=season, published=True, bye__isnull=False).values_list("bye_id", flat=True)
        )
    )
    return list(Player.objects.filter(pk__in=ids, memberships__club_id=season.club_id).order_by("name"))


def last_night_arrivals(season: Season) -> tuple[Season | None, list[Player]]:
    """The club's previous Swiss night and who played at it but is not checked in tonight: whom "check in
    everyone who played last night" checks in (the night page offers it while the list is not empty)."""
    last = previous_night(season)
    if last is None:
        return None, []
    here = set(SwissEntry.objects.filter(season=season, present=True).values_list("player_id", flat=True))
    return last, [player for player in played_at(last) if player.pk not in here]


@dataclass(frozen=True)
class TableLine:
    """One table of a round: its two players (names) and, once published, its fixture and game."""

    table: int
    one: Player
    two: Player
    rematch: bool = False
    fixture: Fixture | None = None


@dataclass(frozen=True)
class NightRound:
    """A round as the night page and the wall show it: tables in order, the bye."""

    round: SwissRound
    tables: list[TableLine]
    bye: Player | None
    ends_at: datetime.datetime | None = None  # a timed round's deadline (the server's clock)


def night_draft(season: Season) -> NightRound | None:
    """The round paired and waiting to be published (None if there is none), with the players' names."""
    draft = SwissRound.objects.filter(season=season, published=False).first()
    if draft is None:
        return None
    data = draft.pairing
    ids = {player for _, one, two in data["pairings"] for player in (one, two)} | {data["bye"]}
    players = Player.objects.in_bulk([pk for pk in ids if pk is not None])
    rematches = {frozenset(pair) for pair in data["rematches"]}
    tables = [
        TableLine(table=table, one=players[one], two=players[two], rematch=frozenset((one, two)) in rematches)
        for table, one, two in sorted(data["pairings"])
    ]
    return NightRound(round=draft, tables=tables, bye=players.get(data["bye"]))


def round_ends_at(season: Season, round_: SwissRound) -> datetime.datetime | None:
    """When a timed round's time is up: published + the night's round length (None: not timed, or a draft)."""
    if season.round_minutes is None or round_.started_at is None:
        return None
    return round_.started_at + datetime.timedelta(minutes=season.round_minutes)


def night_rounds(season: Season) -> list[NightRound]:
    """The published rounds, newest first, each with its tables (fixture, game, result) and bye."""
    rounds = list(SwissRound.objects.filter(season=season, published=True).select_related("bye").order_by("-number"))
    fixtures: dict[int, list[Fixture]] = {}
    for fixture in (
        Fixture.objects.filter(season=season)
        .select_related("home", "away", "game", "game__winner")
        .order_by("round", "table", "pk")
    ):
        fixtures.setdefault(fixture.round, []).append(fixture)
    return [
        NightRound(
            round=round_,
            tables=[
                TableLine(table=fixture.table or 0, one=fixture.home, two=fixture.away, fixture=fixture)
                for fixture in fixtures.get(round_.number, [])
            ],
            bye=round_.bye,
            ends_at=None if season.closed_at is not None else round_ends_at(season, round_),  # no clock once closed
        )
        for round_ in rounds
    ]
