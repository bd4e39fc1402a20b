"""Every write to games and hands goes through these functions.

Each one changes facts and then recomputes all derived figures from all the
facts with the engine, inside one transaction: a refused change leaves the
database exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from players.models import Player
from players.services import player_get_or_create
from scoring.audit import audit_hand_edit, audit_record, game_names, hand_fact_words, hand_summary
from scoring.changes import notify_change
from scoring.engine.card_facts import CardFactError, check_facts
from scoring.engine.record import GameRecord, RecordError, score_record
from scoring.engine.rules import RuleError, RuleSet, resolve_rules
from scoring.engine.score import HandError, HandFacts, HandResult, SessionResult, score_session
from scoring.models import Game, GameScore, Hand
from scoring.selectors import hand_facts

FACT_FIELDS = ("ending", "by", "knocker_deadwood", "defender_deadwood", "upcard")


class HandRefused(ValidationError):
    """A hand (or game) the rules refuse; ``hand`` and ``field`` say where."""

    def __init__(self, *, field: str, message: str, hand: int | None = None):
        super().__init__({field: [message]})
        self.hand = hand
        self.field = field
        self.message_text = message


class HandConflict(HandRefused):
    """Someone else recorded this hand number a moment ago."""


@dataclass(frozen=True)
class Change:
    """How one hand's or game's derived figures moved after a correction."""

    what: str
    before: str
    after: str


def _rules_of(game: Game) -> RuleSet:
    return resolve_rules(game.rules)


_facts_of = hand_facts  # one mapping from stored hand to engine facts (scoring.selectors)


def _score(game: Game, facts: list[HandFacts]) -> SessionResult:
    try:
        return score_session(_rules_of(game), (game.player_one_id, game.player_two_id), game.first_dealer_id, facts)
    except HandError as error:
        raise HandRefused(field=error.field, message=error.message, hand=error.hand) from None


def _lock(game: Game) -> Game:
    """Serialise writers on one game (row lock on PostgreSQL; SQLite locks the file)."""
    return Game.objects.select_for_update().select_related("player_one", "player_two").get(pk=game.pk)


def _describe_hand(hand: Hand | HandResult, names: dict[int, str]) -> str:
    if hand.result == "dead":
        return "dead hand"
    winner = hand.winner_id if isinstance(hand, Hand) else hand.winner
    return f"{names[winner]} {hand.result.replace('_', ' ')} {hand.points}"


def derived_hand_fields(derived: HandResult) -> dict[str, Any]:
    """The engine's figures for one hand, as Hand model fields."""
    return {
        "dealer_id": derived.dealer,
        "result": derived.result,
        "winner_id": derived.winner,
        "points": derived.points,
        "boxes": derived.boxes,
        "doubled": derived.doubled,
        "scored_in": list(derived.games),
    }


