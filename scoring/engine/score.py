"""The rules engine: recorded facts + a rule set -> every score (pure Python).

Nothing here imports Django. Players are any hashable keys (names in a game
record, primary keys in the database); the engine never looks inside them.
The rule book is docs/rules.md; this module follows it line by line.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from scoring.engine.cards import CardError, card_name, card_rank, card_suit, card_value, parse_card
from scoring.engine.rules import RuleError, RuleSet, check_two_players
from scoring.engine.text import _, gettext_noop

Player = Hashable

ENDINGS = ("knock", "gin", "big_gin", "dead")
RESULTS = ("knock", "undercut", "gin", "big_gin", "dead")
MAX_DEADWOOD = 98  # two each of K, Q, J, 10 and 9 with no run
HAND_FIELDS = ("ending", "by", "knocker_deadwood", "defender_deadwood", "upcard")
# The most hands one game (or Hollywood sitting) holds. The longest real sittings run to a few hundred
# hands; a sheet beyond this did not happen at a table, and scoring, storing and showing it would cost
# every later reader of the game (docs/game-record.md, "How many hands").
MAX_HANDS = 1000


class HandError(ValueError):
    """A hand that cannot be scored. ``hand`` is 1-based; ``field`` names the fact.

    ``message`` stands alone ("hand 3: defender_deadwood must be between 0 and 98, not 120"); ``detail``,
    when given, says the same after the field's own label on a form ("Other player's deadwood: enter a
    number from 0 to 98, not 120"), so that no language has to make a verb agree with a label it
    cannot see, and the label is not said twice. ``board`` (1 or 2) is the board of a partnership deal,
    None for a two-handed hand or the deal as a whole."""

    def __init__(
        self, hand: int | None, field: str, message: str, detail: str | None = None, *, board: int | None = None
    ):
        super().__init__(message)
        self.hand = hand
        self.field = field
        self.message = message
        self.detail = detail
        self.board = board


@dataclass(frozen=True)
class HandFacts:
    """What the players record for one hand, and nothing else."""

    ending: str
    by: Player | None = None
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    upcard: str | None = None


@dataclass(frozen=True)
class HandResult:
    number: int
    dealer: Player
    result: str
    winner: Player | None
    loser: Player | None
    points: int
    boxes: int
    doubled: bool
    games: tuple[int, ...]  # 1-based numbers of the games this hand's points went into


_new = object.__new__


def _made_at_once(cls: type) -> Callable[..., Any]:
    """A maker of the frozen dataclass ``cls`` from every field's value, in order, its fields set at once: a frozen
    dataclass's ``__init__`` sets each through ``object.__setattr__``, a quarter of scoring a sitting (every hand
    POST scores all its hands, from the facts of each). What it makes is the same: as frozen, equal to and hashed as
    one made by ``__init__``."""
    names = tuple(made_field.name for made_field in fields(cls))
    count = len(names)

    def made(*values: Any) -> Any:
        if len(values) != count:  # refused as strict zip would, at less cost
            raise TypeError(f"{cls.__name__} takes {count} values, not {len(values)}")
        instance = _new(cls)
        instance.__dict__.update(zip(names, values, strict=False))  # counted above
        return instance

    return made


_hand_result: Callable[..., HandResult] = _made_at_once(HandResult)
# ``HandFacts(ending, by, knocker_deadwood, defender_deadwood, upcard)``, every field given: a stored hand's facts.
facts_at_once: Callable[..., HandFacts] = _made_at_once(HandFacts)


@dataclass(frozen=True)
class BonusLine:
    label: str
    player: Player
    amount: int


@dataclass(frozen=True)
class GameResult:
    number: int
    target: int
    hand_points: dict[Player, int]
    boxes: dict[Player, int]
    over: bool
    winner: Player | None
    loser: Player | None
    final: dict[Player, int] | None
    margin: int | None
    closed_by_hand: int | None
    breakdown: tuple[BonusLine, ...] = ()
    by_time: bool = False  # ended by time (docs/rules.md, "A game ended by time"), not on the target

    def points_needed(self, player: Player) -> int:
        return max(self.target - self.hand_points[player], 0)


@dataclass(frozen=True)
class SessionResult:
    players: tuple[Player, Player]
    hands: tuple[HandResult, ...]
    games: tuple[GameResult, ...]
    over: bool
    next_dealer: Player | None
    time_called_after: int | None = None  # the hands recorded when time was called; None: not called

    def net(self, player: Player) -> int:
        """The player's margins won minus margins lost over the closed games."""
        total = 0
        for game in self.games:
            if game.over:
                total += game.margin if game.winner == player else -game.margin
        return total

    @property
    def winner(self) -> Player | None:
        """Who won the sitting (the better net over its games); None while open or level."""
        if not self.over:
            return None
        first, second = self.players
        net = self.net(first)
        if net == 0:
            return None
        return first if net > 0 else second

    @property
    def margin(self) -> int | None:
        """The sitting's result: the sum of its games' margins, from the winner's side."""
        if not self.over:
            return None
        return abs(self.net(self.players[0]))


