"""Swiss night writes: check-in and drop-outs, pairing, swapping and publishing rounds.

A Swiss night (``SeasonFormat.SWISS``) is a season whose field is whoever is present and whose
rounds are paired on the night (scoring/engine/swiss.py). Like the other league services, every
write is a small function with keyword-only arguments that runs in one transaction; each round's
games are ordinary fixtures, started, scored and confirmed as any other.
"""

from __future__ import annotations

import random

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ginleague import numbers
from players.models import Membership, Player
from scoring import permissions, services
from scoring.changes import notify_season_change
from scoring.engine import swiss
from scoring.league.selectors import last_night_arrivals
from scoring.league.services import club_ratings
from scoring.league.standings import season_standings
from scoring.models import Fixture, Game, LeagueStatus, Season, SwissEntry, SwissRound


def _swiss_night(season: Season) -> Season:
    """The season locked and read afresh; refused unless it is an open Swiss night."""
    permissions.refuse_closed_season(season_id=season.pk, lock=True)
    locked = Season.objects.get(pk=season.pk)
    if not locked.is_swiss:
        raise ValidationError({"season": _("%(season)s is not a Swiss night.") % {"season": locked.name}})
    return locked


def rounds_published(season: Season) -> int:
    """How many rounds of the night have been published (their fixtures exist)."""
    return Fixture.objects.filter(season=season).aggregate(last=Max("round"))["last"] or 0


def check_in(*, season: Season, player: Player, checked_in_by, fixed_table: int | str | None = None) -> SwissEntry:
    """Mark ``player`` here: paired from the next round on (a late arrival, or one who dropped out and
    came back), or, called again for a player checked in, change their fixed table. ``fixed_table``: the
    table they always sit at (None leaves it as it was; organisers only)."""
    with transaction.atomic():
        locked = _swiss_night(season)
        if checked_in_by is not None and not permissions.can_check_in(checked_in_by, locked, player):
            raise PermissionDenied(permissions.CHECK_IN_REFUSAL)
        if (
            fixed_table is not None
            and checked_in_by is not None
            and not permissions.can_manage_season(checked_in_by, locked)
        ):
            # A table kept for one player moves everyone else's: the organisers' decision, not a phone's.
            raise PermissionDenied(_("Only the night's organisers give a player a fixed table."))
        if not Membership.objects.filter(club_id=locked.club_id, player=player).exists():
            raise ValidationError(
                {
                    "player": _("%(player)s is not a member of %(club)s.")
                    % {"player": player.name, "club": locked.club.name}
                }
            )
        if fixed_table is not None:  # typed on the page or sent: a table number its column holds, or refused
            fixed_table = numbers.whole_number(
                fixed_table, field="fixed_table", label=_("Fixed table"), low=1, high=numbers.SMALLINT
            )
        entry = SwissEntry.objects.filter(season=locked, player=player).first()
        # Nothing to change: a second press, or another phone's.
        if entry is not None and entry.present and fixed_table is None:
            raise ValidationError({"player": _("%(name)s is already checked in.") % {"name": player.name}})
        entry = _mark_here(locked, player, fixed_table=fixed_table)
    return entry


def _mark_here(locked: Season, player: Player, *, fixed_table: int | None = None) -> SwissEntry:
    """``player`` is here tonight (back again if they had dropped out), an entrant of the night."""
    entry, _created = SwissEntry.objects.get_or_create(season=locked, player=player)
    entry.present, entry.dropped_after_round = True, None
    if fixed_table is not None:
        entry.fixed_table = fixed_table
    entry.save()
    locked.players.add(player)
    return entry


def check_in_last_night(*, season: Season, checked_in_by) -> list[Player]:
    """Check in, in one go, everyone who played at the club's previous Swiss night (a table or a bye) and is
    not checked in tonight: the regulars, at the start of a night. Organisers only. Returns the players
    checked in (none when all of them already are); refused when the club has no earlier night."""
    with transaction.atomic():
        locked = _swiss_night(season)
        if checked_in_by is not None and not permissions.can_manage_season(checked_in_by, locked):
            raise PermissionDenied(_("Only the night's organisers check in everyone from the last night."))
        last, arriving = last_night_arrivals(locked)
        if last is None:
            raise ValidationError({"season": _("%(club)s has no earlier Swiss night.") % {"club": locked.club.name}})
        for player in arriving:
            _mark_here(locked, player)
    return arriving


