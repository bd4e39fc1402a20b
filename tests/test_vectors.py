"""Every golden vector, through the engine, the scoresheet command and import/export."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from players.models import Player
from scoring.engine.record import evaluate
from scoring.engine.rules import resolve_rules
from scoring.models import Deal, Game, Hand
from tests.conftest import VECTOR_FILES, load_vector

VALID = [path for path in VECTOR_FILES if "error" not in load_vector(path)["expect"]]
INVALID = [path for path in VECTOR_FILES if "error" in load_vector(path)["expect"]]
# Partnership games (four players): their records are stored and exported as deals of two boards.
PARTNERSHIP = [path for path in VECTOR_FILES if len(load_vector(path)["players"]) == 4]
STORABLE = [path for path in VALID if path not in PARTNERSHIP]  # two-handed records


def comparable(got: dict, want: dict) -> dict:
    """An error answer is judged on hand and field only (the message is ours)."""
    if "error" in want:
        return {"error": got.get("error")}
    return got


def test_the_vectors_were_copied():
    assert len(VECTOR_FILES) >= 33
    assert VALID and INVALID
    assert len(PARTNERSHIP) == 5  # the spec's vectors 32 to 36


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda path: path.stem)
def test_engine_matches_vector(path):
    vector = load_vector(path)
    assert comparable(evaluate(vector), vector["expect"]) == vector["expect"]


def test_scoresheet_json_prints_one_expect_line_per_file_in_order():
    out = io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("scoresheet", "--json", *map(str, VECTOR_FILES), stdout=out)
    assert raised.value.returncode == 1  # some vectors are invalid records
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == len(VECTOR_FILES)
    for path, line in zip(VECTOR_FILES, lines, strict=True):
        want = load_vector(path)["expect"]
        got = json.loads(line)
        assert comparable(got, want) == want, path.name
        if "error" in want:
            assert got["message"], "an invalid record gets a message"


def test_scoresheet_json_exits_0_when_all_records_are_valid():
    out = io.StringIO()
    call_command("scoresheet", "--json", *map(str, VALID), stdout=out)
    assert len(out.getvalue().splitlines()) == len(VALID)


def test_scoresheet_prints_a_readable_sheet():
    out = io.StringIO()
    path = next(path for path in VALID if "full-standard-game" in path.name)
    call_command("scoresheet", str(path), stdout=out)
    text = out.getvalue()
    assert "Bob wins 265 to 105, margin 160" in text
    assert "Game bonus" in text


def test_scoresheet_prints_a_partnership_sheet_deal_by_deal():
    out = io.StringIO()
    path = next(path for path in PARTNERSHIP if "by-the-difference" in path.name)
    call_command("scoresheet", str(path), stdout=out)
    text = out.getvalue()
    assert "Ann & Cat v Bob & Dan" in text
    assert "deal 2: Bob & Dan by 6" in text
    assert "Ann & Cat win 328 to 31, margin 297" in text


@pytest.mark.django_db
@pytest.mark.parametrize("path", [path for path in PARTNERSHIP if path in VALID], ids=lambda path: path.stem)
def test_a_partnership_record_is_stored_and_exports_back_to_the_same_record(path, tmp_path):
    vector = load_vector(path)
    call_command("import_games", str(path), stdout=io.StringIO())
    game = Game.objects.get()
    assert [player.name for player in (game.player_one, game.player_two, game.player_three, game.player_four)] == (
        vector["players"]
    )
    out_file = tmp_path / "export.json"
    call_command("export_games", "--out", str(out_file), stderr=io.StringIO())
    [exported] = json.loads(out_file.read_text())
    assert exported["players"] == vector["players"]
    assert exported["first_dealer"] == vector["first_dealer"]
    assert exported["hands"] == vector["hands"]
    assert resolve_rules(exported["rules"]) == resolve_rules(vector["rules"])
    assert exported["expect"] == vector["expect"]
    # The stored figures are the engine's: each board's, each deal's and each side's.
    names = {player.pk: player.name for player in Player.objects.all()}
    for deal, want in zip(Deal.objects.filter(game=game), vector["expect"]["hands"], strict=True):
        boards = Hand.objects.filter(game=game, number=deal.number).order_by("board")
        assert [(names.get(hand.winner_id), hand.result, hand.points, names[hand.dealer_id]) for hand in boards] == [
            (board["winner"], board["result"], board["points"], board["dealer"]) for board in want["boards"]
        ]
        winner = deal.winner_id and f"{names[deal.winner_id]} & " + names[
            game.player_three_id if deal.winner_id == game.player_one_id else game.player_four_id
        ]
        assert (winner or None, deal.points, deal.settled) == (want["winner"], want["points"], True)
    score = game.scores.get()
    side = vector["expect"]["games"][0]["hand_points"]
    assert [score.player_one_hand_points, score.player_two_hand_points] == list(side.values())
    assert game.over == vector["expect"]["games"][0]["over"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", STORABLE, ids=lambda path: path.stem)
def test_import_then_export_reproduces_the_facts(path, tmp_path):
    vector = load_vector(path)
    call_command("import_games", str(path), stdout=io.StringIO())
    out_file = tmp_path / "export.json"
    call_command("export_games", "--out", str(out_file), stderr=io.StringIO())
    [exported] = json.loads(out_file.read_text())
    assert exported["players"] == vector["players"]
    assert exported["first_dealer"] == vector["first_dealer"]
    assert exported["hands"] == vector["hands"]
    assert resolve_rules(exported["rules"]) == resolve_rules(vector["rules"])
    assert exported["expect"] == vector["expect"]
    # And the stored derived figures are the engine's.
    game = Game.objects.get()
    expect = vector["expect"]
    stored = [(h.winner.name if h.winner else None, h.result, h.points, h.dealer.name) for h in game.hands.all()]
    assert stored == [(h["winner"], h["result"], h["points"], h["dealer"]) for h in expect["hands"]]


@pytest.mark.django_db
@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.stem)
def test_import_of_an_invalid_record_stores_nothing(path):
    err = io.StringIO()
    want = load_vector(path)["expect"]["error"]
    with pytest.raises(CommandError):
        call_command("import_games", str(path), stdout=io.StringIO(), stderr=err)
    assert f"field {want['field']}" in err.getvalue()
    if want["hand"]:
        assert f"hand {want['hand']}, " in err.getvalue()
    if want.get("board"):
        assert f"board {want['board']}, " in err.getvalue()
    assert Game.objects.count() == 0
    assert Hand.objects.count() == 0
