"""The audit trail of a game's facts, and the one vocabulary that describes a hand in words."""

from __future__ import annotations

from scoring.models import Ending, FactChange, Game, Result

# The words for a hand, from the model's choices: the entry form, the sheet, the trail and the API say the same.
ENDING_WORDS = dict(Ending.choices)  # "Knock", "Gin", "Big gin", "Dead hand"
RESULT_WORDS = {value: label.lower() for value, label in Result.choices}  # "knock", "undercut", ..., "dead hand"

FACT_LABELS = {
    "ending": "ending",
    "by": "went out",
    "knocker_deadwood": "knocker's deadwood",
    "defender_deadwood": "other player's deadwood",  # as the entry form says it
    "upcard": "upcard",
}


def hand_fact_words(hand, names: dict[int, str]) -> dict[str, str]:
    """A hand's facts as words, one entry per fact field."""
    return {
        "ending": ENDING_WORDS.get(hand.ending, str(hand.ending)),
        "by": names.get(hand.by_id, "") if hand.by_id else "",
        "knocker_deadwood": "" if hand.knocker_deadwood is None else str(hand.knocker_deadwood),
        "defender_deadwood": "" if hand.defender_deadwood is None else str(hand.defender_deadwood),
        "upcard": hand.upcard or "",
    }


def outcome_words(result: str, winner_name: str | None, points: int) -> str:
    """A hand's outcome in a few words: "Bob undercut 27", "dead hand"."""
    if result == "dead":
        return RESULT_WORDS["dead"]
    return f"{winner_name} {RESULT_WORDS[result]} {points}"


def hand_summary(words: dict[str, str]) -> str:
    parts = [words["ending"]]
    if words["by"]:
        parts.append(f"by {words['by']}")
    if words["knocker_deadwood"]:
        parts.append(f"deadwood {words['knocker_deadwood']}")
    if words["defender_deadwood"]:
        parts.append(f"against {words['defender_deadwood']}")
    if words["upcard"]:
        parts.append(f"upcard {words['upcard']}")
    return " ".join(parts)


def audit_record(
    *,
    game: Game,
    actor,
    action: str,
    what: str = "",
    before: str = "",
    after: str = "",
    hand_number: int | None = None,
    comment: str = "",
) -> FactChange:
    """Keep one entry of the game's audit trail (call inside the change's transaction)."""
    return FactChange.objects.create(
        game=game,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        action=action,
        hand_number=hand_number,
        what=what[:100],
        before=before[:200],
        after=after[:200],
        comment=comment,
    )


def audit_hand_edit(*, game: Game, number: int, before: dict[str, str], after: dict[str, str], actor, comment=""):
    """One entry per fact that changed."""
    FactChange.objects.bulk_create(
        FactChange(
            game=game,
            actor=actor if getattr(actor, "is_authenticated", False) else None,
            action=FactChange.Action.HAND_EDITED,
            hand_number=number,
            what=f"Hand {number} {FACT_LABELS[field]}",
            before=before[field] or "\u2014",
            after=after[field] or "\u2014",
            comment=comment,
        )
        for field in FACT_LABELS
        if before[field] != after[field]
    )


def game_names(game: Game) -> dict[int, str]:
    return {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}


def game_audit_trail(game: Game):
    return FactChange.objects.filter(game=game).select_related("actor").order_by("at", "pk")
