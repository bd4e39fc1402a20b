"""The offline scorer (static/js/engine.js) gives the Python engine's answer, run inside Chromium.

Every golden vector and a seeded set of random records of every preset (random
overrides, refused hands and rules, games ended by time, and partnership games of four players
with their deals of two boards included) go to the page in one batch; the
browser's answers must equal scoring.engine.record.evaluate (an error is judged
on its hand, board and field, as the vectors are), and for every valid record the full
sheet (``GinEngine.scoreSession``: boxes, doubling, games scored in, bonus lines,
closing hand, next dealer, the sitting's winner and margin) must equal
scoring.engine.score.score_session's; for a partnership game ``GinEngine.scorePartnership``'s
(each board, each deal, the sides' figures, a deal still waiting for a board) must equal
scoring.engine.partnership.score_partnership's. One game recorded through the services
checks that the shape is the API's own.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from scoring.engine.partnership import PartnershipResult, board_pairs, score_partnership
from scoring.engine.record import GameRecord, PartnershipRecord, RecordError, evaluate, parse_record, score_record
from scoring.engine.rules import PRESETS, RULE_FIELDS
from scoring.engine.score import HandFacts, SessionResult
from tests.conftest import VECTOR_FILES, load_vector
from tests.fuzzing import examples

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SEED = 20240614
NAMES = ["Ann", "Bob", "Cleo", "Dev", "Éva", "Zoë", "Li Wei", "O'Hara"]
CARDS = [rank + suit for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for suit in "SHDC"]


# ---- a seeded generator of game records -------------------------------------------------------


def _override(rng: random.Random, name: str) -> Any:
    """A value for rule ``name``: mostly sensible, sometimes as text, sometimes wrong."""
    roll = rng.random()
    if roll < 0.04:  # wrong: a type or range the engine must refuse (or read, as text)
        return rng.choice([-1, 10_001, 11, "many", [], {}, 2.5, None, True, "", "  YES ", "-"])
    if name in ("undercut_on_tie", "oklahoma", "spade_double", "spade_double_boxes", "hollywood"):
        return rng.choice([True, False, "yes", "no", "on", "off", " True "]) if roll < 0.2 else rng.random() < 0.5
    if name == "shutout_mode":
        return rng.choice(["none", "add", "double_hands", "double_total", " Add "])
    if name == "oklahoma_ace":
        return rng.choice(["gin_only", "one", "ONE"])
    if name == "next_dealer":
        return rng.choice(["loser", "winner", "alternate"])
    if name == "partner_opponents":
        return rng.choice(["fixed", "alternate", "fixed", " Alternate "])
    if name == "knock_limit":
        return rng.choice([0, 1, 5, 7, 10, "9"])
    if name == "target":
        return rng.choice([1, 10, 25, 50, 60, 100, 150, 250, "75"])
    if name in ("big_gin_bonus", "line_bonus"):
        return rng.choice([None, 0, 25, 31, 50, "off", "none", "40"])
    return rng.choice([0, 5, 10, 20, 25, 50, 100, "30"])


def _rules(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.02:
        return rng.choice(["standard", None, [], {"preset": "bogus"}, {"preset": None}, {"colour": 1}])
    spec: dict[str, Any] = {}
    if roll > 0.05:  # otherwise no preset: standard
        preset = rng.choice(list(PRESETS))
        spec["preset"] = preset if rng.random() > 0.05 else f" {preset.upper()} "
    for name in rng.sample(RULE_FIELDS, rng.choice([0, 0, 1, 1, 2, 3, 5])):
        spec[name] = _override(rng, name)
    return spec


def _hand(rng: random.Random, players: list[str], rules: dict[str, Any]) -> Any:
    """A hand that is usually possible under ``rules`` (a resolved rule set as a dict), sometimes not."""
    if rng.random() < 0.01:
        return rng.choice([None, "gin", [], {"ending": "gin", "by": players[0], "defender_deadwood": 3, "notes": 1}])
    oklahoma, knock_limit = rules["oklahoma"], rules["knock_limit"]
    upcard = rng.choice(CARDS) if oklahoma or rng.random() < 0.15 else None
    if oklahoma and upcard:
        rank = upcard[:-1]
        gin_only = rank == "A" and rules.get("oklahoma_ace") != "one"
        knock_limit = 0 if gin_only else 1 if rank == "A" else 10 if rank in ("10", "J", "Q", "K") else int(rank)
    endings = ["knock"] * 6 + ["gin"] * 2 + ["big_gin", "dead"]
    if rng.random() < 0.97:  # mostly an ending these rules allow
        endings = [
            ending
            for ending in endings
            if not (ending == "knock" and knock_limit == 0)
            and not (ending == "big_gin" and rules.get("big_gin_bonus") is None)
        ]
    hand: dict[str, Any] = {"ending": rng.choice(endings)}
    if hand["ending"] != "dead":
        hand["by"] = rng.choice(players)
        hand["defender_deadwood"] = rng.randint(0, 60) if rng.random() < 0.9 else rng.randint(0, 98)
    if hand["ending"] == "knock":
        hand["knocker_deadwood"] = rng.randint(1, max(knock_limit, 1))
        if rng.random() < 0.3:  # an undercut or a tie
            hand["defender_deadwood"] = rng.randint(0, hand["knocker_deadwood"])
    if upcard:
        hand["upcard"] = upcard if rng.random() > 0.1 else rng.choice([upcard.lower(), f" {upcard} ", "T" + upcard[-1]])
    if rng.random() < 0.03:  # one fact wrong
        field = rng.choice(["ending", "by", "knocker_deadwood", "defender_deadwood", "upcard"])
        hand[field] = rng.choice(
            {
                "ending": ["knock", "gin", "big_gin", "dead", "undercut", "", 3],
                "by": [None, "Nobody", f" {players[0]} ", 7, ""],
                "knocker_deadwood": [None, 0, -1, 11, 99, "5", 2.5, False, True, 0.0, 3],
                "defender_deadwood": [None, -1, 99, 120, "10", 7.5, True, 0],
                "upcard": ["", "  ", "1S", "11H", "XS", "QQ", "10", 5, None, "ah"],
            }[field]
        )
        if hand[field] is None and rng.random() < 0.5:
            del hand[field]
    return hand


def _typed_rules(spec: Any) -> dict[str, Any]:
    """The rule values a generator needs to pick plausible hands (any read failure: standard)."""
    from scoring.engine.overrides import read_rules
    from scoring.engine.rules import RuleError

    try:
        return read_rules(spec).as_dict()
    except (RuleError, TypeError, AttributeError):
        return PRESETS["standard"].as_dict()


def random_record(rng: random.Random) -> dict[str, Any]:
    players = rng.sample(NAMES, 2)
    rules_spec = _rules(rng)
    record: dict[str, Any] = {"rules": rules_spec} if rng.random() > 0.03 else {}
    record["players"] = players
    record["first_dealer"] = rng.choice(players)
    if rng.random() < 0.02:
        record[rng.choice(["players", "first_dealer", "hands"])] = rng.choice(
            [[players[0]], [players[0], players[0].upper()], "Ann", None, ["Ann", ""], "Nobody", {}]
        )
    rules = _typed_rules(rules_spec)
    # Hollywood needs long sittings to close its three games; short ones keep the rest quick.
    count = rng.randint(0, 60 if rules["hollywood"] else 30)
    hand_players = players if isinstance(record["players"], list) else ["Ann", "Bob"]
    record.setdefault("hands", [_hand(rng, hand_players, rules) for _ in range(count)])
    _trim_at_the_end(rng, record)
    if rng.random() < 0.3 and isinstance(record["hands"], list):  # time called (docs/rules.md)
        record["time_called_after"] = _time_call(rng, len(record["hands"]))
        _trim_at_the_end(rng, record)
    return record


def random_partnership_record(rng: random.Random) -> dict[str, Any]:
    """A partnership game: four players, each entry of ``hands`` a deal of two boards (docs/game-record.md)."""
    players = rng.sample(NAMES, 4)
    spec: dict[str, Any] = {"preset": rng.choice(["partnership"] * 8 + [" Partnership ", "PARTNERSHIP"])}
    for name in rng.sample(RULE_FIELDS, rng.choice([0, 0, 1, 1, 2, 3])):
        spec[name] = _override(rng, name)
    if rng.random() < 0.4:
        spec["partner_opponents"] = rng.choice(["fixed", "alternate"])
    record: dict[str, Any] = {"rules": spec, "players": players, "first_dealer": rng.choice(players)}
    roll = rng.random()
    if roll < 0.03:
        record[rng.choice(["players", "first_dealer", "hands"])] = rng.choice(
            [players[:2], [*players[:3], players[0].upper()], "Ann", None, [*players[:3], ""], "Nobody", {}]
        )
    elif roll < 0.05:
        record["time_called_after"] = rng.choice([0, 1, None])
    rules = _typed_rules(spec)
    if rules["preset"] != "partnership":
        rules = PRESETS["partnership"].as_dict()
    quartet = players if isinstance(record["players"], list) and len(record["players"]) == 4 else NAMES[:4]
    from scoring.engine.rules import resolve_rules

    resolved = resolve_rules(rules)
    deals = []
    for number in range(1, rng.randint(0, 14) + 1):
        pairs = board_pairs(resolved, quartet, number)
        deal: Any = {"boards": [_hand(rng, list(pair), rules) for pair in pairs]}
        roll = rng.random()
        if roll < 0.01:  # a board's winner who does not play on that board
            board = deal["boards"][rng.randint(0, 1)]
            if isinstance(board, dict) and board.get("ending") not in (None, "dead"):
                board["by"] = rng.choice(quartet)
        elif roll < 0.015:  # not a deal of two boards
            deal = rng.choice(
                [{"boards": deal["boards"][:1]}, {"boards": deal["boards"] * 2}, deal["boards"], {**deal, "n": 1}, None]
            )
        deals.append(deal)
    record["hands"] = deals if not isinstance(record.get("hands"), (dict, str)) else record["hands"]
    _trim_at_the_end(rng, record)
    return record


def _trim_at_the_end(rng: random.Random, record: dict[str, Any]) -> None:
    """Most sittings stop where the table would: at the hand that closes them (the rest keep
    going, to check the "game is already over" refusal)."""
    answer = evaluate(record)
    if "already over" in answer.get("message", "") and rng.random() < 0.85:
        del record["hands"][answer["error"]["hand"] - 1 :]


def _time_call(rng: random.Random, hand_count: int) -> Any:
    """When time was called: mostly during a hand of the sheet, sometimes a call that cannot have happened."""
    if rng.random() < 0.9:
        return rng.randint(0, max(hand_count - 1, 0))
    return rng.choice([None, -1, hand_count, hand_count + 1, "1", 2.5, True])


def random_records(count: int, seed: int = SEED) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    # One record in six a partnership game.
    records = [random_partnership_record(rng) if rng.random() < 1 / 6 else random_record(rng) for _ in range(count)]
    return records + boundary_records()


def boundary_records() -> list[dict[str, Any]]:
    """Sittings on the edges chance rarely hits: a big win by exactly the line-bonus margin, a target just reached."""
    records = []
    gin = {"ending": "gin", "by": "Ann", "defender_deadwood": 0}  # 25 hand points, the game's only figure
    for gins in (1, 2):
        points = 25 * gins
        for margin in (points - 1, points, points + 1):
            rules = {"preset": "standard", "target": points, "game_bonus": 0, "box_bonus": 0}
            rules |= {"shutout_mode": "none", "line_bonus": 10, "line_bonus_margin": margin}
            records.append({"rules": rules, "players": ["Ann", "Bob"], "first_dealer": "Bob", "hands": [gin] * gins})
    return records


# ---- what the Python engine says --------------------------------------------------------------


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """An error answer is judged on hand and field only (the message is prose)."""
    return {"error": answer["error"]} if "error" in answer else answer


def sheet_of(record: GameRecord, result: SessionResult) -> dict[str, Any]:
    """score_session's result in the shape GinEngine.scoreSession returns (the API's game detail)."""
    one, two = result.players
    return {
        "over": result.over,
        "winner": result.winner,
        "margin": result.margin,
        "next_dealer": result.next_dealer,
        "hand_count": len(result.hands),
        "time_called_after": result.time_called_after,
        "scores": [
            {
                "number": game.number,
                "target": game.target,
                "player_one_hand_points": game.hand_points[one],
                "player_two_hand_points": game.hand_points[two],
                "player_one_boxes": game.boxes[one],
                "player_two_boxes": game.boxes[two],
                "over": game.over,
                "winner": game.winner,
                "player_one_final": game.final[one] if game.over else None,
                "player_two_final": game.final[two] if game.over else None,
                "margin": game.margin,
                "closed_by_hand": game.closed_by_hand,
                "by_time": game.by_time,
                "breakdown": [
                    {"label": line.label, "player": line.player, "amount": line.amount} for line in game.breakdown
                ],
            }
            for game in result.games
        ],
        "hands": [
            {
                "number": hand.number,
                "ending": facts.ending,
                "by": facts.by,
                "knocker_deadwood": facts.knocker_deadwood,
                "defender_deadwood": facts.defender_deadwood,
                "upcard": facts.upcard or "",
                "dealer": hand.dealer,
                "result": hand.result,
                "winner": hand.winner,
                "points": hand.points,
                "boxes": hand.boxes,
                "doubled": hand.doubled,
                "scored_in": list(hand.games),
            }
            for hand, facts in zip(result.hands, record.hands, strict=True)
        ],
    }


def session_input(record: GameRecord) -> dict[str, Any]:
    """What the offline sheet hands GinEngine.scoreSession: stored rules, players, first dealer, facts."""
    return {
        "rules": record.rules.as_dict(),
        "players": list(record.players),
        "first_dealer": record.first_dealer,
        "hands": [
            {
                "ending": facts.ending,
                "by": facts.by,
                "knocker_deadwood": facts.knocker_deadwood,
                "defender_deadwood": facts.defender_deadwood,
                "upcard": facts.upcard,
            }
            for facts in record.hands
        ],
        "time_called_after": record.time_called_after,
    }


def partnership_sheet_of(result: PartnershipResult, deals) -> dict[str, Any]:
    """score_partnership's result in the shape GinEngine.scorePartnership returns (sides by number)."""
    sides = list(result.sides)

    def number(side):
        return None if side is None else sides.index(side)

    def pair(figures):
        return None if figures is None else [figures[sides[0]], figures[sides[1]]]

    game = result.game
    return {
        "over": result.over,
        "winner": number(game.winner),
        "margin": game.margin,
        "next_dealer": number(result.next_dealer),
        "deal_count": len(result.deals),
        "sides": [list(side) for side in sides],
        "score": {
            "target": game.target,
            "hand_points": pair(game.hand_points),
            "boxes": pair(game.boxes),
            "over": game.over,
            "winner": number(game.winner),
            "final": pair(game.final),
            "margin": game.margin,
            "closed_by_hand": game.closed_by_hand,
            "breakdown": [
                {"label": line.label, "side": number(line.player), "amount": line.amount} for line in game.breakdown
            ],
        },
        "deals": [
            {
                "number": deal.number,
                "dealer": number(deal.dealer),
                "winner": number(deal.winner),
                "points": deal.points,
                "settled": deal.settled,
                "boards": [
                    None
                    if board is None
                    else {
                        "ending": facts.ending,
                        "by": facts.by,
                        "knocker_deadwood": facts.knocker_deadwood,
                        "defender_deadwood": facts.defender_deadwood,
                        "upcard": facts.upcard or "",
                        "dealer": board.dealer,
                        "result": board.result,
                        "winner": board.winner,
                        "points": board.points,
                        "doubled": board.doubled,
                    }
                    for board, facts in zip(deal.boards, deal_facts, strict=True)
                ],
            }
            for deal, deal_facts in zip(result.deals, deals, strict=True)
        ],
    }