def other_player(players: tuple[Player, Player], player: Player) -> Player:
    return players[1] if player == players[0] else players[0]


def effective_knock_limit(rules: RuleSet, upcard: int | None) -> int:
    """The highest deadwood one may knock with; 0 means gin only."""
    if not rules.oklahoma or upcard is None:
        return rules.knock_limit
    if card_rank(upcard) == 1 and rules.oklahoma_ace == "gin_only":
        return 0
    return card_value(upcard)


def _is_whole_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def board_place(number: int, board: int | None) -> int | str:
    """How a message names a hand: its number, or for a partnership board "2, board 1" (hand 2, board 1)."""
    if board is None:
        return number
    return _("%(number)s, board %(board)s") % {"number": number, "board": board}


def _check_deadwood(
    number: int, name: str, value: Any, low: int, high: int, message: str, board: int | None = None
) -> int:
    """``message`` (marked with gettext_noop, with %(number)s and %(name)s) asks for the missing figure: it is
    translated only when it is said (every valid hand of every sheet passes here twice)."""
    if type(value) is int and low <= value <= high:  # the usual figure, answered before any message is made
        return value
    place = board_place(number, board)
    if value is None:
        raise HandError(
            number,
            name,
            _(message) % {"number": place, "name": name},
            _("enter a number from %(low)s to %(high)s") % {"low": low, "high": high},
            board=board,
        )
    if not _is_whole_number(value):
        raise HandError(
            number,
            name,
            _("hand %(number)s: %(name)s must be a whole number, not %(value)s")
            % {"number": place, "name": name, "value": repr(value)},
            board=board,
        )
    if not low <= value <= high:
        raise HandError(
            number,
            name,
            _("hand %(number)s: %(name)s must be between %(low)s and %(high)s, not %(value)s")
            % {"number": place, "name": name, "low": low, "high": high, "value": value},
            _("enter a number from %(low)s to %(high)s, not %(value)s") % {"low": low, "high": high, "value": value},
            board=board,
        )
    return value


def _validate_hand(
    rules: RuleSet,
    players: tuple[Player, Player],
    facts: HandFacts,
    number: int,
    session_over: bool,
    board: int | None = None,
) -> int | None:
    """Refuse a hand that breaks the rules; return its parsed upcard (or None).

    ``board``: the hand is that board of partnership deal ``number``; its refusals name the board too.

    The usual hand of a game without upcards is accepted at once (every save scores every hand of its sheet
    again): a knock, gin or big gin by a player with figures in range, or a dead hand with none. Any other
    goes through every check (``_checked_hand``), which answers the same for these (tests/test_engine.py).
    """
    if not session_over and not rules.oklahoma and (facts.upcard is None or facts.upcard == ""):
        ending, defender = facts.ending, facts.defender_deadwood
        if ending == "dead":
            if facts.by is None and facts.knocker_deadwood is None and defender is None:
                return None
        elif type(defender) is int and 0 <= defender <= MAX_DEADWOOD and facts.by in players:
            knocker = facts.knocker_deadwood
            if ending == "knock":
                if type(knocker) is int and 1 <= knocker <= rules.knock_limit:
                    return None
            elif knocker is None and (ending == "gin" or (ending == "big_gin" and rules.big_gin_allowed)):
                return None
    return _checked_hand(rules, players, facts, number, session_over, board)


