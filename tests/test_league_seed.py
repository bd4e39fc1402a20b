"""seed_demo builds a living league whose figures are the engine's."""

import pytest
from django.core.management import CommandError, call_command

from players.models import Club
from scoring.engine.rules import resolve_rules
from scoring.engine.score import score_session
from scoring.league.standings import season_standings
from scoring.models import FactChange, Game, LeagueStatus
from scoring.selectors import game_detail
from scoring.services import _facts_of


@pytest.mark.django_db
def test_seed_demo_builds_a_league_with_confirmed_provisional_and_disputed_games(capsys):
    call_command("seed_demo", "--players", "6", "--games", "12")
    club = Club.objects.get(name="Thursday Night Gin Club")
    season = club.seasons.get()
    assert season.fixtures.count() == 15  # 6 players meet once each
    games = list(Game.objects.filter(season=season))
    assert len(games) == 12 and all(game.over and game.fixture_id for game in games)
    statuses = sorted(game.league_status for game in games)
    assert statuses.count(LeagueStatus.CONFIRMED) == 10
    assert statuses.count(LeagueStatus.DISPUTED) == 1 and statuses.count(LeagueStatus.PLAYING) == 1
    assert FactChange.objects.filter(game__season=season, action="disputed").count() == 1
    # Every stored figure is what the engine makes of the stored facts.
    for game in games:
        game = game_detail(pk=game.pk)
        result = score_session(
            resolve_rules(game.rules), (game.player_one_id, game.player_two_id), game.first_dealer_id,
            [_facts_of(hand) for hand in game.hands.all()],
        )
        assert (game.winner_id, game.margin, game.hand_count) == (result.winner, result.margin, len(result.hands))
        assert [(h.winner_id, h.points, h.result) for h in game.hands.all()] == [
            (h.winner, h.points, h.result) for h in result.hands
        ]
    standings = season_standings(season)
    assert sum(row.played for row in standings.rows) == 2 * 10
    assert len(standings.provisional) == 2
    assert "/clubs/thursday-night-gin-club/seasons/" in capsys.readouterr().out


@pytest.mark.django_db
def test_seed_demo_refuses_to_overwrite_without_replace():
    call_command("seed_demo", "--players", "3", "--games", "1")
    with pytest.raises(CommandError):
        call_command("seed_demo", "--players", "3", "--games", "1")
    call_command("seed_demo", "--players", "4", "--games", "2", "--replace")
    assert Club.objects.get().seasons.get().players.count() == 4
