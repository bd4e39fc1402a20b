"""The scoresheet as a player reads it: rows and boards from the engine's result.

Presentation only: every number comes from ``scoring.engine.score`` (via
``selectors.game_session``); this module arranges them for the templates.
"""

from __future__ import annotations

import json

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.audit import ENDING_WORDS
from scoring.engine.card_facts import best_play_note
from scoring.engine.cards import SUIT_SYMBOLS
from scoring.engine.score import HandResult, SessionResult, running_totals
from scoring.models import ROW_ENDINGS, Game, Hand
from scoring.templatetags.hand_cards import hand_cards_html


def hand_row_words() -> dict:
    """How a row of the hands table reads, in the active language.

    The sheet drawn here and the sheet the phone draws offline (static/js/offline/sheet.js, which reads
    these from the page: `hand_words` as JSON) say a hand the same way. Each is a template: {by},
    {winner}, {dealer} are names; {ending} a word of `endings`; the rest figures.
    """
    return {
        "went_out": _("{by} {ending}"),
        # HTML: only the names are filled in.
        "undercut": _("{by} knock, <strong>undercut</strong> by {winner}"),
        "dead": _("Dead hand"),
        "knock_deadwood": _("deadwood {knocker} v {defender}"),
        "gin_deadwood": _("deadwood 0 v {defender}"),
        "upcard": _("up {upcard}"),
        "dealt": _("{dealer} dealt"),
        "joiner": " · ",
        "endings": {
            **{ending: str(words) for ending, words in ROW_ENDINGS.items()},
            "dead": str(ENDING_WORDS["dead"]).lower(),
        },
        "suits": SUIT_SYMBOLS,
    }


def hand_row_words_json() -> str:
    """``hand_row_words()`` for the offline app (static/js/offline/sheet.js), in a data attribute (the pages
    allow no inline script, JSON included)."""
    return json.dumps(hand_row_words())


def offline_copy_json(game: Game, hands: list[Hand], *, editable: bool) -> str:
    """The game's facts as the phone keeps them to score offline (static/js/offline/kept.js), in a data attribute
    of the sheet: every page that draws the sheet (a load, a save's answer, the live stream's) hands the
    phone its true copy at once. ``updated_at`` is the copy's version: a page the phone kept for offline
    use is older than what it has seen since, and never replaces it. Hands are ``[id, ending, by,
    knocker_deadwood, defender_deadwood, upcard]`` in order (a 1000-hand game stays a few kilobytes).
    """

    def ref(player) -> dict:
        return {"id": player.pk, "name": player.name}

    players = {game.player_one_id: game.player_one, game.player_two_id: game.player_two}
    return json.dumps(
        {
            "id": game.pk,
            "updated_at": game.updated_at.isoformat() if game.updated_at else None,
            "player_one": ref(game.player_one),
            "player_two": ref(game.player_two),
            "first_dealer": ref(players[game.first_dealer_id]),
            "rules": game.rules,
            "time_called_after": game.time_called_after,
            "league_status": game.league_status,
            "can_edit": editable,
            "hands": [
                [hand.pk, hand.ending, hand.by_id, hand.knocker_deadwood, hand.defender_deadwood, hand.upcard or None]
                for hand in hands
            ],
        },
        separators=(",", ":"),
    )


def upcard_text(upcard: str) -> str:
    return f"{upcard[:-1]}{SUIT_SYMBOLS.get(upcard[-1:], '')}" if upcard else ""


def describe_result(result: HandResult, names: dict, *, hollywood: bool = False) -> str:
    """A hand's outcome in words, e.g. "Undercut! Bob scores 27."."""
    if result.result == "dead":
        return _("Dead hand: nobody scores; %(dealer)s deals again.") % {"dealer": names[result.dealer]}
    facts = {"winner": names[result.winner], "points": result.points}
    lead = {
        "knock": _("%(winner)s knocks and scores %(points)s"),
        "undercut": _("Undercut! %(winner)s scores %(points)s"),
        "gin": _("Gin! %(winner)s scores %(points)s"),
        "big_gin": _("Big gin! %(winner)s scores %(points)s"),
    }[result.result] % facts
    extra = _(" (doubled: spade upcard)") if result.doubled else ""
    if hollywood:
        games = _(" and ").join(map(str, result.games))
        extra += ngettext(", in game %(games)s", ", in games %(games)s", len(result.games)) % {"games": games}
    return f"{lead}{extra}."


