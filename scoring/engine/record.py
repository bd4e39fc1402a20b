"""The JSON game record (docs/game-record.md), in and out (pure Python).

A record carries only facts; ``expect`` is what the engine derives from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.engine.card_facts import CardFactError, check_facts
from scoring.engine.overrides import read_rules
from scoring.engine.rules import RuleError, RuleSet
from scoring.engine.score import (
    HAND_FIELDS,
    HandError,
    HandFacts,
    SessionResult,
    check_hand_count,
    check_time_call,
    score_session,
)
from scoring.engine.text import _

# Facts a hand may carry in a record; ``cards`` holds the dealt cards when entered.
RECORD_HAND_FIELDS = (*HAND_FIELDS, "cards")


class RecordError(ValueError):
    """An invalid record: ``hand`` (1-based, or None) and ``field`` say where."""

    def __init__(self, hand: int | None, field: str, message: str):
        super().__init__(message)
        self.hand = hand
        self.field = field
        self.message = message

    def as_json(self) -> dict[str, Any]:
        return {"error": {"hand": self.hand, "field": self.field}, "message": self.message}


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


def _parse_hand(number: int, raw: Any) -> tuple[HandFacts, Any]:
    if not isinstance(raw, dict):
        raise RecordError(
            number, "ending", _("hand %(number)s must be an object with an 'ending'") % {"number": number}
        )
    for key in raw:
        if key not in RECORD_HAND_FIELDS:
            raise RecordError(
                number,
                key,
                _("hand %(number)s: %(key)s is not a hand fact (known: %(known)s)")
                % {"number": number, "key": repr(key), "known": ", ".join(RECORD_HAND_FIELDS)},
            )
    ending = raw.get("ending")
    if not isinstance(ending, str):
        raise RecordError(
            number, "ending", _("hand %(number)s: ending must be one of knock, gin, big_gin, dead") % {"number": number}
        )
    by = raw.get("by")
    if by is not None and not isinstance(by, str):
        raise RecordError(number, "by", _("hand %(number)s: 'by' must be a player's name") % {"number": number})
    upcard = raw.get("upcard")
    if upcard is not None and not isinstance(upcard, str):
        raise RecordError(number, "upcard", _('hand %(number)s: upcard must be text such as "7S"') % {"number": number})
    facts = HandFacts(
        ending=ending,
        by=by.strip() if isinstance(by, str) else None,
        knocker_deadwood=raw.get("knocker_deadwood"),
        defender_deadwood=raw.get("defender_deadwood"),
        upcard=upcard.strip().upper() if upcard else None,
    )
    return facts, raw.get("cards")


def parse_record(data: Any) -> GameRecord:
    """Validate a record's shape (not yet scored); raise RecordError naming the place.

    A hand of the wrong shape is reported only after the hands before it are
    scored, so the error always names the first bad hand.
    """
    if not isinstance(data, dict):
        raise RecordError(None, "record", _("a game record must be a JSON object"))
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


def score_record(record: GameRecord) -> SessionResult:
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


def expect_of(result: SessionResult) -> dict[str, Any]:
    """The ``expect`` object of the spec, for a result keyed by player names."""
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