def check_out(*, season: Season, player: Player, checked_out_by) -> SwissEntry:
    """``player`` is not here (any more): not paired again. One who has played drops out after the
    last round published, keeping their games; one who has not is simply no longer checked in."""
    with transaction.atomic():
        locked = _swiss_night(season)
        if checked_out_by is not None and not permissions.can_check_in(checked_out_by, locked, player):
            raise PermissionDenied(permissions.CHECK_IN_REFUSAL)
        entry = SwissEntry.objects.filter(season=locked, player=player).first()
        if entry is None or not entry.present:
            raise ValidationError({"player": _("%(player)s is not checked in.") % {"player": player.name}})
        played = (
            Fixture.objects.filter(season=locked).filter(Q(home=player) | Q(away=player)).exists()
            or SwissRound.objects.filter(season=locked, published=True, bye=player).exists()
        )
        entry.present = False
        entry.dropped_after_round = rounds_published(locked) if played else None
        entry.save(update_fields=["present", "dropped_after_round"])
        if not played:
            locked.players.remove(player)
    return entry


# --- pairing a round -------------------------------------------------------------------------------------


def round_to_json(round_: swiss.Round) -> dict:
    """The engine's round as stored in ``SwissRound.pairing`` (player ids throughout)."""
    return {
        "pairings": [[pairing.table, pairing.one, pairing.two] for pairing in round_.pairings],
        "bye": round_.bye,
        "rematches": [sorted(pair) for pair in round_.rematches],
        "unmet_table_wishes": list(round_.unmet_table_wishes),
        "order": list(round_.order),
    }


def round_from_json(data: dict) -> swiss.Round:
    return swiss.Round(
        pairings=tuple(swiss.Pairing(table, one, two) for table, one, two in data["pairings"]),
        bye=data["bye"],
        rematches=tuple(frozenset(pair) for pair in data["rematches"]),
        unmet_table_wishes=tuple(data["unmet_table_wishes"]),
        order=tuple(data["order"]),
    )


def played_pairs(season: Season) -> list[tuple[int, int]]:
    """The pairs who have met tonight (every published pairing, played out or not)."""
    return list(Fixture.objects.filter(season=season).order_by().values_list("home_id", "away_id"))


def _round_unfinished(season: Season, number: int) -> int:
    """How many games of round ``number`` are not yet played and confirmed."""
    return (
        Fixture.objects.filter(season=season, round=number)
        .exclude(game__league_status=LeagueStatus.CONFIRMED, game__over=True)
        .count()
    )


def _entrants(season: Season) -> list[swiss.Entrant]:
    """The players present, as the pairing sees them: standings (confirmed results and byes), rating."""
    present = list(SwissEntry.objects.filter(season=season, present=True).order_by("player_id"))
    rows = {row.player_id: row for row in season_standings(season).rows}
    ratings = club_ratings(season.club)
    had_bye = set(
        SwissRound.objects.filter(season=season, published=True, bye__isnull=False).values_list("bye_id", flat=True)
    )
    entrants = []
    for entry in present:
        row = rows.get(entry.player_id)
        entrants.append(
            swiss.Entrant(
                id=entry.player_id,
                match_points=row.match_points if row else 0,
                net_points=row.net if row else 0,
                rating=ratings.get(entry.player_id, 0.0),
                had_bye=entry.player_id in had_bye,
                fixed_table=entry.fixed_table,
            )
        )
    return entrants


def next_round_waits_for(season: Season) -> str:
    """Why the night's next round cannot be paired yet, in words ("" when it can): its rounds are all
    published, or the last one published has a game not yet played and confirmed. Asked by the
    pairing and by the night page (which shows this instead of the button)."""
    number = rounds_published(season) + 1
    if season.swiss_rounds is not None and number > season.swiss_rounds:
        return ngettext(
            "The night's %(count)s round is published.",
            "All %(count)s rounds of the night are published.",
            season.swiss_rounds,
        ) % {"count": season.swiss_rounds}
    if number > 1 and (open_games := _round_unfinished(season, number - 1)):
        return ngettext(
            "Round %(round)s has %(count)s game still to be played and confirmed.",
            "Round %(round)s has %(count)s games still to be played and confirmed.",
            open_games,
        ) % {"round": number - 1, "count": open_games}
    return ""


def round_pair(*, season: Season, paired_by, first_round: str = "rating", seed: int | None = None) -> SwissRound:
    """Pair the next round over the players present (scoring/engine/swiss.py) and keep it as a draft
    for the organiser to look at, swap and publish; pairing again replaces the draft. Round 1 is
    ordered by rating or drawn at random (``first_round``). Refused while the last round published
    has a game not yet played and confirmed, or when the night's rounds are all published."""
    if first_round not in swiss.FIRST_ROUND_ORDERS:
        raise ValidationError({"first_round": _("Pair round 1 by rating or at random.")})
    with transaction.atomic():
        locked = _swiss_night(season)
        number = rounds_published(locked) + 1
        if waiting := next_round_waits_for(locked):
            raise ValidationError({"round": waiting})
        entrants = _entrants(locked)
        if len(entrants) < 2:
            raise ValidationError({"players": _("Check in at least two players before pairing a round.")})
        if seed is None:
            seed = random.randrange(2**31)
        try:
            round_ = swiss.pair_round(entrants, played_pairs(locked), first_round=first_round, seed=seed)
        except swiss.PairingError as error:
            raise ValidationError({error.field: error.said(_names({}))}) from None
        draft, _created = SwissRound.objects.update_or_create(
            season=locked,
            number=number,
            defaults={"pairing": round_to_json(round_), "first_round": first_round if number == 1 else ""},
        )
    return draft


