"""The JSON game record (docs/game-record.md), in and out (pure Python).

A record carries only facts; ``expect`` is what the engine derives from them. A partnership record
(four players, each entry of ``hands`` a deal of two boards) is read into a PartnershipRecord.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.engine.card_facts import CardFactError, check_facts
from scoring.engine.overrides import read_rules
from scoring.engine.partnership import PartnershipResult, Side, score_partnership
from scoring.engine.rules import PARTNERSHIP_PRESETS, RuleError, RuleSet
from scoring.engine.score import (
    HAND_FIELDS,
    HandError,
    HandFacts,
    SessionResult,
    board_place,
    check_hand_count,
    check_time_call,
    score_session,
)
from scoring.engine.text import _

# Facts a hand may carry in a record; ``cards`` holds the dealt cards when entered.
RECORD_HAND_FIELDS = (*HAND_FIELDS, "cards")


class RecordError(ValueError):
    """An invalid record: ``hand`` (1-based, or None) and ``field`` say where; in a partnership
    record (``partnership``) ``board`` too (1 or 2, None for the deal or the record as a whole)."""

    def __init__(
        self, hand: int | None, field: str, message: str, board: int | None = None, *, partnership: bool = False
    ):
        super().__init__(message)
        self.hand = hand
        self.field = field
        self.message = message
        self.board = board
        self.partnership = partnership

    def as_json(self) -> dict[str, Any]:
        where: dict[str, Any] = {"hand": self.hand, "field": self.field}
        if self.partnership:
            where = {"hand": self.hand, "board": self.board, "field": self.field}
        return {"error": where, "message": self.message}


@dataclass(frozen=True)
class GameRecord:
    rules: RuleSet
    rules_spec: dict[str, Any]
    players: tuple[str, str]
    first_dealer: str
    hands: tuple[HandFacts, ...]
    cards: tuple[Any, ...]  # per hand: the entered cards, or None
    name: str = ""
    source: str = ""
    time_called_after: int | None = None  # hands recorded when time was called (docs/rules.md); None: never


@dataclass(frozen=True)
class PartnershipRecord:
    """A partnership game's record: four players (1st and 3rd against 2nd and 4th) and its deals."""

    rules: RuleSet
    rules_spec: dict[str, Any]
    players: tuple[str, str, str, str]
    first_dealer: str
    deals: tuple[tuple[HandFacts, HandFacts], ...]
    cards: tuple[tuple[Any, Any], ...]  # per deal, per board: the entered cards, or None
    name: str = ""
    source: str = ""


def side_name(side: Side) -> str:
    """A side as a record names it: its players' names joined with " & " ("Ann & Cat")."""
    return " & ".join(side)


def _names_partnership(data: dict[str, Any]) -> bool:
    """The record's rules name a partnership preset (read before the rules are, so that an error in
    them is reported in a partnership record's shape)."""
    rules = data.get("rules")
    preset = rules.get("preset") if isinstance(rules, dict) else None
    return isinstance(preset, str) and preset.strip().lower() in PARTNERSHIP_PRESETS


def _parse_players(data: dict[str, Any]) -> tuple[str, str]:
    players = data.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(name, str) and name.strip() for name in players)
    ):
        raise RecordError(None, "players", _('players must be a list of two names, e.g. ["Ann", "Bob"]'))
    if players[0].strip().casefold() == players[1].strip().casefold():
        raise RecordError(None, "players", _("the two players must have different names"))
    return players[0].strip(), players[1].strip()


