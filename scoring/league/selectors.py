"""League reads that join: a Swiss night's field (who is here), each owning its select_related."""

from __future__ import annotations

from dataclasses import dataclass

from players.models import Membership, Player
from scoring.models import Season, SwissEntry


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