def _hand_row(number: int, result: HandResult, what, meta: str, cells: list[dict], edit_prefix: str | None):
    """One row of the hands table as HTML (built here: 60+ rows through the template engine cost ~10 ms)."""
    # Only a dead hand scores nothing to show; a win worth 0 (a tie undercut without a bonus) shows its 0.
    if result.result == "dead":
        points = ""
    else:
        points = format_html('{} <span class="x2">×2</span>', result.points) if result.doubled else result.points
    run = format_html_join(
        "",
        '<td class="num run{}">{}{}</td>',
        (
            (
                " scored" if cell.get("scored") else "",
                format_html('<span class="run-who">{}</span> ', cell["who"]) if cell.get("who") else "",
                cell["value"],
            )
            for cell in cells
        ),
    )
    fix = (
        format_html(
            '<td class="fix"><a href="{}{}/edit/" aria-label="{}">{}</a></td>',
            edit_prefix,
            number,
            _("Edit hand %(number)s") % {"number": number},
            _("Edit"),
        )
        if edit_prefix
        else ""
    )
    return format_html(
        '<tr class="{}"><td class="num">{}</td><td class="what">{}<span class="meta">{}</span></td>'
        '<td class="num pts">{}</td>{}{}</tr>',
        result.result,
        number,
        what,
        meta,
        points,
        run,
        fix,
    )


# How many hands the scoresheet shows at first: the latest ones (a sitting this long is rare, and the
# whole sheet, up to engine.score.MAX_HANDS rows, is one link away).
SHEET_HANDS_SHOWN = 100


def hands_hidden(count: int, *, show_all: bool) -> int:
    """How many of a sheet's first hands the scoresheet leaves out (0: it shows every hand)."""
    return 0 if show_all else max(count - SHEET_HANDS_SHOWN, 0)


def sheet_rows(game: Game, hands: list[Hand], session: SessionResult, *, editable: bool, hidden: int = 0) -> list[str]:
    """One HTML row per hand after the first ``hidden``: who, what, deadwood, points and the running totals."""
    players = (game.player_one, game.player_two)
    names = {player.pk: player.name for player in players}
    hollywood = len(session.games) > 1
    rows = []
    row_words = hand_row_words()
    edit_prefix = reverse("hand_submit", args=[game.pk])  # .../hands/ ; + "<number>/edit/"
    shown = zip(hands, session.hands, running_totals(session), strict=True)
    for hand, result, totals in shown:
        if hand.number <= hidden:  # the totals run on from the hidden hands all the same
            continue
        cells = []
        for game_number, game_totals in enumerate(totals, start=1):
            scored = game_number in result.games
            if hollywood:  # one column per game: the new total of whoever scored in it
                cells.append(
                    {
                        "value": game_totals[result.winner] if scored else "",
                        "who": names[result.winner][:4] if scored else "",
                        "game": game_number,
                    }
                )
            else:  # one column per player: each player's running total on every row; the scorer's stands out
                cells.extend(
                    {"value": game_totals[player.pk], "game": game_number, "scored": result.winner == player.pk}
                    for player in players
                )
        words = row_words
        if hand.ending == "dead":
            what = words["dead"]
        elif result.result == "undercut":
            what = format_html(words["undercut"], by=names[hand.by_id], winner=names[result.winner])
        else:
            what = words["went_out"].format(by=names[hand.by_id], ending=words["endings"][hand.ending])
        meta = []
        if hand.ending == "knock":
            meta.append(words["knock_deadwood"].format(knocker=hand.knocker_deadwood, defender=hand.defender_deadwood))
        elif hand.ending != "dead":
            meta.append(words["gin_deadwood"].format(defender=hand.defender_deadwood))
        if hand.upcard:
            meta.append(words["upcard"].format(upcard=upcard_text(hand.upcard)))
        meta.append(words["dealt"].format(dealer=names[result.dealer]))
        if hand.cards:  # legal play that was not the best: said quietly, so players can learn from it
            note = best_play_note(hand.cards, hand.ending, hand.knocker_deadwood, hand.defender_deadwood)
            if note:
                meta.append(note)
        if hand.cards:  # entered card by card: the melds, lay-offs and deadwood, worked out now
            what = format_html(
                '{}<details class="cards-of-hand"><summary>{}</summary>{}</details>',
                what,
                _("Cards"),
                hand_cards_html(hand, *players),
            )
        meta_text = words["joiner"].join(meta)
        rows.append(_hand_row(hand.number, result, what, meta_text, cells, edit_prefix if editable else None))
    return rows


def sheet_boards(game: Game, session: SessionResult) -> list[dict]:
    """Each game's board: points, boxes, points needed and, once over, the bonus breakdown."""
    players = (game.player_one, game.player_two)
    names = {player.pk: player.name for player in players}
    boards = []
    for result in session.games:
        breakdown = []
        if result.over:
            by_label: dict[str, dict] = {}
            for line in result.breakdown:
                by_label.setdefault(line.label, {})[line.player] = line.amount
            breakdown = [
                {"label": label, "amounts": [amounts.get(player.pk, "") for player in players]}
                for label, amounts in by_label.items()
            ]
        boards.append(
            {
                "number": result.number,
                "over": result.over,
                "winner": names.get(result.winner, ""),
                "margin": result.margin,
                "closed_by_hand": result.closed_by_hand,
                "players": [
                    {
                        "name": player.name,
                        "points": result.hand_points[player.pk],
                        "boxes": result.boxes[player.pk],
                        "needed": result.points_needed(player.pk),
                        "final": result.final[player.pk] if result.final else None,
                    }
                    for player in players
                ],
                "breakdown": breakdown,
            }
        )
    return boards