def _parse_hand(number: int, raw: Any, board: int | None = None) -> tuple[HandFacts, Any]:
    place = board_place(number, board)

    def refuse(field: str, message: str) -> RecordError:
        return RecordError(number, field, message, board, partnership=board is not None)

    if not isinstance(raw, dict):
        raise refuse("ending", _("hand %(number)s must be an object with an 'ending'") % {"number": place})
    for key in raw:
        if key not in RECORD_HAND_FIELDS:
            raise refuse(
                key,
                _("hand %(number)s: %(key)s is not a hand fact (known: %(known)s)")
                % {"number": place, "key": repr(key), "known": ", ".join(RECORD_HAND_FIELDS)},
            )
    ending = raw.get("ending")
    if not isinstance(ending, str):
        message = _("hand %(number)s: ending must be one of knock, gin, big_gin, dead")
        raise refuse("ending", message % {"number": place})
    by = raw.get("by")
    if by is not None and not isinstance(by, str):
        raise refuse("by", _("hand %(number)s: 'by' must be a player's name") % {"number": place})
    upcard = raw.get("upcard")
    if upcard is not None and not isinstance(upcard, str):
        raise refuse("upcard", _('hand %(number)s: upcard must be text such as "7S"') % {"number": place})
    facts = HandFacts(
        ending=ending,
        by=by.strip() if isinstance(by, str) else None,
        knocker_deadwood=raw.get("knocker_deadwood"),
        defender_deadwood=raw.get("defender_deadwood"),
        upcard=upcard.strip().upper() if upcard else None,
    )
    return facts, raw.get("cards")


def parse_record(data: Any) -> GameRecord | PartnershipRecord:
    """Validate a record's shape (not yet scored); raise RecordError naming the place.

    A hand of the wrong shape is reported only after the hands before it are
    scored, so the error always names the first bad hand.
    """
    if not isinstance(data, dict):
        raise RecordError(None, "record", _("a game record must be a JSON object"))
    if _names_partnership(data):
        return _parse_partnership(data)
    try:
        rules = read_rules(data.get("rules", {"preset": "standard"}))
    except RuleError as error:
        raise RecordError(None, error.field, _("rules: %(message)s") % {"message": error.message}) from None
    players = _parse_players(data)
    first_dealer = data.get("first_dealer")
    if not isinstance(first_dealer, str) or first_dealer.strip() not in players:
        raise RecordError(None, "first_dealer", _("first_dealer must be the name of one of the players"))
    raw_hands = data.get("hands", [])
    if not isinstance(raw_hands, list):
        raise RecordError(None, "hands", _("hands must be a list"))
    time_called_after = data.get("time_called_after")
    try:
        check_hand_count(len(raw_hands))  # before reading any hand: an oversized sheet costs nothing more
        check_time_call(rules, time_called_after, len(raw_hands))
    except HandError as error:
        raise RecordError(error.hand, error.field, error.message) from None
    parsed = []
    for number, raw in enumerate(raw_hands, start=1):
        try:
            parsed.append(_parse_hand(number, raw))
        except RecordError:
            # The first bad hand is named: an earlier hand that breaks a rule comes first (a time
            # called later than the hands read so far has not yet happened among them).
            called = time_called_after if time_called_after is not None and time_called_after < len(parsed) else None
            score_record(_record(data, rules, players, first_dealer, parsed, called))
            raise
    return _record(data, rules, players, first_dealer, parsed, time_called_after)


def _record(
    data: dict[str, Any],
    rules: RuleSet,
    players: tuple[str, str],
    first_dealer: str,
    parsed,
    time_called_after: int | None,
) -> GameRecord:
    return GameRecord(
        rules=rules,
        rules_spec=rules.overrides(),
        players=players,
        first_dealer=first_dealer.strip(),
        hands=tuple(facts for facts, _cards in parsed),
        cards=tuple(cards for _facts, cards in parsed),
        name=str(data.get("name", "") or ""),
        source=str(data.get("source", "") or ""),
        time_called_after=time_called_after,
    )


def score_record(record: GameRecord | PartnershipRecord) -> SessionResult | PartnershipResult:
    if isinstance(record, PartnershipRecord):
        return _score_partnership_record(record)
    try:
        result = score_session(
            record.rules, record.players, record.first_dealer, record.hands, record.time_called_after
        )
    except HandError as error:
        if error.hand:  # an earlier hand's bad cards come first
            check_record_cards(record, before=error.hand)
        raise RecordError(error.hand, error.field, error.message) from None
    check_record_cards(record)
    return result


