"""The API of a partnership game (issue #41): start one with four players, record a board, correct and
remove one, each deal's result in the game, refusals naming the deal, the board and the field, who may
write, and the record out and back in."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.models import Game, Hand
from tests.factories import PlayerFactory, UserFactory
from tests.test_api import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    """Ann & Cat against Bob & Dan; Cat's account is a partner's, Eve's is nobody's at this table."""
    cat_user, creator, outsider = UserFactory(username="cat"), UserFactory(username="creator"), UserFactory()
    people = {
        "cat_user": cat_user,
        "creator": creator,
        "outsider": outsider,
        "ann": PlayerFactory(name="Ann"),
        "bob": PlayerFactory(name="Bob"),
        "cat": PlayerFactory(name="Cat", user=cat_user),
        "dan": PlayerFactory(name="Dan"),
    }
    return people


def start(client, table, **more):
    body = {
        "player_one": table["ann"].pk,
        "player_two": table["bob"].pk,
        "player_three": table["cat"].pk,
        "player_four": table["dan"].pk,
        "first_dealer": table["bob"].pk,
        "rules": {"preset": "partnership"},
        **more,
    }
    return client.post("/api/games/", body, format="json")


def board(client, game_id, board, by, knocker, defender, **more):
    body = {"board": board, "ending": "knock", "by": by.pk, "knocker_deadwood": knocker, "defender_deadwood": defender}
    return client.post(f"/api/games/{game_id}/hands/", {**body, **more}, format="json")


def test_a_partnership_game_is_started_with_four_players(table):
    client = client_for("cat_user", table)
    response = start(client, table)
    assert response.status_code == 201, response.content
    game = response.json()
    assert [game[seat]["name"] for seat in ("player_one", "player_two", "player_three", "player_four")] == [
        "Ann",
        "Bob",
        "Cat",
        "Dan",
    ]
    assert game["next_dealer"]["name"] == "Bob" and game["deals"] == [] and game["hands"] == []


def test_a_partnership_game_without_its_fourth_player_is_refused_naming_the_field(table):
    response = start(client_for("cat_user", table), table, player_four=None)
    assert response.status_code == 400
    assert response.json()["field"] == "player_four"
    response = start(client_for("cat_user", table), table, player_four=table["ann"].pk)
    assert response.status_code == 400
    assert response.json()["field"] == "player_four"
    assert not Game.objects.exists()


def test_boards_recorded_from_two_phones_settle_the_deal(table):
    client = client_for("cat_user", table)
    game_id = start(client, table).json()["id"]
    stranger = client_for("outsider", table)  # not one of the four, nor the game's creator
    response = board(client, game_id, 2, table["cat"], 3, 15, number=1)
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["hand"]["number"] == 1 and answer["hand"]["board"] == 2 and answer["hand"]["points"] == 12
    assert answer["game"]["deals"] == [
        {"number": 1, "dealer": table["bob"].pk, "winner": None, "points": 0, "settled": False}
    ]
    assert (
        stranger.post(f"/api/games/{game_id}/hands/", {"board": 1, "ending": "dead"}, format="json").status_code == 403
    )
    response = board(client, game_id, 1, table["ann"], 4, 20, number=1)
    assert response.status_code == 201
    game = response.json()["game"]
    assert game["deals"] == [
        {"number": 1, "dealer": table["bob"].pk, "winner": table["ann"].pk, "points": 28, "settled": True}
    ]
    assert (game["scores"][0]["player_one_hand_points"], game["scores"][0]["player_two_hand_points"]) == (28, 0)
    assert [(hand["number"], hand["board"]) for hand in game["hands"]] == [(1, 1), (1, 2)]
    assert game["next_dealer"]["id"] == table["bob"].pk  # the losing side deals


def test_refusals_name_the_deal_the_board_and_the_field(table):
    client = client_for("cat_user", table)
    game_id = start(client, table).json()["id"]
    response = board(client, game_id, 2, table["ann"], 3, 15)  # Ann plays on board 1
    assert response.status_code == 400
    assert {key: response.json()[key] for key in ("hand", "board", "field")} == {"hand": 1, "board": 2, "field": "by"}
    board(client, game_id, 1, table["ann"], 4, 20, number=1)
    response = board(client, game_id, 1, table["ann"], 4, 20, number=1)  # the other phone's copy
    assert response.status_code == 409
    assert {key: response.json()[key] for key in ("hand", "board", "field")} == {
        "hand": 1,
        "board": 1,
        "field": "number",
    }
    response = board(client, game_id, 1, table["bob"], 2, 20, number=2)  # deal 2 waits for deal 1's board 2
    assert response.status_code == 409 and response.json()["board"] == 1
    response = client.post(f"/api/games/{game_id}/hands/", {"ending": "dead"}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "board"
    response = client.post(f"/api/games/{game_id}/hands/", {"board": 3, "ending": "dead"}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "board"
    assert Hand.objects.count() == 1


def test_a_game_of_two_refuses_a_board_and_says_no_board_in_its_answers(table):
    client = client_for("cat_user", table)
    response = client.post(
        "/api/games/",
        {"player_one": table["cat"].pk, "player_two": table["dan"].pk, "first_dealer": table["dan"].pk},
        format="json",
    )
    game_id = response.json()["id"]
    assert "player_three" in response.json() and response.json()["player_three"] is None
    response = board(client, game_id, 1, table["cat"], 3, 15)
    assert response.status_code == 400 and response.json()["field"] == "board"
    response = client.post(
        f"/api/games/{game_id}/hands/", {"ending": "knock", "by": table["cat"].pk, **KNOCK}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["hand"]["board"] is None
    assert response.json()["game"]["deals"] == []


KNOCK = {"knocker_deadwood": 3, "defender_deadwood": 25}


def test_a_board_is_corrected_and_removed_through_the_api(table):
    client = client_for("cat_user", table)
    game_id = start(client, table).json()["id"]
    first = board(client, game_id, 1, table["ann"], 4, 20).json()["hand"]
    board(client, game_id, 2, table["cat"], 3, 15)
    response = client.patch(
        f"/api/games/{game_id}/hands/{first['id']}/",
        {"by": table["bob"].pk, "knocker_deadwood": 2, "defender_deadwood": 30, "reason": "Bob knocked"},
        format="json",
    )
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["hand"]["winner"] == table["bob"].pk and answer["hand"]["board"] == 1
    assert {"what": "Deal 1", "before": "Ann & Cat 28", "after": "Bob & Dan 16"} in answer["changes"]
    assert answer["game"]["deals"][0]["winner"] == table["bob"].pk
    response = client.patch(f"/api/games/{game_id}/hands/{first['id']}/", {"by": table["cat"].pk}, format="json")
    assert response.status_code == 400
    assert {key: response.json()[key] for key in ("hand", "board", "field")} == {"hand": 1, "board": 1, "field": "by"}
    response = client.delete(f"/api/games/{game_id}/hands/{first['id']}/?reason=entered%20twice")
    assert response.status_code == 200
    game = response.json()["game"]
    assert [(hand["number"], hand["board"]) for hand in game["hands"]] == [(1, 2)]
    assert game["deals"][0]["settled"] is False
    audit = client.get(f"/api/games/{game_id}/audit/").json()
    lines = audit["results"] if isinstance(audit, dict) else audit
    assert [line["what"] for line in lines if line["action"] == "hand_removed"] == ["Hand 1, board 1"]
    assert "Hand 1, board 1 went out" in [line["what"] for line in lines]


def test_the_record_round_trips_through_the_api(table):
    client = client_for("cat_user", table)
    game_id = start(client, table).json()["id"]
    board(client, game_id, 1, table["ann"], 4, 20)
    board(client, game_id, 2, table["cat"], 3, 15)
    board(client, game_id, 2, table["dan"], 1, 11)  # deal 2 waits: not in the record
    record = client.get(f"/api/games/{game_id}/record/").json()
    assert record["players"] == ["Ann", "Bob", "Cat", "Dan"]
    assert len(record["hands"]) == 1 and len(record["hands"][0]["boards"]) == 2
    assert record["expect"]["hands"][0]["winner"] == "Ann & Cat"
    imported = client.post("/api/games/import/", record, format="json")
    assert imported.status_code == 201, imported.content
    again = client.get(f"/api/games/{imported.json()['id']}/record/").json()
    assert again["hands"] == record["hands"] and again["expect"] == record["expect"]


def test_the_game_list_finds_a_partnership_game_by_any_of_its_players(table):
    client = client_for("cat_user", table)
    game_id = start(client, table).json()["id"]
    for player in ("ann", "bob", "cat", "dan"):
        found = client.get(f"/api/games/?player={table[player].pk}").json()["results"]
        assert [game["id"] for game in found] == [game_id], player


def test_a_board_post_runs_two_statements_more_than_a_hand_of_two(table):
    """Issue 41's "a board costs about what a hand costs", as a count: the partners' names (the locked read
    brings the first two players) and the deal's row are the board's only extra statements."""
    client = client_for("cat_user", table)
    partnership = start(client, table).json()["id"]
    board(client, partnership, 1, table["ann"], 4, 20)
    two = client.post(
        "/api/games/",
        {"player_one": table["cat"].pk, "player_two": table["dan"].pk, "first_dealer": table["dan"].pk},
        format="json",
    ).json()["id"]
    knock = {"ending": "knock", "by": table["cat"].pk, "knocker_deadwood": 3, "defender_deadwood": 20}
    client.post(f"/api/games/{two}/hands/", knock, format="json")
    with CaptureQueriesContext(connection) as board_statements:
        assert board(client, partnership, 2, table["cat"], 4, 20).status_code == 201
    with CaptureQueriesContext(connection) as hand_statements:
        assert client.post(f"/api/games/{two}/hands/", knock, format="json").status_code == 201

    # Counted statement by statement: PostgreSQL gets some of them together, as one text (scoring/writes.py).
    def statements(queries) -> int:
        return sum(len(query["sql"].split("; ")) for query in queries)

    assert statements(board_statements) == statements(hand_statements) + 2
