"""Score game records without storing them: a readable sheet, or the spec's JSON."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.engine.partnership import PartnershipResult
from scoring.engine.record import RecordError, expect_of, parse_record, score_record, side_name


def load_record(path: str):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except json.JSONDecodeError as error:
        raise RecordError(None, "record", f"not valid JSON: {error}") from None


class Command(BaseCommand):
    help = "Score JSON game records (docs/game-record.md) and print the scoresheet."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--json", action="store_true", help="one line per file: the spec's expect object")

    def handle(self, *args, files, json: bool = False, **options):
        invalid = 0
        for path in files:
            try:
                record = parse_record(load_record(path))
                result = score_record(record)
            except RecordError as error:
                invalid += 1
                if json:
                    self.stdout.write(_dumps(error.as_json()))
                else:
                    where = f"hand {error.hand}, " if error.hand else ""
                    where += f"board {error.board}, " if error.board else ""
                    self.stdout.write(f"{path}: invalid ({where}field {error.field}): {error.message}\n")
                continue
            if json:
                self.stdout.write(_dumps(expect_of(result)))
            else:
                self.stdout.write(render_sheet(path, record, result))
        if invalid:
            raise CommandError(f"{invalid} of {len(files)} record(s) invalid", returncode=1)


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def render_sheet(path, record, result) -> str:
    if isinstance(result, PartnershipResult):
        return render_partnership_sheet(path, record, result)
    one, two = record.players
    lines = [
        f"== {record.name or path} ({record.rules.preset})",
        f"{'#':>3}  {'dealer':<10} {'result':<10} {'winner':<10} {'points':>6}  games",
    ]
    for hand in result.hands:
        games = ",".join(map(str, hand.games))
        doubled = " (spade x2)" if hand.doubled else ""
        lines.append(
            f"{hand.number:>3}  {hand.dealer:<10} {hand.result:<10} {hand.winner or '-':<10} {hand.points:>6}"
            f"  {games}{doubled}"
        )
    for game in result.games:
        label = f"Game {game.number}" if len(result.games) > 1 else "Game"
        lines.append(
            f"{label}: {one} {game.hand_points[one]} ({game.boxes[one]} boxes), "
            f"{two} {game.hand_points[two]} ({game.boxes[two]} boxes)"
        )
        if game.over:
            for line in game.breakdown:
                lines.append(f"    {line.player:<10} {line.label:<40} {line.amount:>6}")
            lines.append(
                f"  {game.winner} wins {game.final[game.winner]} to {game.final[game.loser]}, margin {game.margin}"
            )
        else:
            lines.append(f"  open: {one} needs {game.points_needed(one)}, {two} needs {game.points_needed(two)}")
    if result.over:
        lines.append(f"Over. {'Winner: ' + result.winner if result.winner else 'Level'}; margin {result.margin}")
    else:
        lines.append(f"Next dealer: {result.next_dealer}")
    return "\n".join(lines) + "\n\n"


def render_partnership_sheet(path, record, result: PartnershipResult) -> str:
    """A partnership game: each deal's two boards, the side that won the deal, the sides' totals."""
    one, two = result.sides
    lines = [
        f"== {record.name or path} ({record.rules.preset}): {side_name(one)} v {side_name(two)}",
        f"{'#':>3}  {'board':<5} {'dealer':<10} {'result':<10} {'winner':<10} {'points':>6}",
    ]
    for deal in result.deals:
        for board_number, board in enumerate(deal.boards, start=1):
            doubled = " (spade x2)" if board.doubled else ""
            lines.append(
                f"{deal.number:>3}  {board_number:<5} {board.dealer:<10} {board.result:<10} {board.winner or '-':<10}"
                f" {board.points:>6}{doubled}"
            )
        won = f"{side_name(deal.winner)} by {deal.points}" if deal.winner else "tied"
        lines.append(f"     deal {deal.number}: {won}")
    game = result.game
    lines.append(
        f"Game: {side_name(one)} {game.hand_points[one]} ({game.boxes[one]} boxes), "
        f"{side_name(two)} {game.hand_points[two]} ({game.boxes[two]} boxes)"
    )
    if game.over:
        for line in game.breakdown:
            lines.append(f"    {side_name(line.player):<20} {line.label:<40} {line.amount:>6}")
        lines.append(
            f"  {side_name(game.winner)} win {game.final[game.winner]} to {game.final[game.loser]},"
            f" margin {game.margin}"
        )
    else:
        lines.append(
            f"  open: {side_name(one)} need {game.points_needed(one)}, {side_name(two)} need {game.points_needed(two)}"
        )
        lines.append(f"Next to deal: {side_name(result.next_dealer)}")
    return "\n".join(lines) + "\n\n"
