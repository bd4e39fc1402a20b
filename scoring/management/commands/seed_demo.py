"""A living demo league: a club, its members, a round-robin season with played games.

    python manage.py seed_demo                       # 12 players, about two thirds of the fixtures played
    python manage.py seed_demo --players 200 --games 5000   # a large club, for benchmarks

Every game is stored through the league services and scored by the engine;
most results are confirmed, some are left provisional and one is disputed, so
the standings and the provisional list both have something to show.
"""

from __future__ import annotations

import random
import time

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from players import clubs
from players.models import Club, Membership, Player, Role
from scoring.engine.rules import resolve_rules
from scoring.engine.score import HandFacts, score_session
from scoring.league import services as league
from scoring.models import Fixture, Game, LeagueStatus, SeasonFormat

FIRST_NAMES = [
    "Ada", "Bea", "Cal", "Dot", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou", "Max", "Nell", "Otto",
    "Pip", "Quin", "Rex", "Sal", "Tess", "Uma", "Vic", "Wyn", "Xan", "Yves", "Zoe",
]
SURNAMES = [
    "Archer", "Baker", "Carter", "Dyer", "Fletcher", "Glover", "Hooper", "Mason", "Porter", "Sawyer",
    "Tanner", "Turner", "Walker", "Weaver", "Wright",
]
MAX_HANDS = 80


def demo_names(count: int) -> list[str]:
    names = [f"{first} {last}" for last in SURNAMES for first in FIRST_NAMES]
    if count > len(names):
        names += [f"Player {n}" for n in range(len(names) + 1, count + 1)]
    return names[:count]


def random_hand(rng: random.Random, pair: tuple[int, int], knock_limit: int) -> HandFacts:
    """One plausible hand: mostly knocks, some gins and undercuts, the odd dead hand."""
    roll = rng.random()
    by = rng.choice(pair)
    if roll < 0.07:
        return HandFacts(ending="dead")
    if roll < 0.27 or knock_limit == 0:
        return HandFacts(ending="gin", by=by, defender_deadwood=rng.randint(4, 60))
    knocker = rng.randint(1, max(1, knock_limit))
    # About one knock in eight is undercut: the defender lays off down to the knocker's count or below.
    defender = rng.randint(0, knocker) if rng.random() < 0.12 else knocker + rng.randint(1, 45)
    return HandFacts(ending="knock", by=by, knocker_deadwood=knocker, defender_deadwood=defender)


def random_game(rng: random.Random, rules, pair: tuple[int, int], first_dealer: int) -> list[HandFacts]:
    """Hands until the engine says the game is over."""
    hands: list[HandFacts] = []
    while len(hands) < MAX_HANDS:
        hands.append(random_hand(rng, pair, rules.knock_limit))
        if score_session(rules, pair, first_dealer, hands).over:
            return hands
    raise CommandError("a demo game did not finish; check the season's rules")


