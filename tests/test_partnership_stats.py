"""Partnership games in a player's history and profile (issue #41): a board is not a two-handed game, the
hand history finds the boards a player sat at, and the profile counts partnership games apart."""

import csv
import io

import pytest
from django.urls import reverse

from scoring.services import board_record, game_create, hand_record
from scoring.stats.history import hand_history
from scoring.stats.selectors import partnership_stats, player_stats
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def four():
    return [PlayerFactory(name=name) for name in ("Ann", "Bob", "Cat", "Dan")]


def partnership(four, **rules):
    ann, bob, cat, dan = four
    return game_create(
        player_one=ann,
        player_two=bob,
        player_three=cat,
        player_four=dan,
        first_dealer=bob,
        rules={"preset": "partnership", **rules},
    )


def gin(game, board, by):
    return board_record(game=game, board=board, ending="gin", by=by, defender_deadwood=20)


def knock(game, board, by, knocker, defender):
    return board_record(
        game=game, board=board, ending="knock", by=by, knocker_deadwood=knocker, defender_deadwood=defender
    )


def finished(four):
    """Ann & Cat beat Bob & Dan in two deals (37, then 90); Dan wins one board on the way."""
    ann, bob, cat, dan = four
    game = partnership(four)
    gin(game, 1, ann)
    knock(game, 2, dan, 2, 10)
    gin(game, 1, ann)
    gin(game, 2, cat)
    game.refresh_from_db()
    assert game.over and game.winner == ann
    return game


def test_two_handed_figures_leave_partnership_games_out(four):
    ann, bob, *_ = four
    finished(four)
    two = game_create(player_one=ann, player_two=bob, first_dealer=ann)
    hand_record(game=two, ending="knock", by=ann, knocker_deadwood=3, defender_deadwood=20)
    stats = player_stats(ann, viewer=None)
    assert (stats.games, stats.hands, stats.hands_won, stats.gins) == (0, 1, 1, 0)
    assert stats.head_to_head == []  # no game of two finished: the partnership game is no Ann v Bob


def test_the_profile_counts_partnership_games_apart(four, client):
    ann, bob, cat, dan = four
    finished(four)
    stats = partnership_stats(ann, viewer=None)
    assert (stats.games, stats.finished, stats.wins) == (1, 1, 1)
    assert (stats.deals, stats.deals_won) == (2, 2)
    assert (stats.boards, stats.boards_won) == (2, 2)  # Ann sits at board 1 every deal
    [partner] = stats.partners
    assert (partner.partner, partner.games, partner.wins, partner.deals_won) == ("Cat", 1, 1, 2)
    [side] = stats.sides
    assert (side.name, side.played, side.won, side.lost) == ("Bob & Dan", 1, 1, 0)
    dan_stats = partnership_stats(dan, viewer=None)
    assert (dan_stats.boards, dan_stats.boards_won, dan_stats.wins, dan_stats.deals_won) == (2, 1, 0, 0)
    assert dan_stats.sides[0].name == "Ann & Cat" and dan_stats.sides[0].lost == 1
    page = client.get(reverse("stats:profile", args=[dan.pk])).content.decode()
    assert 'id="partnership-stats"' in page and 'data-partner="Bob"' in page and 'data-side="Ann &amp; Cat"' in page


