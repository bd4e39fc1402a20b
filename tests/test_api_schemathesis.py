"""Schemathesis against the live OpenAPI schema: no server error, no response that breaks the schema.

Requests go in-process to the Django WSGI app (same thread, same test
transaction), authenticated with the token of a seeded user who may edit the
seeded game. Path ids are sometimes swapped for the seeded game and hand so
the writes reach the services instead of stopping at 404.

`make test` sends each operation its schema examples and a few generated cases;
`make fuzz` adds schemathesis's coverage phase (about 2,000 more: every wrong type,
boundary, missing and unexpected field of every operation) and many more generated ones.
"""

import pytest
import schemathesis
from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from players import clubs
from players.tokens import token_create
from scoring import services
from scoring.league import services as league
from scoring.models import Game
from scoring.stats import selectors as stats_selectors
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.fuzzing import DEEP, examples

MAX_EXAMPLES = examples(quick=6, deep=300)  # per operation


# Loaded when the module is collected (pytest-django has set Django up by then); serving the
# schema touches no database table.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
schema.config.phases.coverage.enabled = DEEP


@pytest.fixture
def same_connection():
    """Requests go straight to the WSGI app, not through Django's test client, so switch off what the
    test client switches off too: closing the database connection at the end of each request (which on
    PostgreSQL would drop the test's transaction)."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def seeded(db, settings, same_connection, seeded_rows):
    """The seeded rows (each test's writes are rolled back after it), and no figures cached by an earlier
    test, which saw other writes to the same rows."""
    cache.clear()
    stats_selectors._RATINGS.clear()
    return seeded_rows


@pytest.fixture(scope="module")
def seeded_rows(module_rows):
    """The fuzzer's account, players, games and league, built once per module (48 operations) instead of
    once per operation."""
    user = UserFactory(username="fuzzer")
    ann = PlayerFactory(name="Fuzz Ann", user=user)
    bob = PlayerFactory(name="Fuzz Bob")
    state = {"token": token_create(user=user).key, "user": user, "ann": ann, "bob": bob}

    def game_and_hand():
        game = Game.objects.filter(created_by=user).order_by("pk").first()
        if game is None or not game.hands.exists():
            game = make_game(
                player_one=ann,
                player_two=bob,
                first_dealer=bob,
                created_by=user,
                hands=[{"ending": "knock", "by": ann, "knocker_deadwood": 5, "defender_deadwood": 30}],
            )
        return game, game.hands.order_by("number").first()

    state["game_and_hand"] = game_and_hand
    state.update(_seed_league(user, ann, bob))
    return state


def _seed_league(user, ann, bob) -> dict:
    """A club the fuzzer owns, a round robin Ann v Bob v Cy, and a finished Ann v Bob game started by
    nobody in particular (so the fuzzer, as Ann, may confirm it as an admin and dispute it as the opponent)."""
    club = clubs.club_create(name="Fuzz Club", owner=user, is_public=False)
    clubs.member_add_guest(club=club, name=bob.name)
    cy = clubs.member_add_guest(club=club, name="Fuzz Cy").player
    season = league.season_create(club=club, name="Fuzz Season", players=[ann, bob, cy])
    fixture = season.fixtures.get(home__in=[ann, bob], away__in=[ann, bob])
    league_game = league.fixture_start(fixture=fixture, started_by=None)
    services.hand_record(game=league_game, ending="gin", by=ann, defender_deadwood=80)
    unstarted = season.fixtures.filter(game__isnull=True).order_by("pk").first()
    return {"club": club, "season": season, "fixture": unstarted, "league_game": league_game}


def _aim(case, seeded) -> None:
    """Point about half the generated ids at real objects (even ids -> the seeded game/hand/player)."""
    params = case.path_parameters or {}
    if not params:
        return
    game, hand = seeded["game_and_hand"]()
    targets = {"game_pk": game.pk, "pk": hand.pk if "game_pk" in params else None, "id": None}
    path = case.operation.path
    if path.startswith("/api/players/"):
        targets["id"] = seeded["ann"].pk
    elif path.startswith("/api/games/{id}/") and path.split("/")[4] in ("confirm", "dispute", "audit"):
        targets["id"] = seeded["league_game"].pk
    elif path.startswith("/api/games/"):
        targets["id"] = game.pk
    elif path.startswith("/api/clubs/"):
        targets["id"] = seeded["club"].pk
    elif path.startswith("/api/seasons/"):
        targets["id"] = seeded["season"].pk
    elif path.startswith("/api/fixtures/"):
        targets["id"] = seeded["fixture"].pk
    for name, value in list(params.items()):
        if isinstance(value, int) and value % 2 == 0 and targets.get(name) is not None:
            params[name] = targets[name]


CURRENT_TOKEN: dict[str, str] = {}


@schema.auth(refresh_interval=None)
class SeededToken:
    """The seeded user's token; the `ignored_auth` check also tries the calls without it."""

    def get(self, case, context):
        return CURRENT_TOKEN.get("key", "")

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_api_conforms_to_its_schema(case, seeded):
    CURRENT_TOKEN["key"] = seeded["token"]
    _aim(case, seeded)
    # Every check except positive_data_acceptance: a well-typed hand can still break the rules of gin
    # (e.g. knocking with 11), and refusing it with 400 is right.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