class Command(BaseCommand):
    help = "Create a demo club with a round-robin season and played games (public, so anyone can look)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=12, help="members playing the season (default 12)")
        parser.add_argument(
            "--games", type=int, default=None, help="fixtures to play (default: about two thirds of them)"
        )
        parser.add_argument("--club", default="Thursday Night Gin Club", help="the club's name")
        parser.add_argument("--double", action="store_true", help="a double round robin (home and away)")
        parser.add_argument("--seed", type=int, default=7, help="random seed, for the same demo every time")
        parser.add_argument("--replace", action="store_true", help="delete a club of the same name first")

    def handle(self, *args, players: int, games: int | None, club: str, double: bool, seed: int, replace, **opts):
        if players < 2:
            raise CommandError("--players must be at least 2")
        rng = random.Random(seed)
        started = time.perf_counter()
        existing = Club.objects.filter(name=club).first()
        if existing and not replace:
            raise CommandError(f"A club named {club!r} exists already; use --replace or another --club name.")
        with transaction.atomic():
            if existing:
                self._delete(existing)
            the_club, season, fixtures = self._club_and_season(club, players, double, rng)
            wanted = len(fixtures) * 2 // 3 if games is None else games
            if wanted > len(fixtures):
                raise CommandError(f"--games {wanted} is more than the season's {len(fixtures)} fixtures")
            stored = self._play(season, fixtures[:wanted], rng)
        elapsed = time.perf_counter() - started
        confirmed = sum(1 for game in stored if game.league_status == LeagueStatus.CONFIRMED)
        self.stdout.write(
            f"{the_club.name}: {players} players, {len(fixtures)} fixtures, {len(stored)} games played "
            f"({confirmed} confirmed, {len(stored) - confirmed} provisional or disputed) in {elapsed:.1f}s.\n"
            f"See it at /clubs/{the_club.slug}/seasons/{season.pk}/"
        )

    def _delete(self, club: Club) -> None:
        seasons = list(club.seasons.all())
        Game.objects.filter(season__in=seasons).delete()
        club.delete()

    def _club_and_season(self, name: str, count: int, double: bool, rng: random.Random):
        User = get_user_model()
        # Demo accounts cannot sign in (unusable passwords) until someone sets one.
        director, _ = User.objects.get_or_create(
            username="club-director", defaults={"first_name": "Club director", "password": make_password(None)}
        )
        the_club = clubs.club_create(name=name, owner=director, is_public=True)
        names = demo_names(count)
        existing = {p.name.lower(): p for p in Player.objects.filter(name__in=names)}
        Player.objects.bulk_create(
            [Player(name=n, created_by=director) for n in names if n.lower() not in existing],
            batch_size=500,
        )
        members = list(Player.objects.filter(name__in=names))
        # The first few players have accounts (they can log in once given a password); the rest are guests.
        for player in members[:3]:
            if player.user_id is None:
                user, _ = User.objects.get_or_create(
                    username=player.name.lower().replace(" ", "."), defaults={"password": make_password(None)}
                )
                player.user = user
                player.save(update_fields=["user"])
        Membership.objects.bulk_create(
            [Membership(club=the_club, player=p, role=Role.ADMIN if i == 0 else Role.PLAYER) for i, p in
             enumerate(members)],
            batch_size=500,
            ignore_conflicts=True,
        )
        season = league.season_create(
            club=the_club,
            name="Autumn League",
            players=members,
            rules={"preset": "standard"},
            format=SeasonFormat.DOUBLE if double else SeasonFormat.SINGLE,
            ranking=["wins", "net", "head_to_head"],
            created_by=director,
        )
        fixtures = list(Fixture.objects.filter(season=season).select_related("home", "away").order_by("round", "pk"))
        return the_club, season, fixtures

    def _play(self, season, fixtures: list[Fixture], rng: random.Random) -> list[Game]:
        rules = resolve_rules(season.rules)
        director = season.created_by
        stored: list[Game] = []
        for fixture in fixtures:
            pair = (fixture.home_id, fixture.away_id)
            dealer = fixture.away
            hands = random_game(rng, rules, pair, dealer.pk)
            game = league.season_game_import(
                season=season,
                player_one=fixture.home,
                player_two=fixture.away,
                first_dealer=dealer,
                hands=hands,
                fixture=fixture,
                started_by=director,
            )
            stored.append(game)
        # The latest sixth of the games wait for confirmation; one of them is disputed.
        confirm_upto = len(stored) - max(1, len(stored) // 6) if len(stored) > 2 else len(stored)
        for game in stored[:confirm_upto]:
            league.game_confirm(game=game, confirmed_by=director)
        waiting = stored[confirm_upto:]
        if len(waiting) > 1:
            league.game_dispute(
                game=waiting[0], disputed_by=director, comment="Hand 3 looks wrong: was that an undercut?"
            )
        return stored