def check_record_cards(record: GameRecord, *, before: int | None = None) -> None:
    """Refuse the first hand whose ``cards`` are malformed or disagree with its facts (scoring.engine.card_facts)."""
    for number, (facts, cards) in enumerate(zip(record.hands, record.cards, strict=True), start=1):
        if before is not None and number >= before:
            return
        try:
            check_facts(record.rules, facts, cards)
        except CardFactError as error:
            raise RecordError(
                number,
                error.field,
                _("hand %(number)s: %(field)s: %(message)s")
                % {"number": number, "field": error.field, "message": error.message},
            ) from None


def expect_of(result: SessionResult | PartnershipResult) -> dict[str, Any]:
    """The ``expect`` object of the spec, for a result keyed by player names."""
    if isinstance(result, PartnershipResult):
        return _partnership_expect(result)
    expect: dict[str, Any] = {
        "hands": [
            {"winner": hand.winner, "result": hand.result, "points": hand.points, "dealer": hand.dealer}
            for hand in result.hands
        ],
        "games": [],
    }
    for game in result.games:
        entry: dict[str, Any] = {
            "winner": game.winner,
            "over": game.over,
            "hand_points": dict(game.hand_points),
            "boxes": dict(game.boxes),
        }
        if game.over:
            entry["final"] = {game.winner: game.final[game.winner], game.loser: game.final[game.loser]}
            entry["margin"] = game.margin
        if game.by_time:
            entry["ended_by_time"] = True
        expect["games"].append(entry)
    if not result.over:
        expect["next_dealer"] = result.next_dealer
    return expect


def evaluate(data: Any) -> dict[str, Any]:
    """Score a record: the spec's ``expect`` object, or the error object."""
    try:
        return expect_of(score_record(parse_record(data)))
    except RecordError as error:
        return error.as_json()


def hand_to_record(facts: HandFacts, cards: Any = None) -> dict[str, Any]:
    """One hand's facts as a record entry (only the keys that apply)."""
    entry: dict[str, Any] = {"ending": facts.ending}
    if facts.ending != "dead":
        entry["by"] = facts.by
    if facts.ending == "knock":
        entry["knocker_deadwood"] = facts.knocker_deadwood
    if facts.ending != "dead":
        entry["defender_deadwood"] = facts.defender_deadwood
    if facts.upcard:
        entry["upcard"] = facts.upcard
    if cards:
        entry["cards"] = cards
    return entry


# ---- partnership records (docs/game-record.md, "Partnership records") ---------------------------


def _parse_four_players(data: dict[str, Any]) -> tuple[str, str, str, str]:
    players = data.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 4
        or not all(isinstance(name, str) and name.strip() for name in players)
    ):
        raise RecordError(
            None,
            "players",
            _('players must be a list of four names, e.g. ["Ann", "Bob", "Cat", "Dan"]'),
            partnership=True,
        )
    names = tuple(name.strip() for name in players)
    if len({name.casefold() for name in names}) != 4:
        raise RecordError(None, "players", _("the four players must have different names"), partnership=True)
    return names[0], names[1], names[2], names[3]


def _parse_deal(number: int, raw: Any) -> list[Any]:
    """A deal's raw boards: ``{"boards": [board 1, board 2]}``, or RecordError naming the deal."""
    if not isinstance(raw, dict):
        raise RecordError(
            number,
            "boards",
            _('hand %(number)s must be a deal such as {"boards": [board 1, board 2]}') % {"number": number},
            partnership=True,
        )
    for key in raw:
        if key != "boards":
            raise RecordError(
                number,
                key,
                _("hand %(number)s: %(key)s is not part of a deal (known: boards)")
                % {"number": number, "key": repr(key)},
                partnership=True,
            )
    boards = raw.get("boards")
    if not isinstance(boards, list) or len(boards) != 2:
        raise RecordError(
            number,
            "boards",
            _("hand %(number)s: a deal has two boards, each a hand") % {"number": number},
            partnership=True,
        )
    return boards