def game_recompute(*, game: Game, hands: list[Hand] | None = None) -> list[Change]:
    """Rewrite every derived figure of ``game`` from its facts; return what moved.

    Must run inside the caller's transaction (all callers hold the game lock).
    ``hands`` lets a caller that already loaded every hand, in order, skip the reload.
    """
    if hands is None:
        hands = list(game.hands.order_by("number"))
    result = _score(game, [_facts_of(hand) for hand in hands])
    names = {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}
    changes: list[Change] = []
    changed_hands = []
    for hand, derived in zip(hands, result.hands, strict=True):
        new = derived_hand_fields(derived)
        if any(getattr(hand, name) != value for name, value in new.items()):
            if hand.result:  # a hand that existed before (not the one just added)
                before = _describe_hand(hand, names)
                after = _describe_hand(derived, names)
                if before != after:
                    changes.append(Change(f"Hand {hand.number}", before, after))
            for name, value in new.items():
                setattr(hand, name, value)
            changed_hands.append(hand)
    if changed_hands:
        Hand.objects.bulk_update(changed_hands, list(new))

    existing = {score.number: score for score in game.scores.all()}
    for derived in result.games:
        score = existing.get(derived.number) or GameScore(game=game, number=derived.number)
        before_final = (score.player_one_final, score.player_two_final) if score.pk else None
        before_row = _score_row(score) if score.pk else None
        score.player_one_hand_points = derived.hand_points[game.player_one_id]
        score.player_two_hand_points = derived.hand_points[game.player_two_id]
        score.player_one_boxes = derived.boxes[game.player_one_id]
        score.player_two_boxes = derived.boxes[game.player_two_id]
        score.over = derived.over
        score.winner_id = derived.winner
        score.player_one_final = derived.final[game.player_one_id] if derived.over else None
        score.player_two_final = derived.final[game.player_two_id] if derived.over else None
        score.margin = derived.margin
        score.closed_by_hand = derived.closed_by_hand
        if _score_row(score) != before_row:  # most hands leave the closed games untouched
            score.save()
        after_final = (score.player_one_final, score.player_two_final)
        if before_final is not None and before_final != after_final and before_final != (None, None):
            label = f"Game {derived.number} final" if len(result.games) > 1 else "Final score"
            show = lambda pair: "open" if pair == (None, None) else f"{pair[0]}\u2013{pair[1]}"  # noqa: E731
            changes.append(Change(label, show(before_final), show(after_final)))

    game.over = result.over
    game.winner_id = result.winner
    game.margin = result.margin
    game.next_dealer_id = result.next_dealer
    game.hand_count = len(hands)
    if result.over and game.finished_at is None:
        game.finished_at = timezone.now()
    elif not result.over:
        game.finished_at = None
    game.save(
        update_fields=["over", "winner", "margin", "next_dealer", "hand_count", "finished_at", "updated_at"]
    )
    notify_change(game=game)  # wall screens hear of it when this transaction commits
    return changes


def _score_row(score: GameScore) -> tuple:
    return tuple(getattr(score, field.attname) for field in GameScore._meta.concrete_fields)


def game_create(
    *,
    player_one: Player,
    player_two: Player,
    first_dealer: Player,
    rules: dict[str, Any] | RuleSet | None = None,
    created_by=None,
    name: str = "",
    source: str = "",
) -> Game:
    """Start a sitting between two different players under a validated rule set."""
    try:
        resolved = resolve_rules(rules)
    except RuleError as error:
        raise HandRefused(field=error.field, message=error.message) from None
    if player_one.pk == player_two.pk:
        raise HandRefused(field="player_two", message="A game needs two different players.")
    if first_dealer.pk not in (player_one.pk, player_two.pk):
        raise HandRefused(field="first_dealer", message="The first dealer must be one of the two players.")
    with transaction.atomic():
        game = Game.objects.create(
            player_one=player_one,
            player_two=player_two,
            first_dealer=first_dealer,
            preset=resolved.preset,
            rules=resolved.as_dict(),
            created_by=created_by,
            name=name[:200],
            source=source[:200],
            next_dealer=first_dealer,
        )
        game_recompute(game=game)
    return game


def _clean_facts(
    game: Game,
    *,
    ending: str,
    by: Player | int | None,
    knocker_deadwood: int | None,
    defender_deadwood: int | None,
    upcard: str | None,
) -> dict[str, Any]:
    by_id = by.pk if isinstance(by, Player) else by
    if by_id is not None and by_id not in (game.player_one_id, game.player_two_id):
        raise HandRefused(field="by", message="Who went out must be one of the two players.")
    if ending in ("gin", "big_gin") and knocker_deadwood == 0:
        knocker_deadwood = None  # a gin's own deadwood is 0 by definition
    return {
        "ending": ending,
        "by_id": by_id,
        "knocker_deadwood": knocker_deadwood,
        "defender_deadwood": defender_deadwood,
        "upcard": (upcard or "").strip().upper(),
    }


