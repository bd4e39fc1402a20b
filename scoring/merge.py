"""Merging two player records into one (a guest typed twice: "Dan" and "Daniel").

Everything that points at the dropped record (games, hands, scores, fixtures, season entries,
memberships, invitations, and so the ratings and the audit lines, which follow the games) is moved
to the kept one in one transaction, then the dropped record is deleted. Each game moved gets an
audit line saying so. Relations are found from the model graph, so a table added later that
points at a player is moved too.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.models import Membership, Player, Role
from scoring.audit import audit_record
from scoring.changes import count_results_change, notify_change
from scoring.models import FactChange, Game, Season
from scoring.permissions import refuse_closed_season

# The higher of two roles wins when both records belonged to the same club.
ROLE_RANK = {Role.OWNER: 0, Role.ADMIN: 1, Role.PLAYER: 2}


@dataclass(frozen=True)
class MergeResult:
    kept: Player
    dropped_name: str
    games: int
    rows: int  # every row that now points at the kept record (games and hands included)


def _refuse(message: str, field: str = "drop") -> ValidationError:
    return ValidationError({field: [message]})


def _check(keep: Player, drop: Player) -> None:
    """Refuse what would make a record that cannot be right; nothing is changed."""
    if keep.pk == drop.pk:
        raise _refuse(_("Choose two different players."))
    # A closed season's results are final: a merge may rename its player (one record in it), but not
    # put two records' results in it together. The state first: it says so before anything else.
    for season_id in sorted(_seasons_of(keep) & _seasons_of(drop)):
        refuse_closed_season(season_id=season_id)
    if keep.user_id is not None and drop.user_id is not None:
        raise _refuse(
            _(
                "%(keep)s and %(drop)s both belong to accounts: they are two people. "
                "Only a record without an account (a guest) can be merged into another."
            )
            % {"keep": keep.name, "drop": drop.name}
        )
    against = (
        Game.objects.filter(Q(player_one=keep, player_two=drop) | Q(player_one=drop, player_two=keep))
        .order_by("pk")
        .first()
    )
    if against is not None:
        raise _refuse(
            _(
                "%(keep)s and %(drop)s played each other (game %(game)s): merged, that game would be "
                "a player against themselves. They are two people; nothing was merged."
            )
            % {"keep": keep.name, "drop": drop.name, "game": against.pk}
        )
    both = Season.objects.filter(players=keep).filter(players=drop).order_by("pk").first()
    if both is not None:
        raise _refuse(
            _("%(keep)s and %(drop)s are both entered in %(season)s (each has fixtures there); nothing was merged.")
            % {"keep": keep.name, "drop": drop.name, "season": both.name}
        )


def _seasons_of(player: Player) -> set[int]:
    """The seasons ``player`` is entered in or has a game of."""
    entered = Season.objects.filter(players=player).values_list("pk", flat=True)
    played = (
        Game.objects.filter(Q(player_one=player) | Q(player_two=player), season__isnull=False)
        .values_list("season_id", flat=True)
        .distinct()
    )
    return {*entered, *played}


def _merge_memberships(keep: Player, drop: Player) -> int:
    """Clubs both records belong to keep the kept membership, with the higher of the two roles."""
    moved = 0
    for membership in Membership.objects.select_for_update().filter(player=drop):
        kept = Membership.objects.select_for_update().filter(club_id=membership.club_id, player=keep).first()
        if kept is None:
            membership.player = keep
            membership.save(update_fields=["player"])
            moved += 1
            continue
        if ROLE_RANK.get(membership.role, 9) < ROLE_RANK.get(kept.role, 9):
            kept.role = membership.role
            kept.save(update_fields=["role"])
        membership.delete()
    return moved


def _player_relations() -> list[models.ForeignObjectRel]:
    """Every foreign key (and one-to-one) from any table to Player, hidden ones ("+") included.

    Many-to-many entries are moved through their join table's own foreign key, which is listed too.
    """
    return [
        relation
        for relation in Player._meta.get_fields(include_hidden=True)
        if relation.auto_created
        and not relation.concrete
        and (relation.one_to_many or relation.one_to_one)
        and relation.related_model is not Membership
    ]


def _move_references(keep: Player, drop: Player) -> int:
    """Point every reference to ``drop`` at ``keep``: one UPDATE per table, all its player columns at once
    (a game's winner must stay one of its two players at every moment, so they cannot move one by one)."""
    columns: dict[type[models.Model], list[str]] = {}
    for relation in _player_relations():
        columns.setdefault(relation.related_model, []).append(relation.field.name)
    moved = 0
    for model, names in columns.items():
        swap = {
            name: Case(
                When(**{name: drop.pk}, then=Value(keep.pk)),
                default=F(f"{name}_id"),
                output_field=model._meta.get_field(name).target_field,
            )
            for name in names
        }
        pointing = Q()
        for name in names:
            pointing |= Q(**{name: drop.pk})
        moved += model._base_manager.filter(pointing).update(**swap)
    return moved


def player_merge(*, keep: Player, drop: Player, merged_by=None) -> MergeResult:
    """Move everything of ``drop`` to ``keep`` and delete ``drop``; all or nothing.

    Refused (ValidationError naming ``drop``) when both belong to accounts, when the two played
    each other, or when both are entered in one season.
    """
    with transaction.atomic():
        locked = {player.pk: player for player in Player.objects.select_for_update().filter(pk__in=[keep.pk, drop.pk])}
        if len(locked) != 2:
            raise _refuse(_("That player no longer exists; reload the page."))
        keep, drop = locked[keep.pk], locked[drop.pk]
        _check(keep, drop)
        dropped_name = drop.name
        game_ids = list(
            Game.objects.filter(Q(player_one=drop) | Q(player_two=drop)).order_by("pk").values_list("pk", flat=True)
        )
        rows = _merge_memberships(keep, drop)
        try:
            rows += _move_references(keep, drop)
        except IntegrityError:
            raise _refuse(
                _("%(keep)s and %(drop)s appear together where one player may appear only once; nothing was merged.")
                % {"keep": keep.name, "drop": drop.name}
            ) from None
        if drop.user_id is not None:  # the guest's account (if any) now plays as the kept record
            user_id = drop.user_id
            drop.user = None
            drop.save(update_fields=["user"])
            keep.user_id = user_id
            keep.save(update_fields=["user"])
        drop.delete()
        # A new updated_at moves every season's version, so cached standings and walls refresh.
        Game.objects.filter(pk__in=game_ids).update(updated_at=timezone.now())
        games = list(Game.objects.filter(pk__in=game_ids).order_by("pk"))
        for game in games:
            audit_record(
                game=game,
                actor=merged_by,
                action=FactChange.Action.PLAYER_MERGED,
                what=gettext_lazy("Player"),
                before=dropped_name,
                after=keep.name,
                comment=lambda: (
                    _("%(drop)s's record was merged into %(keep)s's.") % {"drop": dropped_name, "keep": keep.name}
                ),
            )
            notify_change(game=game)
        # Their seasons' counted results now name the kept record: the ratings of its clubs are computed again.
        for season_id in sorted({game.season_id for game in games if game.season_id is not None}):
            count_results_change(season_id=season_id)
    return MergeResult(kept=keep, dropped_name=dropped_name, games=len(games), rows=rows)