def _parse_partnership(data: dict[str, Any]) -> PartnershipRecord:
    try:
        rules = read_rules(data.get("rules"))
    except RuleError as error:
        raise RecordError(
            None, error.field, _("rules: %(message)s") % {"message": error.message}, partnership=True
        ) from None
    players = _parse_four_players(data)
    first_dealer = data.get("first_dealer")
    if not isinstance(first_dealer, str) or first_dealer.strip() not in players:
        raise RecordError(
            None, "first_dealer", _("first_dealer must be the name of one of the players"), partnership=True
        )
    raw_deals = data.get("hands", [])
    if not isinstance(raw_deals, list):
        raise RecordError(None, "hands", _("hands must be a list"), partnership=True)
    if data.get("time_called_after") is not None:
        raise RecordError(
            None,
            "time_called_after",
            _("a partnership game is not ended by time: time cannot be called"),
            partnership=True,
        )
    try:
        check_hand_count(len(raw_deals))
    except HandError as error:
        raise RecordError(error.hand, error.field, error.message, partnership=True) from None

    def record(deals: list, cards: list) -> PartnershipRecord:
        return PartnershipRecord(
            rules=rules,
            rules_spec=rules.overrides(),
            players=players,
            first_dealer=first_dealer.strip(),
            deals=tuple(deals),
            cards=tuple(cards),
            name=str(data.get("name", "") or ""),
            source=str(data.get("source", "") or ""),
        )

    deals: list[tuple[HandFacts, HandFacts]] = []
    cards: list[tuple[Any, Any]] = []
    for number, raw in enumerate(raw_deals, start=1):
        parsed = []
        try:
            for board, raw_board in enumerate(_parse_deal(number, raw), start=1):
                parsed.append(_parse_hand(number, raw_board, board))
        except RecordError:
            # The first fault is named: a fault of an earlier deal, or of this deal's first board, comes first.
            waiting = [(parsed[0][0], None)] if parsed else []
            _score_partnership_record(record(deals, cards), waiting)
            raise
        deals.append((parsed[0][0], parsed[1][0]))
        cards.append((parsed[0][1], parsed[1][1]))
    return record(deals, cards)


def _score_partnership_record(
    record: PartnershipRecord, waiting: list[tuple[HandFacts, None]] | None = None
) -> PartnershipResult:
    """Score the record's deals (and ``waiting``: a deal of which only board 1 was read); RecordError names a fault."""
    try:
        result = score_partnership(record.rules, record.players, record.first_dealer, [*record.deals, *(waiting or [])])
    except HandError as error:
        if error.hand:  # an earlier board's bad cards come first
            _check_partnership_cards(record, before=(error.hand, error.board or 1))
        raise RecordError(error.hand, error.field, error.message, error.board, partnership=True) from None
    _check_partnership_cards(record)
    return result


def _check_partnership_cards(record: PartnershipRecord, *, before: tuple[int, int] | None = None) -> None:
    """Refuse the first board whose ``cards`` are malformed or disagree with its facts."""
    for number, (deal, cards) in enumerate(zip(record.deals, record.cards, strict=True), start=1):
        for board, (facts, board_cards) in enumerate(zip(deal, cards, strict=True), start=1):
            if before is not None and (number, board) >= before:
                return
            try:
                check_facts(record.rules, facts, board_cards)
            except CardFactError as error:
                raise RecordError(
                    number,
                    error.field,
                    _("hand %(number)s: %(field)s: %(message)s")
                    % {"number": board_place(number, board), "field": error.field, "message": error.message},
                    board,
                    partnership=True,
                ) from None


def _partnership_expect(result: PartnershipResult) -> dict[str, Any]:
    def name(side: Side | None) -> str | None:
        return None if side is None else side_name(side)

    game = result.game
    entry: dict[str, Any] = {
        "winner": name(game.winner),
        "over": game.over,
        "hand_points": {side_name(side): points for side, points in game.hand_points.items()},
        "boxes": {side_name(side): boxes for side, boxes in game.boxes.items()},
    }
    if game.over:
        entry["final"] = {side_name(side): game.final[side] for side in (game.winner, game.loser)}
        entry["margin"] = game.margin
    expect: dict[str, Any] = {
        "hands": [
            {
                "winner": name(deal.winner),
                "points": deal.points,
                "boards": [
                    {"winner": board.winner, "result": board.result, "points": board.points, "dealer": board.dealer}
                    for board in deal.boards
                ],
            }
            for deal in result.deals
        ],
        "games": [entry],
    }
    if not result.over:
        expect["next_dealer"] = name(result.next_dealer)
    return expect
