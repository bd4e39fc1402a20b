import pytest

from scoring.engine.ratings import RatedGame, elo_ratings, expected_score


def test_first_game_between_newcomers_moves_16_points():
    ratings = elo_ratings([RatedGame(1, "ann", "bob")])
    assert ratings.current == {"ann": 1516.0, "bob": 1484.0}


def test_known_elo_arithmetic():
    # 1516 v 1484: expected 1 / (1 + 10^(-32/400)) = 0.54592..., gain 32 * 0.45408 = 14.5305
    assert expected_score(1516, 1484) == pytest.approx(0.545922, abs=1e-6)
    ratings = elo_ratings([RatedGame(1, "ann", "bob"), RatedGame(2, "ann", "bob")])
    assert ratings.current["ann"] == pytest.approx(1530.5305, abs=1e-3)
    assert ratings.current["bob"] == pytest.approx(1469.4695, abs=1e-3)
    # An upset gains more: bob (1469.47) beats ann (1530.53).
    upset = elo_ratings([RatedGame(1, "ann", "bob"), RatedGame(2, "ann", "bob"), RatedGame(3, "bob", "ann")])
    assert upset.history["bob"][-1].change == pytest.approx(32 * (1 - expected_score(1469.4695, 1530.5305)), abs=1e-3)
    assert upset.history["bob"][-1].change > 16


def test_recomputing_after_a_correction_follows_the_new_result():
    played = [RatedGame(1, "ann", "bob"), RatedGame(2, "cat", "ann")]
    corrected = [RatedGame(1, "bob", "ann"), RatedGame(2, "cat", "ann")]
    assert elo_ratings(played).current != elo_ratings(corrected).current
    assert elo_ratings(corrected).current["bob"] == 1516.0
    # Ratings are zero-sum: the pool's total never changes.
    assert sum(elo_ratings(corrected).current.values()) == pytest.approx(1500 * 3)