def _checked_hand(
    rules: RuleSet,
    players: tuple[Player, Player],
    facts: HandFacts,
    number: int,
    session_over: bool,
    board: int | None,
) -> int | None:
    """``_validate_hand``'s every check, in the order its refusals are said."""
    place = number if board is None else board_place(number, board)

    def refuse(field: str, message: str) -> HandError:
        return HandError(number, field, message, board=board)

    if facts.ending not in ENDINGS:
        raise refuse(
            "ending",
            _("hand %(number)s: ending must be one of %(endings)s, not %(ending)s")
            % {"number": place, "endings": ", ".join(ENDINGS), "ending": repr(facts.ending)},
        )
    if session_over:
        raise refuse(
            "ending",
            _("hand %(number)s: the game is already over, so no more hands can be recorded") % {"number": place},
        )
    upcard = None
    if facts.upcard is not None and facts.upcard != "":
        try:
            upcard = parse_card(facts.upcard)
        except CardError as error:
            raise refuse("upcard", _("hand %(number)s: upcard %(error)s") % {"number": place, "error": error}) from None
    if facts.ending == "dead":
        for name in ("by", "knocker_deadwood", "defender_deadwood"):
            if getattr(facts, name) is not None:
                raise refuse(name, _("hand %(number)s: a dead hand has no %(name)s") % {"number": place, "name": name})
        return upcard
    if facts.by not in players:
        raise refuse(
            "by",
            _("hand %(number)s: 'by' must be one of the players (%(one)s, %(two)s), not %(by)s")
            % {"number": place, "one": players[0], "two": players[1], "by": repr(facts.by)},
        )
    if rules.oklahoma and upcard is None:
        raise refuse("upcard", _("hand %(number)s: an Oklahoma hand needs the upcard (e.g. 7S)") % {"number": place})
    if facts.ending == "big_gin" and not rules.big_gin_allowed:
        raise refuse("ending", _("hand %(number)s: big gin is not allowed under these rules") % {"number": place})
    if facts.ending == "knock":
        limit = effective_knock_limit(rules, upcard)
        if limit == 0:
            if rules.oklahoma:
                message = _("hand %(number)s: the upcard is %(upcard)s, an ace, so this hand can only end in gin")
            else:
                message = _("hand %(number)s: these rules allow gin only, no knocking")
            raise refuse("ending", message % {"number": place, "upcard": card_name(upcard or 0)})
        knocker_deadwood = facts.knocker_deadwood
        if knocker_deadwood == 0 and _is_whole_number(knocker_deadwood):
            raise refuse(
                "knocker_deadwood",
                _("hand %(number)s: knocking with 0 deadwood is gin; record it as gin") % {"number": place},
            )
        if _is_whole_number(knocker_deadwood) and knocker_deadwood > limit:
            if rules.oklahoma:
                message = _(
                    "hand %(number)s: knocker_deadwood %(deadwood)s is over the knock limit of %(limit)s"
                    " (the upcard is %(upcard)s)"
                )
            else:
                message = _("hand %(number)s: knocker_deadwood %(deadwood)s is over the knock limit of %(limit)s")
            raise refuse(
                "knocker_deadwood",
                message
                % {"number": place, "deadwood": knocker_deadwood, "limit": limit, "upcard": card_name(upcard or 0)},
            )
        _check_deadwood(
            number,
            "knocker_deadwood",
            knocker_deadwood,
            1,
            limit,
            gettext_noop("hand %(number)s: enter the knocker's deadwood (%(name)s)"),
            board,
        )
    elif facts.knocker_deadwood not in (None, 0) or isinstance(facts.knocker_deadwood, bool):
        raise refuse(
            "knocker_deadwood",
            (
                _("hand %(number)s: a gin has no knocker deadwood")
                if facts.ending == "gin"
                else _("hand %(number)s: a big gin has no knocker deadwood")
            )
            % {"number": place},
        )
    _check_deadwood(
        number,
        "defender_deadwood",
        facts.defender_deadwood,
        0,
        MAX_DEADWOOD,
        gettext_noop("hand %(number)s: enter the defender's deadwood (%(name)s)"),
        board,
    )
    return upcard


