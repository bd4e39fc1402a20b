"""The audit trail of a game's facts, and the one vocabulary that describes a hand in words.

A line is kept as words, like a note on the sheet, in every shipped language at once: its parts are
given as callables (or lazy strings) and said under each language as the line is written
(``FactChange.words``), so each reader later sees the line in their own language whoever wrote it.
The action's name beside each (``FactChange.Action``) is translated whenever the trail is shown.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from scoring.engine.score import board_place
from scoring.models import Ending, FactChange, Game

# The words for a hand, from the model's choices: the entry form, the sheet, the trail and the API say the same.
ENDING_WORDS = dict(Ending.choices)  # "Knock", "Gin", "Big gin", "Dead hand" (translated when read)
# A hand's result in running text ("Bob undercut 27"): the model's labels, in lower case.
RESULT_WORDS = {
    "knock": pgettext_lazy("gin scoring: a hand's result in running text", "knock"),
    "undercut": pgettext_lazy("gin scoring: a hand's result in running text", "undercut"),
    "gin": pgettext_lazy("gin scoring: a hand's result in running text", "gin"),
    "big_gin": pgettext_lazy("gin scoring: a hand's result in running text", "big gin"),
    "dead": pgettext_lazy("gin scoring: a hand's result in running text", "dead hand"),
}

# What a correction of one fact of hand ``number`` changed, one line of the trail per fact.
FACT_CHANGED = {
    "ending": gettext_lazy("Hand %(number)s ending"),
    "by": gettext_lazy("Hand %(number)s went out"),
    "knocker_deadwood": gettext_lazy("Hand %(number)s knocker's deadwood"),
    "defender_deadwood": gettext_lazy("Hand %(number)s other player's deadwood"),  # as the entry form says it
    "upcard": gettext_lazy("Hand %(number)s upcard"),
}


def hand_fact_words(hand, names: dict[int, str]) -> dict[str, str]:
    """A hand's facts as words, one entry per fact field."""
    return {
        "ending": str(ENDING_WORDS.get(hand.ending, hand.ending)),
        "by": names.get(hand.by_id, "") if hand.by_id else "",
        "knocker_deadwood": "" if hand.knocker_deadwood is None else str(hand.knocker_deadwood),
        "defender_deadwood": "" if hand.defender_deadwood is None else str(hand.defender_deadwood),
        "upcard": hand.upcard or "",
    }


def outcome_words(result: str, winner_name: str | None, points: int) -> str:
    """A hand's outcome in a few words: "Bob undercut 27", "dead hand"."""
    if result == "dead":
        return str(RESULT_WORDS["dead"])
    # Translators: a hand's outcome, e.g. "Bob undercut 27": who won it, how (a word of gin scoring), the points.
    return _("%(winner)s %(result)s %(points)s") % {
        "winner": winner_name,
        "result": RESULT_WORDS[result],
        "points": points,
    }


def hand_summary(words: dict[str, str]) -> str:
    """A hand's facts in a few words: "Knock by Bob deadwood 3 against 20 upcard 7H"."""
    parts = [words["ending"]]
    if words["by"]:
        # Translators: in a hand's facts ("Knock by Bob deadwood 3 against 20 upcard 7H"): who went out.
        parts.append(_("by %(name)s") % {"name": words["by"]})
    if words["knocker_deadwood"]:
        # Translators: in a hand's facts ("Knock by Bob deadwood 3 against 20"): the knocker's deadwood.
        parts.append(_("deadwood %(points)s") % {"points": words["knocker_deadwood"]})
    if words["defender_deadwood"]:
        # Translators: in a hand's facts ("Knock by Bob deadwood 3 against 20"): the other player's deadwood.
        parts.append(_("against %(points)s") % {"points": words["defender_deadwood"]})
    if words["upcard"]:
        # Translators: in a hand's facts ("Knock by Bob upcard 7H"): the card turned up at the deal.
        parts.append(_("upcard %(card)s") % {"card": words["upcard"]})
    return " ".join(parts)


# A part of a line: plain text (a name, a typed reason: the same in every language), a lazy string, or
# a function saying it in the active language.
Words = str | Callable[[], str]


def _said(words) -> str:
    return str(words()) if callable(words) else str(words)


def _in_every_language(what: Words, before: Words, after: Words, comment: Words) -> dict[str, list[str]]:
    """The line's parts said in each shipped language, as ``FactChange.words`` keeps them."""
    lines = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            lines[code] = [_said(what)[:100], _said(before)[:200], _said(after)[:200], _said(comment)]
    return lines


def _fact_change(*, game: Game, actor, action: str, hand_number, what, before, after, comment) -> FactChange:
    lines = _in_every_language(what, before, after, comment)
    stored = lines[settings.LANGUAGE_CODE]  # the columns: the default language's words
    return FactChange(
        game=game,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        action=action,
        hand_number=hand_number,
        what=stored[0],
        before=stored[1],
        after=stored[2],
        comment=stored[3],
        words=lines,
    )


def audit_record(
    *,
    game: Game,
    actor,
    action: str,
    what: Words = "",
    before: Words = "",
    after: Words = "",
    hand_number: int | None = None,
    comment: Words = "",
) -> FactChange:
    """Keep one entry of the game's audit trail (call inside the change's transaction). Give the parts
    that are the app's words as functions (``lambda: _("Hand %(number)s") % ...``) or lazy strings."""
    change = _fact_change(
        game=game,
        actor=actor,
        action=action,
        hand_number=hand_number,
        what=what,
        before=before,
        after=after,
        comment=comment,
    )
    change.save()
    return change


def audit_hand_edit(
    *, game: Game, number: int, before, after, names: dict[int, str], actor, comment="", board: int | None = None
):
    """One entry per fact that changed between two versions of hand ``number`` (hands or unsaved copies);
    ``board``: a partnership deal's board ("Hand 2, board 1 ending")."""
    said_before, said_after = hand_fact_words(before, names), hand_fact_words(after, names)
    FactChange.objects.bulk_create(
        _fact_change(
            game=game,
            actor=actor,
            action=FactChange.Action.HAND_EDITED,
            hand_number=number,
            what=lambda field=field: FACT_CHANGED[field] % {"number": board_place(number, board)},
            before=lambda field=field: hand_fact_words(before, names)[field] or "\u2014",
            after=lambda field=field: hand_fact_words(after, names)[field] or "\u2014",
            comment=comment,
        )
        for field in FACT_CHANGED
        if said_before[field] != said_after[field]
    )


def game_names(game: Game) -> dict[int, str]:
    """Every player's name by id, in seating order (a partnership game's four: its partners are read if not loaded)."""
    names = {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}
    if game.is_partnership:
        names[game.player_three_id] = game.player_three.name
        names[game.player_four_id] = game.player_four.name
    return names


def game_audit_trail(game: Game):
    """The game's history, after that of any earlier game of its fixture that an organiser voided."""
    lines = Q(game=game)
    if getattr(game, "fixture_id", None) is not None:
        lines |= Q(game__isnull=True, fixture_id=game.fixture_id)
    return FactChange.objects.filter(lines).select_related("actor").order_by("at", "pk")
