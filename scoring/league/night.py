"""Swiss night writes: check-in and drop-outs, pairing, swapping and publishing rounds.

A Swiss night (``SeasonFormat.SWISS``) is a season whose field is whoever is present and whose
rounds are paired on the night (scoring/engine/swiss.py). Like the other league services, every
write is a small function with keyword-only arguments that runs in one transaction; each round's
games are ordinary fixtures, started, scored and confirmed as any other.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from players.models import Membership, Player
from scoring import permissions
from scoring.models import Fixture, Season, SwissEntry


def _swiss_night(season: Season) -> Season:
    """The season locked and read afresh; refused unless it is an open Swiss night."""
    permissions.refuse_closed_season(season_id=season.pk, lock=True)
    locked = Season.objects.get(pk=season.pk)
    if not locked.is_swiss:
        raise ValidationError({"season": f"{locked.name} is not a Swiss night."})
    return locked


def rounds_published(season: Season) -> int:
    """How many rounds of the night have been published (their fixtures exist)."""
    return Fixture.objects.filter(season=season).aggregate(last=Max("round"))["last"] or 0


def check_in(*, season: Season, player: Player, checked_in_by, fixed_table: int | None = None) -> SwissEntry:
    """Mark ``player`` here: paired from the next round on (a late arrival, or one who dropped out and
    came back). ``fixed_table``: the table they always sit at (None leaves it as it was)."""
    with transaction.atomic():
        locked = _swiss_night(season)
        if checked_in_by is not None and not permissions.can_check_in(checked_in_by, locked, player):
            raise PermissionDenied(permissions.CHECK_IN_REFUSAL)
        if not Membership.objects.filter(club_id=locked.club_id, player=player).exists():
            raise ValidationError({"player": f"{player.name} is not a member of {locked.club.name}."})
        if fixed_table is not None and fixed_table < 1:
            raise ValidationError({"fixed_table": "Tables are numbered from 1."})
        entry, _ = SwissEntry.objects.get_or_create(season=locked, player=player)
        entry.present, entry.dropped_after_round = True, None
        if fixed_table is not None:
            entry.fixed_table = fixed_table
        entry.save()
        locked.players.add(player)
    return entry


def check_out(*, season: Season, player: Player, checked_out_by) -> SwissEntry:
    """``player`` is not here (any more): not paired again. One who has played drops out after the
    last round published, keeping their games; one who has not is simply no longer checked in."""
    with transaction.atomic():
        locked = _swiss_night(season)
        if checked_out_by is not None and not permissions.can_check_in(checked_out_by, locked, player):
            raise PermissionDenied(permissions.CHECK_IN_REFUSAL)
        entry = SwissEntry.objects.filter(season=locked, player=player).first()
        if entry is None or not entry.present:
            raise ValidationError({"player": f"{player.name} is not checked in."})
        played = Fixture.objects.filter(season=locked).filter(home=player).exists() or Fixture.objects.filter(
            season=locked, away=player
        ).exists()
        entry.present = False
        entry.dropped_after_round = rounds_published(locked) if played else None
        entry.save(update_fields=["present", "dropped_after_round"])
        if not played:
            locked.players.remove(player)
    return entry