def _hand_outcome(rules: RuleSet, players: tuple[Player, Player], facts: HandFacts) -> tuple[str, Player, int]:
    """(result, winner, points before any doubling) of a valid, non-dead hand."""
    by = facts.by
    defender_deadwood = facts.defender_deadwood
    if facts.ending == "gin":
        return "gin", by, defender_deadwood + rules.gin_bonus
    if facts.ending == "big_gin":
        return "big_gin", by, defender_deadwood + rules.big_gin_bonus
    knocker_deadwood = facts.knocker_deadwood
    undercut = defender_deadwood < knocker_deadwood or (defender_deadwood == knocker_deadwood and rules.undercut_on_tie)
    if undercut:
        return "undercut", other_player(players, by), knocker_deadwood - defender_deadwood + rules.undercut_bonus
    return "knock", by, defender_deadwood - knocker_deadwood


def score_hand(
    rules: RuleSet, players: tuple[Player, Player], facts: HandFacts, upcard: int | None
) -> tuple[str, Player, int, bool]:
    """(result, winner, points, doubled) of a valid, non-dead hand, the spade double applied."""
    result, winner, points = _hand_outcome(rules, players, facts)
    # The upcard rules are Oklahoma's: elsewhere a recorded upcard is information only.
    doubled = rules.oklahoma and rules.spade_double and upcard is not None and card_suit(upcard) == "S"
    return result, winner, points * 2 if doubled else points, doubled


@dataclass
class _OpenGame:
    number: int
    hand_points: dict[Player, int]
    boxes: dict[Player, int]
    wins: dict[Player, int]
    over: bool = False
    winner: Player | None = None
    closed_by_hand: int | None = None
    by_time: bool = False
    settled: GameResult | None = field(default=None)


def _settle(rules: RuleSet, players: tuple[Player, Player], game: _OpenGame) -> GameResult:
    """Apply the end-of-game bonuses in the rule book's order (a game ended by time: its own game bonus)."""
    winner = game.winner
    loser = other_player(players, winner)
    lines: list[BonusLine] = []
    score = {winner: game.hand_points[winner], loser: game.hand_points[loser]}
    lines.append(BonusLine(_("Hand points"), winner, score[winner]))
    lines.append(BonusLine(_("Hand points"), loser, score[loser]))
    shutout = game.hand_points[loser] == 0
    if shutout and rules.shutout_mode == "double_hands":
        lines.append(BonusLine(_("Shutout: hand points doubled"), winner, score[winner]))
        score[winner] *= 2
    for player in (winner, loser):
        if game.boxes[player] and rules.box_bonus:
            amount = game.boxes[player] * rules.box_bonus
            label = _("Boxes: %(count)s × %(bonus)s") % {"count": game.boxes[player], "bonus": rules.box_bonus}
            lines.append(BonusLine(label, player, amount))
            score[player] += amount
    game_bonus = rules.timed_game_bonus if game.by_time else rules.game_bonus
    if game_bonus:
        label = _("Game bonus (time called)") if game.by_time else _("Game bonus")
        lines.append(BonusLine(label, winner, game_bonus))
        score[winner] += game_bonus
    if shutout and rules.shutout_mode == "add" and rules.shutout_bonus:
        lines.append(BonusLine(_("Shutout bonus"), winner, rules.shutout_bonus))
        score[winner] += rules.shutout_bonus
    if rules.line_bonus and score[winner] - score[loser] >= rules.line_bonus_margin:
        lines.append(
            BonusLine(
                _("Line bonus (won by %(margin)s or more)") % {"margin": rules.line_bonus_margin},
                winner,
                rules.line_bonus,
            )
        )
        score[winner] += rules.line_bonus
    if shutout and rules.shutout_mode == "double_total":
        lines.append(BonusLine(_("Shutout: total doubled"), winner, score[winner]))
        score[winner] *= 2
    return GameResult(
        number=game.number,
        target=rules.target,
        hand_points=dict(game.hand_points),
        boxes=dict(game.boxes),
        over=True,
        winner=winner,
        loser=loser,
        final=score,
        margin=score[winner] - score[loser],
        closed_by_hand=game.closed_by_hand,
        breakdown=tuple(lines),
        by_time=game.by_time,
    )


