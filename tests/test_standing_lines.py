"""The standings lines the services keep equal the lines rebuilt from scratch, whatever happened."""

import random

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command

from players import clubs
from scoring import services
from scoring.league import services as league
from scoring.league.standings import PairResult, Row, rank, season_standings
from scoring.merge import player_merge
from scoring.models import Game, LeagueStatus, SeasonFormat, StandingLine, StandingTotal
from tests.fuzzing import examples
from tests.league_setup import make_club, play, start_and_finish

pytestmark = pytest.mark.django_db

FIGURES = (
    "game_id", "season_id", "player_id", "opponent_id", "fixture", "won", "lost", "drawn", "net",
    "hands_won", "gins", "undercuts_given", "undercuts_received",
)  # fmt: skip


TOTALS = ("season_id", "player_id", "fixture", "played", *FIGURES[5:])


def stored_lines() -> list[tuple]:
    """Every standings line and season total, in a fixed order."""
    return [
        *sorted(StandingLine.objects.values_list(*FIGURES)),
        None,
        *sorted(StandingTotal.objects.values_list(*TOTALS)),
    ]


def assert_rebuilt_equal_maintained() -> None:
    maintained = stored_lines()
    services.standing_lines_rebuild()
    assert stored_lines() == maintained


def random_hand(rng: random.Random, game: Game) -> dict:
    by = rng.choice((game.player_one_id, game.player_two_id))
    roll = rng.random()
    if roll < 0.1:
        return {"ending": "dead"}
    if roll < 0.5:  # a few gins end a game: results to confirm, dispute and correct
        return {"ending": "gin", "by": by, "defender_deadwood": rng.randint(30, 80)}
    knocker = rng.randint(1, 10)
    return {"ending": "knock", "by": by, "knocker_deadwood": knocker, "defender_deadwood": rng.randint(0, 40)}


def pick(rng: random.Random, rows: list, preferred: list):
    """Mostly one of ``preferred`` (where something can happen), sometimes any (to be refused), else None."""
    if preferred and rng.random() < 0.8:
        return rng.choice(preferred)
    return rng.choice(rows) if rows and rng.random() < 0.3 else None


def random_step(rng: random.Random, cast, seasons, guests) -> None:
    """One thing that happens to a club: a game started, a hand recorded, corrected or removed, a result
    confirmed or disputed, a game deleted, or two guests' records merged. Refusals are part of it."""
    games = list(Game.objects.order_by("pk"))
    in_play = [game for game in games if not game.over]
    awaiting = [game for game in games if game.over and game.league_status == LeagueStatus.PLAYING]
    confirmed = [game for game in games if game.league_status == LeagueStatus.CONFIRMED]
    action = rng.choices(
        ("hand", "edit", "remove", "confirm", "dispute", "delete", "merge"), weights=(8, 2, 1, 3, 1, 1, 1)
    )[0]
    if len(in_play) < 2:
        action = "start"
    # Hands go to games in play; corrections and deletions mostly to confirmed results.
    targets = {"hand": in_play, "edit": confirmed, "remove": confirmed, "delete": confirmed, "confirm": awaiting,
               "dispute": awaiting}  # fmt: skip
    game = pick(rng, games, targets[action]) if action in targets else None
    if action not in ("start", "merge") and game is None:
        return
    try:
        if action == "start":
            season = rng.choice(seasons)
            one, two = rng.sample(list(season.players.all()), 2)
            league.open_game_start(season=season, player_one=one, player_two=two, started_by=cast.owner)
        elif action == "hand":  # mostly a game in play; a finished one refuses it
            services.hand_record(game=game, recorded_by=cast.owner, **random_hand(rng, game))
        elif action in ("edit", "remove"):  # mostly a confirmed result corrected
            hand = game.hands.order_by("?").first()
            if hand is None:
                return
            if action == "edit":
                services.hand_edit(hand=hand, edited_by=cast.owner, reason="fuzz", **random_hand(rng, game))
            else:
                services.hand_remove(hand=hand, removed_by=cast.owner, reason="fuzz")
        elif action == "confirm":
            league.game_confirm(game=game, confirmed_by=cast.owner)
        elif action == "dispute":
            league.game_dispute(game=game, disputed_by=cast.owner, comment="not so")
        elif action == "delete":
            services.game_delete(game=game)
        elif action == "merge" and len(guests) > 3 and rng.random() < 0.3:
            keep, drop = rng.sample(guests, 2)
            player_merge(keep=keep, drop=drop, merged_by=cast.owner)
            guests.remove(drop)
    except (ValidationError, PermissionDenied):  # services.HandRefused is one: refused, nothing changed
        pass