def _facts_from(values: dict[str, Any]) -> HandFacts:
    return HandFacts(
        ending=values["ending"],
        by=values["by_id"],
        knocker_deadwood=values["knocker_deadwood"],
        defender_deadwood=values["defender_deadwood"],
        upcard=values["upcard"] or None,
    )


def _checked_cards(game: Game, values: dict[str, Any], cards: Any, *, number: int) -> dict | None:
    """The ``cards`` fact checked against the hand's other facts (engine.card_facts), tidied; None if not given."""
    try:
        return check_facts(_rules_of(game), _facts_from(values), cards)
    except CardFactError as error:
        raise HandRefused(field=error.field, message=error.message, hand=number) from None


def hand_preview(
    *,
    game: Game,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
) -> HandResult:
    """What the next hand would score, without storing anything."""
    values = _clean_facts(
        game,
        ending=ending,
        by=by,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        upcard=upcard,
    )
    facts = [_facts_of(hand) for hand in game.hands.order_by("number")]
    return _score(game, [*facts, _facts_from(values)]).hands[-1]


def hand_record(
    *,
    game: Game,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
    recorded_by=None,
    expected_number: int | None = None,
) -> Hand:
    """Append the next hand. ``expected_number`` guards against two phones racing."""
    try:
        with transaction.atomic():
            locked = _lock(game)
            hands = list(locked.hands.order_by("number"))
            number = len(hands) + 1
            if expected_number is not None and expected_number != number:
                raise HandConflict(
                    field="number",
                    hand=expected_number,
                    message=f"Hand {expected_number} was already recorded; the sheet now has {number - 1} hands.",
                )
            values = _clean_facts(
                locked,
                ending=ending,
                by=by,
                knocker_deadwood=knocker_deadwood,
                defender_deadwood=defender_deadwood,
                upcard=upcard,
            )
            # Validate before writing so a refused hand never touches the table.
            derived = _score(locked, [*map(_facts_of, hands), _facts_from(values)]).hands[-1]
            cards = _checked_cards(locked, values, cards, number=number)
            hand = Hand.objects.create(
                game=locked,
                number=number,
                cards=cards,
                recorded_by=recorded_by,
                **derived_hand_fields(derived),
                **values,
            )
            game_recompute(game=locked, hands=[*hands, hand])
            if locked.league_status == "confirmed":  # a hand added to a confirmed league result
                audit_record(
                    game=locked,
                    actor=recorded_by,
                    action="hand_added",
                    hand_number=number,
                    what=f"Hand {number}",
                    before="\u2014",
                    after=hand_summary(hand_fact_words(hand, game_names(locked))),
                )
    except IntegrityError:
        raise HandConflict(
            field="number", message="Another device recorded a hand at the same moment; reload and try again."
        ) from None
    _refresh(game, locked)
    return hand


def _refresh(game: Game, fresh: Game) -> None:
    """Bring the caller's game object up to date with what was just saved."""
    for name in ("over", "winner_id", "margin", "next_dealer_id", "hand_count", "finished_at", "updated_at"):
        setattr(game, name, getattr(fresh, name))
    for cache in ("_prefetched_objects_cache",):
        game.__dict__.pop(cache, None)