def _draft(season: Season) -> SwissRound:
    draft = SwissRound.objects.filter(season=season, published=False).first()
    if draft is None:
        raise ValidationError({"round": _("No round is waiting to be published: pair one first.")})
    return draft


def swap_creates_rematch(*, season: Season, one: Player, two: Player) -> bool:
    """Whether swapping these two players in the draft would seat someone opposite a player met already."""
    draft = _draft(season)
    try:
        return swiss.swap_creates_rematch(round_from_json(draft.pairing), one.pk, two.pk, played_pairs(season))
    except swiss.PairingError as error:
        raise ValidationError({error.field: error.said(_names({one.pk: one.name, two.pk: two.name}))}) from None


def round_swap(*, season: Season, one: Player, two: Player, swapped_by) -> SwissRound:
    """Exchange two players' places in the draft (either may be the bye); tables stay put. The draft's
    ``rematches`` then lists any pair who would meet again."""
    with transaction.atomic():
        locked = _swiss_night(season)
        draft = _draft(locked)
        try:
            swapped = swiss.swap_players(round_from_json(draft.pairing), one.pk, two.pk, played_pairs(locked))
        except swiss.PairingError as error:
            raise ValidationError({error.field: error.said(_names({one.pk: one.name, two.pk: two.name}))}) from None
        draft.pairing = round_to_json(swapped)
        draft.save(update_fields=["pairing"])
    return draft


def _names(known: dict[int, str]):
    """How a refusal of the engine names a player: by name (those given, else read), never by id."""

    def name_of(player_id) -> str:
        if player_id not in known:
            known[player_id] = Player.objects.filter(pk=player_id).values_list("name", flat=True).first() or ""
        return known[player_id] or str(player_id)

    return name_of


def round_publish(*, season: Season, published_by) -> SwissRound:
    """Publish the draft: its fixtures (round, table, the higher-ranked player at home) are created and
    the bye stored (one match point, no net points); the round starts now (a timed round's clock)."""
    with transaction.atomic():
        locked = _swiss_night(season)
        draft = _draft(locked)
        seated = {player for _, one, two in draft.pairing["pairings"] for player in (one, two)}
        if draft.pairing["bye"] is not None:
            seated.add(draft.pairing["bye"])
        present = set(SwissEntry.objects.filter(season=locked, present=True).values_list("player_id", flat=True))
        if seated != present:
            raise ValidationError({"round": _("Who is here changed since this round was paired: pair it again.")})
        Fixture.objects.bulk_create(
            Fixture(season=locked, round=draft.number, home_id=one, away_id=two, table=table)
            for table, one, two in draft.pairing["pairings"]
        )
        draft.published, draft.started_at, draft.bye_id = True, timezone.now(), draft.pairing["bye"]
        draft.save(update_fields=["published", "started_at", "bye"])
        notify_season_change(season_id=locked.pk)
    return draft


# --- playing a round ---------------------------------------------------------------------------------------


def round_call_time(*, season: Season, called_by) -> list[Game]:
    """Time for the room: time is called (``services.game_call_time``) on every game of the current
    round still in play; a game already over, or one whose rules are not ended by time, is left as it
    is. Refused on a night played to the target. Returns the games time was called on."""
    with transaction.atomic():
        locked = _swiss_night(season)
        if locked.round_minutes is None:
            raise ValidationError({"round": _("This night's games are played to the target: time is not called.")})
        current = SwissRound.objects.filter(season=locked, published=True).order_by("-number").first()
        if current is None:
            raise ValidationError({"round": _("No round has been published yet.")})
        if current.time_called_at is not None:
            called_at = date_format(timezone.localtime(current.time_called_at), "TIME_FORMAT")
            raise ValidationError(
                {
                    "round": _("Time was already called on round %(round)s, at %(time)s.")
                    % {"round": current.number, "time": called_at}
                }
            )
        open_games = Game.objects.filter(season=locked, fixture__round=current.number, over=False).order_by("pk")
        called = []
        for game in open_games:
            if services.time_call_refusal(game):
                continue
            called.append(services.game_call_time(game=game, called_by=called_by))
        current.time_called_at = timezone.now()
        current.save(update_fields=["time_called_at"])
    return called