def test_maintained_lines_equal_the_rebuilt_ones_after_random_club_nights():
    for seed in range(examples(3, 40)):
        rng = random.Random(seed)
        cast = make_club(name=f"Fuzz {seed}")
        guests = [clubs.member_add_guest(club=cast.club, name=f"G{seed}-{n}").player for n in range(6)]
        # Two open seasons with no entrant in both, so that guests of different seasons may be merged.
        seasons = [
            league.season_create(club=cast.club, name=f"S{n}", players=guests[3 * n : 3 * n + 3],
                                 format=SeasonFormat.OPEN, created_by=cast.owner)
            for n in range(2)
        ]  # fmt: skip
        for _ in range(120):
            random_step(rng, cast, seasons, guests)
        counted = Game.objects.filter(league_status=LeagueStatus.CONFIRMED, over=True).count()
        assert StandingLine.objects.count() == 2 * counted
        assert_rebuilt_equal_maintained()


def test_standings_follow_correction_deletion_and_merge():
    cast = make_club(name="Lines")
    ann, bob, cy, di = (clubs.member_add_guest(club=cast.club, name=name).player for name in ("Ann", "Bob", "Cy", "Di"))
    first = league.season_create(club=cast.club, name="First", players=[ann, bob], format=SeasonFormat.OPEN)
    second = league.season_create(club=cast.club, name="Second", players=[cy, di], format=SeasonFormat.OPEN)
    game = play(league.open_game_start(season=first, player_one=ann, player_two=bob, started_by=cast.owner), ann)
    league.game_confirm(game=game, confirmed_by=cast.owner)
    rows = {row.name: row for row in season_standings(first).rows}
    assert (rows["Ann"].won, rows["Ann"].net, rows["Ann"].gins, rows["Bob"].lost) == (1, game.margin, 1, 1)

    # Corrected after confirmation: Bob went gin, not Ann.
    hand = game.hands.get()
    services.hand_edit(hand=hand, ending="gin", by=bob, defender_deadwood=80, edited_by=cast.owner, reason="swap")
    rows = {row.name: row for row in season_standings(first).rows}
    assert (rows["Ann"].won, rows["Bob"].won, rows["Bob"].gins, rows["Ann"].gins) == (0, 1, 1, 0)

    # Cy's record merged into Ann's: her line of the second season follows her.
    other = play(league.open_game_start(season=second, player_one=cy, player_two=di, started_by=cast.owner), cy)
    league.game_confirm(game=other, confirmed_by=cast.owner)
    player_merge(keep=ann, drop=cy, merged_by=cast.owner)
    rows = {row.name: row for row in season_standings(second).rows}
    assert (rows["Ann"].won, rows["Di"].lost) == (1, 1)
    assert_rebuilt_equal_maintained()

    services.game_delete(game=other)
    assert season_standings(second).rows[0].played == 0
    assert_rebuilt_equal_maintained()


def test_playoff_games_stay_out_of_the_round_robin_standings():
    cast = make_club(name="Playoffs")
    entrants = [clubs.member_add_guest(club=cast.club, name=f"P{n}").player for n in range(3)]
    season = league.season_create(
        club=cast.club, name="RR", players=entrants, format=SeasonFormat.PLAYOFFS, playoff_size=2
    )
    for fixture in season.fixtures.all():
        start_and_finish(fixture, fixture.home, started_by=cast.owner, confirm_by=cast.owner)
    before = [(row.player_id, row.played, row.won) for row in season_standings(season).rows]
    seeds = league.playoffs_start(season=season, started_by=cast.owner)
    final = league.knockout_game_start(
        season=season, player_one=seeds[0].player, player_two=seeds[1].player, started_by=cast.owner
    )
    league.game_confirm(game=play(final, seeds[0].player), confirmed_by=cast.owner)
    assert [(row.player_id, row.played, row.won) for row in season_standings(season).rows] == before
    assert StandingLine.objects.filter(game=final, fixture=False).count() == 2
    assert_rebuilt_equal_maintained()