def _snapshot(rules: RuleSet, players: tuple[Player, Player], game: _OpenGame) -> GameResult:
    if game.over:
        return game.settled
    return GameResult(
        number=game.number,
        target=rules.target,
        hand_points=dict(game.hand_points),
        boxes=dict(game.boxes),
        over=False,
        winner=None,
        loser=None,
        final=None,
        margin=None,
        closed_by_hand=None,
    )


def _next_dealer(rules: RuleSet, players: tuple[Player, Player], hand: HandResult) -> Player:
    if hand.result == "dead":
        return hand.dealer  # a dead hand is dealt again by the same dealer
    if rules.next_dealer == "loser":
        return hand.loser
    if rules.next_dealer == "winner":
        return hand.winner
    return other_player(players, hand.dealer)


def check_hand_count(count: int) -> None:
    """Refuse a sheet of more than MAX_HANDS hands, naming the first hand over the cap."""
    if count > MAX_HANDS:
        number = MAX_HANDS + 1
        raise HandError(
            number,
            "hands",
            _("hand %(number)s: a game holds at most %(limit)s hands") % {"number": number, "limit": MAX_HANDS},
        )


def check_time_call(rules: RuleSet, time_called_after: Any, hand_count: int) -> None:
    """Refuse a time call that cannot have happened, naming ``time_called_after``.

    ``time_called_after`` is how many hands were recorded when time was called
    (None: it was not); it cannot be more than the hands there are.
    """
    if time_called_after is None:
        return
    name = "time_called_after"
    if rules.partnership:
        raise HandError(None, name, _("a partnership game is not ended by time: time cannot be called"))
    if rules.hollywood:
        raise HandError(None, name, _("a Hollywood sitting is not ended by time: time cannot be called"))
    if rules.knock_limit == 0 and not rules.oklahoma:
        raise HandError(None, name, _("straight gin (gin only) is not ended by time: time cannot be called"))
    if not _is_whole_number(time_called_after) or time_called_after < 0:
        raise HandError(
            None,
            name,
            _("%(name)s must be a whole number of hands (0 or more), not %(value)s")
            % {"name": name, "value": repr(time_called_after)},
        )
    if time_called_after > hand_count:
        raise HandError(
            None,
            name,
            _("%(name)s is %(value)s, but only %(count)s hands are recorded")
            % {"name": name, "value": time_called_after, "count": hand_count},
        )


