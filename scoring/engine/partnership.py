"""Partnership gin (docs/rules.md, "Partnership gin"): four players, two sides, two boards a deal (pure Python).

Each board's hand is scored as a two-handed hand (score.py's own checks and figures); a deal adds up
what each side's two players won on the two boards, and the side with more wins the deal by the
difference. The game is played between the two sides: a side is the tuple of its two players
(1st and 3rd, 2nd and 4th), and every figure of the game is keyed by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.engine.rules import RuleSet
from scoring.engine.score import (
    GameResult,
    HandError,
    HandFacts,
    HandResult,
    Player,
    _OpenGame,
    _settle,
    _snapshot,
    _validate_hand,
    check_hand_count,
    score_hand,
)
from scoring.engine.text import _

Side = tuple[Player, Player]
BOARDS = 2


@dataclass(frozen=True)
class DealResult:
    """One deal: its two boards (a board not yet recorded is None) and what the deal gave a side."""

    number: int
    dealer: Side  # the side that dealt both boards
    boards: tuple[HandResult | None, HandResult | None]
    winner: Side | None  # None: a tied deal, or one still waiting for a board
    loser: Side | None
    points: int
    settled: bool  # both boards are in

    @property
    def boxes(self) -> int:
        return 1 if self.winner is not None else 0


@dataclass(frozen=True)
class PartnershipResult:
    players: tuple[Player, Player, Player, Player]
    sides: tuple[Side, Side]
    deals: tuple[DealResult, ...]
    game: GameResult  # keyed by side
    over: bool
    next_dealer: Side | None  # the side that deals the next deal (None once the game is over)

    @property
    def games(self) -> tuple[GameResult, ...]:
        return (self.game,)

    @property
    def winner(self) -> Side | None:
        return self.game.winner

    @property
    def margin(self) -> int | None:
        return self.game.margin


def sides_of(players: Sequence[Player]) -> tuple[Side, Side]:
    """The two sides: the 1st and 3rd players against the 2nd and 4th."""
    return (players[0], players[2]), (players[1], players[3])


def side_of(sides: tuple[Side, Side], player: Player) -> Side:
    return sides[0] if player in sides[0] else sides[1]


def board_pairs(rules: RuleSet, players: Sequence[Player], deal: int) -> tuple[Side, Side]:
    """Who plays whom on boards 1 and 2 of deal ``deal`` (1-based), each as (1st side's player, 2nd side's).

    ``fixed``: the 1st plays the 2nd and the 3rd the 4th on every deal; ``alternate``: so on odd
    deals, and on even deals the 1st plays the 4th and the 3rd the 2nd.
    """
    one, two, three, four = players
    if rules.partner_opponents == "alternate" and deal % 2 == 0:
        return (one, four), (three, two)
    return (one, two), (three, four)


def check_players(players: Sequence[Player], first_dealer: Player) -> tuple[Player, Player, Player, Player]:
    if len(players) != 4 or len(set(players)) != 4:
        raise HandError(None, "players", _("a partnership game needs four different players"))
    if first_dealer not in players:
        raise HandError(
            None,
            "first_dealer",
            _("first_dealer must be one of the players, not %(value)s") % {"value": repr(first_dealer)},
        )
    return players[0], players[1], players[2], players[3]


def score_partnership(
    rules: RuleSet,
    players: Sequence[Player],
    first_dealer: Player,
    deals: Sequence[Sequence[HandFacts | None]],
) -> PartnershipResult:
    """Score a partnership game from its deals, each (board 1's facts, board 2's facts).

    Only the last deal may wait for a board (None): its recorded board is checked and scored, the
    deal is not settled and its side deals on. Raises HandError for the first fault, naming the deal
    (``hand``), the board (None for the deal as a whole) and the field.
    """
    if not rules.partnership:
        raise HandError(None, "rules", _("these rules are for two players: choose the partnership preset"))
    quartet = check_players(players, first_dealer)
    sides = sides_of(quartet)
    check_hand_count(len(deals))
    game = _OpenGame(1, dict.fromkeys(sides, 0), dict.fromkeys(sides, 0), dict.fromkeys(sides, 0))
    dealer = side_of(sides, first_dealer)
    results: list[DealResult] = []
    for number, boards in enumerate(deals, start=1):
        last = number == len(deals)
        if len(boards) != BOARDS or not all(boards) and not (last and any(boards)):
            raise HandError(
                number,
                "boards",
                _("hand %(number)s: a deal has two boards, each a hand") % {"number": number},
            )
        if game.over:
            raise HandError(
                number,
                "boards",
                _("hand %(number)s: the game is already over, so no more hands can be recorded") % {"number": number},
            )
        scored = tuple(
            None if facts is None else _score_board(rules, pair, facts, number, board, dealer)
            for board, (pair, facts) in enumerate(zip(board_pairs(rules, quartet, number), boards, strict=True), 1)
        )
        deal = _settle_deal(sides, number, dealer, scored)
        if deal.winner is not None:
            game.hand_points[deal.winner] += deal.points
            game.boxes[deal.winner] += 1
            game.wins[deal.winner] += 1
            if game.hand_points[deal.winner] >= rules.target:
                game.over = True
                game.winner = deal.winner
                game.closed_by_hand = number
                game.settled = _settle(rules, sides, game)
        results.append(deal)
        dealer = _next_dealer(rules, sides, deal)
    return PartnershipResult(
        players=quartet,
        sides=sides,
        deals=tuple(results),
        game=_snapshot(rules, sides, game),
        over=game.over,
        next_dealer=None if game.over else dealer,
    )


def _score_board(
    rules: RuleSet, pair: Side, facts: HandFacts, number: int, board: int, dealing_side: Side
) -> HandResult:
    """One board's hand, scored as a two-handed hand; its dealer is the dealing side's player there."""
    upcard = _validate_hand(rules, pair, facts, number, False, board)
    dealer = pair[0] if pair[0] in dealing_side else pair[1]
    if facts.ending == "dead":
        return HandResult(number, dealer, "dead", None, None, 0, 0, False, ())
    result, winner, points, doubled = score_hand(rules, pair, facts, upcard)
    loser = pair[1] if winner == pair[0] else pair[0]
    return HandResult(number, dealer, result, winner, loser, points, 0, doubled, ())


def _settle_deal(
    sides: tuple[Side, Side], number: int, dealer: Side, boards: tuple[HandResult | None, ...]
) -> DealResult:
    """The side whose players won more on the two boards wins the deal by the difference; equal is a tied deal."""
    settled = all(board is not None for board in boards)
    won = dict.fromkeys(sides, 0)
    for board in boards:
        if board is not None and board.winner is not None:
            won[side_of(sides, board.winner)] += board.points
    first, second = sides
    if not settled or won[first] == won[second]:
        return DealResult(number, dealer, (boards[0], boards[1]), None, None, 0, settled)
    winner, loser = (first, second) if won[first] > won[second] else (second, first)
    return DealResult(number, dealer, (boards[0], boards[1]), winner, loser, won[winner] - won[loser], True)


def _next_dealer(rules: RuleSet, sides: tuple[Side, Side], deal: DealResult) -> Side:
    """The side that deals the next deal: after a tied deal (or one still waiting for a board) the same side."""
    if deal.winner is None:
        return deal.dealer
    if rules.next_dealer == "loser":
        return deal.loser
    if rules.next_dealer == "winner":
        return deal.winner
    return sides[1] if deal.dealer == sides[0] else sides[0]