def test_rebuild_standings_command_writes_the_lines_again(capsys):
    cast = make_club(name="Command")
    ann, bob = (clubs.member_add_guest(club=cast.club, name=name).player for name in ("Ann", "Bob"))
    season = league.season_create(club=cast.club, name="S", players=[ann, bob], format=SeasonFormat.OPEN)
    game = play(league.open_game_start(season=season, player_one=ann, player_two=bob, started_by=cast.owner), bob)
    league.game_confirm(game=game, confirmed_by=cast.owner)
    maintained = stored_lines()
    StandingLine.objects.all().delete()  # e.g. games changed outside the services
    StandingTotal.objects.all().delete()
    call_command("rebuild_standings")
    assert "2 standings lines written" in capsys.readouterr().out
    assert stored_lines() == maintained


# --- issue 29, item 9: each line says what put the player above the next ------------------------------


def test_each_standings_line_says_what_put_the_player_above_the_next():
    rows = [
        Row(1, "Ann", won=3, net=10),
        Row(2, "Bob", won=2, net=50),
        Row(3, "Cy", won=2, net=90),
        Row(4, "Dee", won=1, net=0),
        Row(5, "Eve", won=0, net=-70),
        Row(6, "Fay", won=0, net=-70),
    ]
    pairs = [PairResult(2, 3, wins_a=1, wins_b=0, net_a=15)]  # Bob beat Cy
    ranked = rank(rows, ["wins", "head_to_head", "net"], pairs)
    assert [(row.name, row.ahead_by_words) for row in ranked] == [
        ("Ann", "on games won"),  # not what split Bob from Cy below her
        ("Bob", "on head-to-head"),
        ("Cy", "on games won"),
        ("Dee", "on games won"),
        ("Eve", "level"),  # level with Fay on every criterion: they share 5th
        ("Fay", ""),  # the last line
    ]
    assert [row.ahead_by for row in ranked[:2]] == ["wins", "head_to_head"]


def test_the_line_above_a_tie_broken_later_says_what_put_it_above_whatever_order_the_rows_come_in():
    """Cy and Bob are level on games won and split on net points: Ann's line says "on games won" even
    when Bob, whom net points put second, comes before Cy in the rows (the database's order)."""
    rows = [Row(1, "Ann", won=3), Row(2, "Bob", won=2, net=10), Row(3, "Cy", won=2, net=90), Row(4, "Dee", won=1)]
    ranked = rank(rows, ["wins", "net"])
    assert [(row.name, row.decided_by, row.ahead_by_words) for row in ranked] == [
        ("Ann", "", "on games won"),
        ("Cy", "wins", "on net points"),
        ("Bob", "net", "on games won"),
        ("Dee", "wins", ""),
    ]
    level = rank([Row(1, "Ann", won=3), Row(2, "Bob", won=2), Row(3, "Cy", won=2)], ["wins", "net"])
    assert [(row.name, row.decided_by, row.ahead_by_words) for row in level] == [
        ("Ann", "", "on games won"),
        ("Bob", "wins", "level"),
        ("Cy", "", ""),  # level with Bob: nothing put Cy below him
    ]


def test_head_to_head_among_three_where_two_never_met_is_recomputed_for_the_two_still_level():
    """The example in docs/league.md: Ann beat Cy by 20, Cy beat Bob by 40, Ann and Bob never met."""
    rows = [Row(1, "Ann", won=4, net=100), Row(2, "Bob", won=4, net=300), Row(3, "Cy", won=4, net=200)]
    pairs = [PairResult(1, 3, 1, 0, 20), PairResult(3, 2, 1, 0, 40)]
    ranked = rank(rows, ["wins", "head_to_head", "net"], pairs)
    # Among the three: Ann 1 win +20, Cy 1 win -20+40 = +20, Bob 0 wins -40. Ann and Cy still level:
    # between those two alone, Ann beat Cy. Net points (Bob's 300) never come into it.
    assert [(row.name, row.position, row.ahead_by_words) for row in ranked] == [
        ("Ann", 1, "on head-to-head"),
        ("Cy", 2, "on head-to-head"),
        ("Bob", 3, ""),
    ]
    # Another season: Ann and Cy never met and each beat Bob by 40. Between the two alone nothing
    # separates them, so the next criterion, net points, does.
    ranked = rank(rows, ["wins", "head_to_head", "net"], [PairResult(3, 2, 1, 0, 40), PairResult(1, 2, 1, 0, 40)])
    assert [(row.name, row.ahead_by_words) for row in ranked] == [
        ("Cy", "on net points"),
        ("Ann", "on head-to-head"),
        ("Bob", ""),
    ]