def hand_edit(
    *,
    hand: Hand,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
    edited_by=None,
    reason: str = "",
) -> list[Change]:
    """Correct the facts of any hand; every later figure is recomputed.

    Refused (and nothing saved) if the corrected sheet breaks the rules
    anywhere, e.g. the game would now end before a later hand.
    """
    with transaction.atomic():
        game = _lock(hand.game)
        stored = Hand.objects.select_for_update().get(pk=hand.pk, game=game)
        values = _clean_facts(
            game,
            ending=ending,
            by=by,
            knocker_deadwood=knocker_deadwood,
            defender_deadwood=defender_deadwood,
            upcard=upcard,
        )
        facts_before = hand_fact_words(stored, game_names(game))
        for name, value in values.items():
            setattr(stored, name, value)
        facts = [
            _facts_from(values) if other.pk == stored.pk else _facts_of(other)
            for other in game.hands.order_by("number")
        ]
        _score(game, facts)  # refuse before writing anything
        stored.cards = _checked_cards(game, values, cards, number=stored.number)
        stored.save()
        changes = game_recompute(game=game)
        audit_hand_edit(
            game=game,
            number=stored.number,
            before=facts_before,
            after=hand_fact_words(stored, game_names(game)),
            actor=edited_by,
            comment=reason,
        )
    _refresh(hand.game, game)
    return changes


def _remove(game: Game, hand: Hand, *, actor=None, reason: str = "") -> list[Change]:
    audit_record(
        game=game,
        actor=actor,
        action="hand_removed",
        hand_number=hand.number,
        what=f"Hand {hand.number}",
        before=hand_summary(hand_fact_words(hand, game_names(game))),
        after="removed",
        comment=reason,
    )
    later = list(game.hands.filter(number__gt=hand.number).order_by("number"))
    remaining = [
        _facts_of(other) for other in game.hands.order_by("number") if other.pk != hand.pk
    ]
    _score(game, remaining)  # e.g. removing a hand may not be refused, but check anyway
    hand.delete()
    # One row at a time, lowest first, so (game, number) stays unique throughout.
    for other in later:
        other.number -= 1
        other.save(update_fields=["number"])
    return game_recompute(game=game)


def hand_remove(*, hand: Hand, removed_by=None, reason: str = "") -> list[Change]:
    """Remove any hand; later hands move up one and everything is recomputed."""
    with transaction.atomic():
        game = _lock(hand.game)
        stored = Hand.objects.get(pk=hand.pk, game=game)
        changes = _remove(game, stored, actor=removed_by, reason=reason)
    _refresh(hand.game, game)
    return changes


def hand_remove_last(*, game: Game, removed_by=None) -> Hand | None:
    """Undo: remove the last hand recorded. Returns the removed hand (unsaved copy)."""
    with transaction.atomic():
        locked = _lock(game)
        last = locked.hands.order_by("-number").first()
        if last is None:
            raise HandRefused(field="number", message="There is no hand to undo.")
        _remove(locked, last, actor=removed_by)
    _refresh(game, locked)
    return last


def game_delete(*, game: Game) -> None:
    with transaction.atomic():
        game.delete()


def game_import(*, record: GameRecord, created_by=None) -> Game:
    """Store a parsed game record, all or nothing (RecordError names hand and field)."""
    score_record(record)  # every rule checked, by name, before anything is written
    with transaction.atomic():
        try:
            players = [player_get_or_create(name=name, created_by=created_by) for name in record.players]
        except ValidationError as error:
            raise RecordError(None, "players", " ".join(error.messages)) from None
        by_name = dict(zip(record.players, players, strict=True))
        game = game_create(
            player_one=players[0],
            player_two=players[1],
            first_dealer=by_name[record.first_dealer],
            rules=record.rules,
            created_by=created_by,
            name=record.name,
            source=record.source,
        )
        Hand.objects.bulk_create(
            Hand(
                game=game,
                number=number,
                ending=fact.ending,
                by=by_name[fact.by] if fact.by else None,
                knocker_deadwood=fact.knocker_deadwood if fact.ending == "knock" else None,
                defender_deadwood=fact.defender_deadwood,
                upcard=fact.upcard or "",
                cards=check_facts(record.rules, fact, cards),  # checked by score_record; stored tidied
                recorded_by=created_by,
                dealer=game.first_dealer,  # placeholder; game_recompute sets the real dealer
                result="",
            )
            for number, (fact, cards) in enumerate(zip(record.hands, record.cards, strict=True), start=1)
        )
        game_recompute(game=game)
    return game
