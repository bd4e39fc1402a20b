"""CSV and JSON exports, streamed so a club's whole history never sits in memory.

Standings and hands go out as CSV rows; games as a JSON list of game records
(``scoring.selectors.game_record``, the foundation's format), which
``manage.py import_games`` reads back.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator

from django.db.models import QuerySet

from scoring.models import Game, Hand
from scoring.selectors import board_players, game_record, games_for_export

CHUNK = 2000

STANDINGS_COLUMNS = [
    "position", "tied", "player", "played", "won", "lost", "drawn", "net", "avg_margin",
    "hands_won", "gins", "undercuts_given", "undercuts_received",
]  # fmt: skip
HAND_COLUMNS = [
    "game", "game_name", "season", "player_one", "player_two", "hand", "date", "dealer", "ending", "by",
    "knocker_deadwood", "defender_deadwood", "upcard", "result", "winner", "points", "boxes", "doubled", "board",
]  # fmt: skip


class _Line:
    """A file-like object whose write() hands back the text, for csv.writer."""

    def write(self, value: str) -> str:
        return value


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def csv_safe(value):
    """A text cell a spreadsheet would run as a formula, made inert with a leading apostrophe; numbers unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_lines(header: list[str], rows: Iterable[list]) -> Iterator[str]:
    """Every CSV export's lines: no cell of any row can be run as a formula."""
    writer = csv.writer(_Line())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow([csv_safe(value) for value in row])


def standings_rows(standings) -> Iterator[list]:
    for row in standings.rows:
        yield [
            row.position, "yes" if row.tied else "", row.name, row.played, row.won, row.lost, row.drawn, row.net,
            f"{row.avg_margin:.2f}", row.hands_won, row.gins, row.undercuts_given, row.undercuts_received,
        ]  # fmt: skip


def hand_rows(hands: QuerySet[Hand]) -> Iterator[list]:
    """One CSV row per hand (``hands`` from ``scoring.stats.history.hand_history``), read in chunks.

    A partnership board is a row of its own: ``hand`` is its deal, ``board`` says which board (empty for a
    hand of two), and ``player_one``/``player_two`` are the two players who sat at that board.
    """
    for hand in hands.select_related("game__player_three", "game__player_four").iterator(chunk_size=CHUNK):
        game = hand.game
        seated = board_players(hand) or (game.player_one, game.player_two)
        yield [
            game.pk,
            game.name,
            game.season.name if game.season_id else "",
            seated[0].name,
            seated[1].name,
            hand.number,
            hand.created_at.date().isoformat(),
            hand.dealer.name,
            hand.ending,
            hand.by.name if hand.by_id else "",
            "" if hand.knocker_deadwood is None else hand.knocker_deadwood,
            "" if hand.defender_deadwood is None else hand.defender_deadwood,
            hand.upcard,
            hand.result,
            hand.winner.name if hand.winner_id else "",
            hand.points,
            hand.boxes,
            "yes" if hand.doubled else "",
            hand.board or "",
        ]


def games_to_export(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` (any filtered queryset) with what ``game_record`` reads, oldest first."""
    return games_for_export().filter(pk__in=games.values("pk"))


def game_records_json(games: QuerySet[Game]) -> Iterator[str]:
    """A JSON list of game records, one record per chunk of text."""
    yield "["
    first = True
    for game in games_to_export(games).iterator(chunk_size=200):
        yield ("\n" if first else ",\n") + json.dumps(game_record(game), ensure_ascii=False)
        first = False
    yield "\n]\n"