@pytest.mark.parametrize("opponents", ["fixed", "alternate"])
def test_the_hand_history_finds_the_boards_a_player_sat_at(four, opponents):
    ann, bob, cat, dan = four
    game = partnership(four, partner_opponents=opponents)
    knock(game, 1, ann, 2, 10)
    knock(game, 2, cat, 2, 10)
    knock(game, 1, ann, 2, 10)  # deal 2: alternate -> board 1 is Ann v Dan, board 2 Cat v Bob
    knock(game, 2, cat, 2, 10)
    for player in four:
        boards = [(hand.number, hand.board) for hand in hand_history(viewer=None, player=player)]
        seat = four.index(player)
        want = []
        for number in (2, 1):
            swapped = opponents == "alternate" and number % 2 == 0 and seat in (1, 3)
            board = 1 if seat in (0, 1) else 2
            want.append((number, 3 - board if swapped else board))
        assert boards == want, player.name
    against_dan = [(hand.number, hand.board) for hand in hand_history(viewer=None, player=ann, opponent=dan)]
    assert against_dan == ([(2, 1)] if opponents == "alternate" else [])
    against_bob = [(hand.number, hand.board) for hand in hand_history(viewer=None, player=ann, opponent=bob)]
    assert against_bob == ([(1, 1)] if opponents == "alternate" else [(2, 1), (1, 1)])


def test_the_history_page_names_a_board(four, client):
    ann, *_ = four
    finished(four)
    page = client.get(reverse("stats:player_hands", args=[ann.pk])).content.decode()
    assert "Ann & Cat v Bob & Dan, board 1" in page


def test_the_printable_sheet_shows_each_deal_s_boards_and_the_sides_running_totals(four, client):
    ann, bob, cat, dan = four
    game = partnership(four)
    gin(game, 1, ann)  # Ann gin 45
    knock(game, 2, dan, 2, 10)  # Dan knock 8: Ann & Cat by 37
    knock(game, 2, cat, 3, 15)  # deal 2 waits for board 1
    page = client.get(reverse("stats:game_print", args=[game.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Ann &amp; Cat v Bob &amp; Dan" in html
    deal_one = html[html.index('data-deal="1"') : html.index('data-deal="2"')]
    assert "Ann v Bob, Bob deals: <strong>Ann gin 45</strong>" in deal_one
    assert "Cat v Dan, Dan deals: <strong>Dan knock 8</strong>" in deal_one
    assert "Ann &amp; Cat by 37" in deal_one
    deal_two = html[html.index('data-deal="2"') :]
    assert "waiting for a board" in deal_two and "<strong>Cat knock 12</strong>" in deal_two
    assert 'data-side="Ann &amp; Cat"' in html and ">88<" in html  # Ann & Cat still need 125 - 37
    sheet = client.get(reverse("game", args=[game.pk])).content.decode()
    assert f'href="{reverse("stats:game_print", args=[game.pk])}"' in sheet  # the sheet links its printable form
    two = game_create(player_one=ann, player_two=bob, first_dealer=ann)
    assert client.get(reverse("stats:game_print", args=[two.pk])).url == reverse("game", args=[two.pk])
    assert client.get(reverse("stats:game_print", args=[99999])).status_code == 404


def test_the_hands_csv_names_the_board_and_the_two_players_who_sat_at_it(client, four):
    """Each board is a row naming its board and its own two players (board 2 is Cat v Dan, or Cat v Bob on
    an even deal when opponents alternate), never the game's first two players."""
    ann, bob, cat, dan = four
    game = partnership(four, partner_opponents="alternate")
    gin(game, 1, ann)
    knock(game, 2, dan, 2, 10)
    knock(game, 1, dan, 3, 30)  # deal 2 alternates: board 1 is Ann v Dan
    gin(game, 2, cat)  # and board 2 Cat v Bob
    two = game_create(player_one=ann, player_two=bob, first_dealer=ann)
    hand_record(game=two, ending="knock", by=bob, knocker_deadwood=3, defender_deadwood=20)
    response = client.get(reverse("stats:player_hands_csv", args=[cat.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(row["hand"], row["board"], row["player_one"], row["player_two"], row["by"]) for row in rows] == [
        ("2", "2", "Cat", "Bob", "Cat"),
        ("1", "2", "Cat", "Dan", "Dan"),
    ]
    every = client.get(reverse("stats:player_hands_csv", args=[bob.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(every.streaming_content).decode())))
    seated = [(row["hand"], row["board"], row["player_one"], row["player_two"]) for row in rows]
    assert ("1", "", "Ann", "Bob") in seated
