"""The knockout bracket is derived from seeds and results alone (scoring/engine/bracket.py)."""

import itertools

import pytest

from scoring.engine.bracket import TieGame, bracket, round_name, seed_positions


def play_out(entrants: int, *, best_of: int = 1, winner_of=min):
    """Play a whole knockout of players 1..n (seed = player), ``winner_of`` picks each tie's winner."""
    seeds = list(range(1, entrants + 1))
    games: list[TieGame] = []
    keys = itertools.count(1)
    while True:
        current = bracket(seeds, games, best_of=best_of)
        ready = current.ready_ties()
        if not ready:
            return current, games
        for tie in ready:
            winner = winner_of(tie.one, tie.two)
            games.append(TieGame(key=next(keys), one=tie.one, two=tie.two, winner=winner))


def test_seed_positions_keep_top_seeds_apart():
    assert seed_positions(2) == [1, 2]
    assert seed_positions(4) == [1, 4, 2, 3]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (16, 32, 64):
        order = seed_positions(size)
        assert sorted(order) == list(range(1, size + 1))
        assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
        assert 1 in order[: size // 2] and 2 in order[size // 2 :]


@pytest.mark.parametrize("entrants", range(2, 65))
def test_every_field_from_2_to_64_plays_out_to_the_top_seed(entrants):
    result, games = play_out(entrants)
    size = 1 << (entrants - 1).bit_length()
    assert result.size == size
    assert len(result.rounds) == size.bit_length() - 1
    assert [len(ties) for ties in result.rounds] == [size >> r for r in range(1, len(result.rounds) + 1)]
    first = result.rounds[0]
    # Everyone is drawn exactly once; the byes go to the top seeds.
    drawn = [p for tie in first for p in (tie.one, tie.two) if p is not None]
    assert sorted(drawn) == list(range(1, entrants + 1))
    byes = [tie for tie in first if tie.bye]
    assert len(byes) == size - entrants
    assert sorted(tie.winner for tie in byes) == list(range(1, size - entrants + 1))
    assert all(not tie.games for tie in byes)
    # A knockout of n entrants is n - 1 games when every tie is one game.
    assert len(games) == entrants - 1
    assert result.champion == 1
    assert result.unplaced == []


@pytest.mark.parametrize("entrants", [2, 3, 5, 8, 13, 64])
def test_the_underdog_can_win_and_advances(entrants):
    result, _ = play_out(entrants, winner_of=max)
    # The bottom seed never has a bye, beats everyone it meets, and so wins the cup.
    assert result.champion == entrants
    final = result.rounds[-1][0]
    assert result.champion == final.winner and final.winner in (final.one, final.two)
    for earlier, later in itertools.pairwise(result.rounds):
        for index, tie in enumerate(later):
            assert tie.one == earlier[2 * index].winner and tie.two == earlier[2 * index + 1].winner


def test_five_players_three_byes_and_the_draw():
    result = bracket(["Ann", "Bob", "Cat", "Dan", "Eve"], [])
    first = result.rounds[0]
    assert [(t.one, t.two) for t in first] == [("Ann", None), ("Dan", "Eve"), ("Bob", None), ("Cat", None)]
    assert [t.winner for t in first] == ["Ann", None, "Bob", "Cat"]
    assert [(t.one, t.two) for t in result.rounds[1]] == [("Ann", None), ("Bob", "Cat")]
    assert [t.ready for t in result.ready_ties()] == [True, True]
    assert {(t.one, t.two) for t in result.ready_ties()} == {("Dan", "Eve"), ("Bob", "Cat")}
    assert result.champion is None
    assert [round_name(n, 3) for n in (1, 2, 3)] == ["Quarter-finals", "Semi-finals", "Final"]


def test_best_of_three_needs_two_wins_and_level_games_count_for_nobody():
    games = [
        TieGame(1, "Ann", "Bob", "Bob"),
        TieGame(2, "Bob", "Ann", None),  # level
        TieGame(3, "Ann", "Bob", "Ann"),
    ]
    tie = bracket(["Ann", "Bob"], games, best_of=3).rounds[0][0]
    assert (tie.wins_one, tie.wins_two, tie.winner, tie.games) == (1, 1, None, [1, 2, 3])
    games.append(TieGame(4, "Bob", "Ann", "Ann"))
    games.append(TieGame(5, "Bob", "Ann", "Bob"))  # after the tie is decided: counts for nothing
    result = bracket(["Ann", "Bob"], games, best_of=3)
    assert (result.rounds[0][0].wins_one, result.champion, result.unplaced) == (2, "Ann", [5])


def test_a_game_between_players_who_do_not_meet_changes_nothing():
    result = bracket([1, 2, 3, 4], [TieGame("x", 1, 2, 2)])
    assert result.unplaced == ["x"] and result.rounds[1][0].one is None


def test_refuses_what_cannot_be_a_knockout():
    with pytest.raises(ValueError, match="two entrants"):
        bracket([1], [])
    with pytest.raises(ValueError, match="twice"):
        bracket([1, 1], [])
    with pytest.raises(ValueError, match="odd"):
        bracket([1, 2], [], best_of=2)