def facts_input(facts: HandFacts | None) -> dict[str, Any] | None:
    if facts is None:
        return None
    return {
        "ending": facts.ending,
        "by": facts.by,
        "knocker_deadwood": facts.knocker_deadwood,
        "defender_deadwood": facts.defender_deadwood,
        "upcard": facts.upcard,
    }


def partnership_input(record: PartnershipRecord, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """What an offline partnership sheet hands GinEngine.scorePartnership, and the Python engine's sheet.

    Every third game is scored with its last deal waiting for one board (the one a phone has not sent yet).
    """
    deals = [list(deal) for deal in record.deals]
    if deals and index % 3 == 0:
        deals[-1][index % 2] = None
    result = score_partnership(record.rules, record.players, record.first_dealer, deals)
    spec = {"partnership": True, "rules": record.rules.as_dict(), "players": list(record.players)}
    spec |= {"first_dealer": record.first_dealer, "deals": [[facts_input(f) for f in deal] for deal in deals]}
    return spec, partnership_sheet_of(result, deals)


def python_answers(records: list[dict[str, Any]]) -> tuple[list[dict], list[dict], list[dict]]:
    """(evaluate answers, scoreSession / scorePartnership inputs, expected sheets) for ``records``."""
    answers, inputs, sheets = [], [], []
    for index, data in enumerate(records):
        answers.append(comparable(evaluate(data)))
        try:
            record = parse_record(data)
            result = score_record(record)
        except RecordError:
            continue
        if isinstance(record, PartnershipRecord):
            spec, sheet = partnership_input(record, index)
            inputs.append(spec)
            sheets.append(sheet)
            continue
        inputs.append(session_input(record))
        sheets.append(sheet_of(record, result))
    return answers, inputs, sheets


# ---- the browser ------------------------------------------------------------------------------

# One call scores the whole batch, so thousands of records cost one round trip; the batch
# travels as one JSON string (Playwright's own encoding of a large object is far slower).
RUN_IN_BROWSER = """(batch) => {
  const [records, sessions] = JSON.parse(batch);
  const answers = records.map((record) => {
    const answer = GinEngine.evaluate(record);
    return answer.error ? { error: answer.error } : answer;
  });
  const sheets = sessions.map((s) =>
    s.partnership
      ? GinEngine.scorePartnership(s.rules, s.players, s.first_dealer, s.deals)
      : GinEngine.scoreSession(s.rules, s.players, s.first_dealer, s.hands, s.time_called_after)
  );
  return JSON.stringify([answers, sheets]);
}"""


@pytest.fixture
def scorer_page(new_page, live_server, transactional_db):
    """A phone-sized test page on the app's origin that loads the offline scorer from its static URL.

    Only the page itself is made up (the browser is handed it); engine.js comes from the app.
    """
    page = new_page(viewport=PHONE)
    address = f"{live_server.url}/offline-scorer-test/"
    html = '<!doctype html><title>scorer</title><script src="/static/js/engine.js"></script>'
    page.route(address, lambda route: route.fulfill(content_type="text/html", body=html))
    page.goto(address)
    page.wait_for_function("() => typeof GinEngine === 'object'")
    return page


def run_in_browser(page, records: list[dict[str, Any]], batch: int = 5000) -> None:
    """Score ``records`` in the page, ``batch`` at a time, and compare with the Python engine."""
    for start in range(0, len(records), batch):
        chunk = records[start : start + batch]
        answers, inputs, sheets = python_answers(chunk)
        got_answers, got_sheets = json.loads(page.evaluate(RUN_IN_BROWSER, json.dumps([chunk, inputs])))
        assert len(got_answers) == len(chunk) and len(got_sheets) == len(inputs)
        for index, (got, want) in enumerate(zip(got_answers, answers, strict=True)):
            assert got == want, f"record {start + index}: {json.dumps(chunk[index])}"
        for index, (got, want) in enumerate(zip(got_sheets, sheets, strict=True)):
            assert got == want, f"sheet {index} of records {start}..: {json.dumps(inputs[index])}"


def test_offline_scorer_matches_every_golden_vector(scorer_page):
    vectors = [load_vector(path) for path in VECTOR_FILES]
    assert len(vectors) >= 33
    # The vectors' own expectations too, not only the Python engine's word.
    answers = scorer_page.evaluate(
        "(records) => records.map((r) => { const a = GinEngine.evaluate(r); return a.error ? {error: a.error} : a; })",
        vectors,
    )
    for path, vector, answer in zip(VECTOR_FILES, vectors, answers, strict=True):
        assert answer == vector["expect"], path.name
    run_in_browser(scorer_page, vectors)


def test_offline_scorer_matches_the_engine_on_random_records_of_every_preset(scorer_page):
    records = random_records(examples(3000, 30000))
    answers = [evaluate(record) for record in records]
    # The set really covers what it claims: every preset, closed games, refusals of every kind.
    presets = {
        record["rules"].get("preset", "standard").strip().lower()
        for record in records
        if isinstance(record.get("rules"), dict) and isinstance(record["rules"].get("preset"), str)
    }
    assert set(PRESETS) <= presets
    refused_fields = {answer["error"]["field"] for answer in answers if "error" in answer}
    assert {"ending", "by", "knocker_deadwood", "defender_deadwood", "upcard", "players"} <= refused_fields
    assert sum(1 for answer in answers if "error" in answer and answer["error"]["hand"]) > 100
    assert sum(1 for answer in answers if "error" not in answer and all(g["over"] for g in answer["games"])) > 300
    # Games ended by time (won, and level then played on), and time calls refused.
    by_time = [game for answer in answers for game in answer.get("games", []) if game.get("ended_by_time")]
    assert len(by_time) > 100
    assert "time_called_after" in refused_fields
    # Partnership games: whole games, ties, waiting deals, and refusals naming the board.
    partnership = [
        (record, answer)
        for record, answer in zip(records, answers, strict=True)
        if isinstance(record.get("rules"), dict)
        and str(record["rules"].get("preset", "")).strip().lower() == "partnership"
    ]
    assert len(partnership) > 300
    assert sum(1 for _record, answer in partnership if "error" not in answer and answer["games"][0]["over"]) > 50
    boards = {answer["error"].get("board") for _record, answer in partnership if "error" in answer}
    assert {None, 1, 2} <= boards
    fields = {answer["error"]["field"] for _record, answer in partnership if "error" in answer}
    assert {"by", "boards", "players", "rules"} <= fields
    run_in_browser(scorer_page, records)


def test_scoresheet_shape_is_the_apis_own(scorer_page):
    """A Hollywood sitting recorded through the services: the API's figures equal the offline scorer's."""
    from scoring import services
    from scoring.api.serializers import GameDetailSerializer
    from tests.factories import PlayerFactory

    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = services.game_create(
        player_one=ann, player_two=bob, first_dealer=bob, rules={"preset": "hollywood", "target": 60}
    )
    facts = [
        {"ending": "knock", "by": ann.pk, "knocker_deadwood": 5, "defender_deadwood": 40},
        {"ending": "gin", "by": bob.pk, "defender_deadwood": 12, "upcard": "7S"},
        {"ending": "dead"},
        {"ending": "knock", "by": ann.pk, "knocker_deadwood": 9, "defender_deadwood": 4},
        {"ending": "big_gin", "by": ann.pk, "defender_deadwood": 30},
        {"ending": "knock", "by": bob.pk, "knocker_deadwood": 2, "defender_deadwood": 50},
    ]
    for hand in facts:
        services.hand_record(game=game, **hand)
    game.refresh_from_db()
    served = json.loads(json.dumps(GameDetailSerializer(game).data))
    offline = scorer_page.evaluate(
        "([g, hands]) => GinEngine.scoreSession(g.rules, [g.player_one, g.player_two], g.first_dealer, hands)",
        [served, facts],
    )
    assert offline["winner"] == served["winner"] and offline["next_dealer"] == served["next_dealer"]
    assert (offline["over"], offline["margin"], offline["hand_count"]) == (
        served["over"],
        served["margin"],
        served["hand_count"],
    )
    assert any(score["over"] for score in served["scores"]), "a game closed, so bonuses are compared"
    for mine, theirs in zip(offline["scores"], served["scores"], strict=True):
        assert {key: mine[key] for key in theirs} == theirs
    for mine, theirs in zip(offline["hands"], served["hands"], strict=True):
        assert {key: mine[key] for key in mine if key in theirs} == {key: theirs[key] for key in mine if key in theirs}


def test_a_refused_hand_names_its_hand_and_field(scorer_page):
    """What the offline sheet shows under the form: the server's refusal, before any network."""
    error = scorer_page.evaluate(
        """() => {
          try {
            GinEngine.scoreSession({preset: "oklahoma"}, [1, 2], 1, [
              {ending: "gin", by: 1, defender_deadwood: 10, upcard: "5H"},
              {ending: "knock", by: 2, knocker_deadwood: 6, defender_deadwood: 20, upcard: "5H"},
            ]);
          } catch (e) {
            return {kind: e.name, hand: e.hand, field: e.field, message: e.message};
          }
        }"""
    )
    assert error == {
        "kind": "HandError",
        "hand": 2,
        "field": "knocker_deadwood",
        "message": "hand 2: knocker_deadwood 6 is over the knock limit of 5 (the upcard is 5H)",
    }


def test_a_figure_out_of_range_offline_carries_the_forms_words_as_the_engine_does(scorer_page):
    """Offline, a form can lead with the box's label and say what the page says (HandError.detail)."""
    from scoring.engine.rules import resolve_rules
    from scoring.engine.score import HandError, HandFacts, score_session

    errors = scorer_page.evaluate(
        """() => [
          [{ending: "gin", by: 1, defender_deadwood: 120}],
          [{ending: "knock", by: 1, defender_deadwood: 30}],
        ].map((hands) => {
          try { GinEngine.scoreSession({preset: "standard"}, [1, 2], 1, hands); }
          catch (e) { return [e.field, e.message, e.detail]; }
        }).concat([(() => {
          try { GinEngine.resolveRules({target: 0}); } catch (e) { return [e.field, e.message, e.detail]; }
        })()])"""
    )
    expected = []
    too_high = HandFacts(ending="gin", by=1, defender_deadwood=120)
    for facts in (too_high, HandFacts(ending="knock", by=1, defender_deadwood=30)):
        with pytest.raises(HandError) as refused:
            score_session(resolve_rules({}), (1, 2), 1, [facts])
        expected.append([refused.value.field, refused.value.message, refused.value.detail])
    expected.append(["target", "target must be between 1 and 10000, not 0", "enter a number from 1 to 10000, not 0"])
    assert errors == expected
    assert expected[1][2] == "enter a number from 1 to 10"