def score_session(
    rules: RuleSet,
    players: Sequence[Player],
    first_dealer: Player,
    hands: Sequence[HandFacts],
    time_called_after: int | None = None,
) -> SessionResult:
    """Score a whole sitting (one game, or three for Hollywood) from its facts.

    ``time_called_after``: time was called when that many hands were recorded; the game then
    ends after the next hand that leaves the hand points unequal (docs/rules.md, "A game ended
    by time"). A game already won on its target by then keeps that result: the call came too late.
    Raises HandError for the first hand that breaks the rules (``hand`` None for an error in the
    players, first dealer or time call).
    """
    try:
        check_two_players(rules)  # partnership.score_partnership scores four players' deals
    except RuleError as error:
        raise HandError(None, error.field, error.message) from None
    if len(players) != 2 or players[0] == players[1]:
        raise HandError(None, "players", _("a game needs exactly two different players"))
    pair = (players[0], players[1])
    if first_dealer not in pair:
        raise HandError(
            None,
            "first_dealer",
            _("first_dealer must be one of the players, not %(value)s") % {"value": repr(first_dealer)},
        )
    check_hand_count(len(hands))
    check_time_call(rules, time_called_after, len(hands))

    games = [
        _OpenGame(number, dict.fromkeys(pair, 0), dict.fromkeys(pair, 0), dict.fromkeys(pair, 0))
        for number in range(1, rules.games_per_session + 1)
    ]
    results: list[HandResult] = []
    dealer = first_dealer
    open_games = list(games)  # the games not over yet, in their numbers' order (made again when one closes)
    for number, facts in enumerate(hands, start=1):
        upcard = _validate_hand(rules, pair, facts, number, not open_games)
        closed = False
        if facts.ending == "dead":
            hand = _hand_result(number, dealer, "dead", None, None, 0, 0, False, ())
        else:
            result, winner, points, doubled = score_hand(rules, pair, facts, upcard)
            boxes = 2 if doubled and rules.spade_double_boxes else 1
            # Hollywood flow: every open game where the winner already has a win,
            # plus the lowest-numbered open game where they have none.
            receiving = []
            first_without = None
            for game in open_games:
                if game.wins[winner]:
                    receiving.append(game)
                elif first_without is None:
                    first_without = game
            if first_without is not None:
                if receiving:
                    receiving.append(first_without)
                    receiving.sort(key=_game_number)
                else:
                    receiving = [first_without]
            for game in receiving:
                game.hand_points[winner] += points
                game.boxes[winner] += boxes
                game.wins[winner] += 1
                if game.hand_points[winner] >= rules.target:
                    game.over = True
                    game.winner = winner
                    game.closed_by_hand = number
                    game.settled = _settle(rules, pair, game)
                    closed = True
            hand = _hand_result(
                number,
                dealer,
                result,
                winner,
                other_player(pair, winner),
                points,
                boxes,
                doubled,
                tuple([game.number for game in receiving]),
            )
        if time_called_after is not None and number > time_called_after:
            _end_by_time(rules, pair, games[0], number)
            closed = True
        if closed:
            open_games = [game for game in games if not game.over]
        results.append(hand)
        dealer = _next_dealer(rules, pair, hand)

    over = all(game.over for game in games)
    return SessionResult(
        players=pair,
        hands=tuple(results),
        games=tuple(_snapshot(rules, pair, game) for game in games),
        over=over,
        next_dealer=None if over else dealer,
        time_called_after=time_called_after,
    )


def _game_number(game: _OpenGame) -> int:
    return game.number


def _end_by_time(rules: RuleSet, players: tuple[Player, Player], game: _OpenGame, number: int) -> None:
    """After a hand played once time is called: an open game whose hand points differ ends, the player ahead winning."""
    first, second = players
    if game.over or game.hand_points[first] == game.hand_points[second]:
        return
    game.over = True
    game.by_time = True
    game.winner = first if game.hand_points[first] > game.hand_points[second] else second
    game.closed_by_hand = number
    game.settled = _settle(rules, players, game)


def dealer_after(
    rules: RuleSet, players: Sequence[Player], first_dealer: Player, hands: Sequence[HandResult]
) -> Player:
    """Who deals the hand after ``hands``, even once the sitting is over.

    ``SessionResult.next_dealer`` is None for a finished sitting; a rematch
    ("play again") carries the dealer on from the sitting's last hand.
    """
    if not hands:
        return first_dealer
    return _next_dealer(rules, (players[0], players[1]), hands[-1])


def running_totals(session: SessionResult) -> tuple[tuple[dict[Player, int], ...], ...]:
    """Each game's hand points after each hand: the running columns of a paper sheet.

    One entry per hand, holding one {player: points} per game of the sitting.
    """
    return running_columns(
        session.players, len(session.games), ((hand.winner, hand.points, hand.games) for hand in session.hands)
    )


def running_columns(
    players: Sequence[Player], game_count: int, hands: Iterable[tuple[Player | None, int, Sequence[int]]]
) -> tuple[tuple[dict[Player, int], ...], ...]:
    """``running_totals`` from each hand's (winner, points, games it scored in), e.g. as stored."""
    totals = [dict.fromkeys(players, 0) for _ in range(game_count)]
    rows = []
    for winner, points, scored_in in hands:
        for number in scored_in:
            totals[number - 1][winner] += points
        rows.append(tuple(map(dict, totals)))  # each game's totals copied (map: no generator per hand)
    return tuple(rows)
