"""Refusals say the truth, in the reader's language (#38 item 6).

Every refusal a page or the API shows is marked for translation (a check over the code), the night's
refusals name players from the players themselves (never digits replaced in a sentence), and a repeated
or late action is refused saying so instead of a silent 200 or an unrelated message.
"""

import ast
import pathlib

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from players import clubs
from players.models import Player
from scoring.league import night
from scoring.league import services as league
from scoring.models import SeasonFormat, SwissRound
from tests.league_setup import make_club
from tests.test_api_league import api_client

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The operator's command line speaks English (backups and restores, management commands), as does the engine
# (its callers translate its words), so they are left out.
SKIPPED = ("scoring/engine/", "scoring/backup.py", "/management/", "/migrations/")
REFUSALS = {"Http404", "PermissionDenied", "ValidationError", "BadRequest", "NotFound", "HandRefused"}


def _literal(node) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def test_no_refusal_is_raised_with_words_nobody_translates():
    untranslated = []
    for package in ("scoring", "players", "ginleague"):
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            if any(skip in f"/{where}" for skip in SKIPPED):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                    continue
                call = node.exc
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                if name not in REFUSALS:
                    continue
                said = [*call.args[:1], *(k.value for k in call.keywords if k.arg in ("message", "detail"))]
                if isinstance(call.args[0] if call.args else None, ast.Dict):
                    said += call.args[0].values
                if any(_literal(value) for value in said):
                    untranslated.append(f"{where}:{node.lineno}")
    assert untranslated == []


pytestmark = pytest.mark.django_db


def _swiss(cast, names=("Ann Archer", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kit", "Lu")):
    """A night with twelve guests checked in, so that ids run past 9 (an id's digits inside another's)."""
    season = league.season_create(
        club=cast.club, name="Friday night", format=SeasonFormat.SWISS, created_by=cast.owner, players=[],
        round_minutes=30,
    )
    players = [clubs.member_add_guest(club=cast.club, name=name, added_by=cast.owner).player for name in names]
    for player in players:
        night.check_in(season=season, player=player, checked_in_by=cast.owner)
    return season, players


def test_a_swap_naming_a_player_not_in_the_round_names_them_and_nobody_else():
    cast = make_club()
    season, players = _swiss(cast)
    draft = night.round_pair(season=season, paired_by=cast.owner)
    seated = {pk for _, one, two in draft.pairing["pairings"] for pk in (one, two)}
    # A member not checked in whose id holds a seated player's id inside it (12 holds 1 and 2): a record given
    # such an id (a free one, above every id in use), which the club then adds as a guest by its name.
    one = Player.objects.get(pk=min(seated))
    Player.objects.create(pk=int(f"{Player.objects.order_by('-pk').values_list('pk', flat=True)[0] + 1}{one.pk}"),
                          name="Zed")  # fmt: skip
    stranger = clubs.member_add_guest(club=cast.club, name="Zed", added_by=cast.owner).player
    assert str(one.pk) in str(stranger.pk) and stranger.pk != one.pk
    refused = api_client(cast.owner).post(
        f"/api/seasons/{season.pk}/rounds/swap/", {"one": one.pk, "two": stranger.pk}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["message"] == f"{stranger.name} is not in this round"


def test_a_fixed_table_from_a_players_own_phone_is_refused_in_their_language():
    cast = make_club()
    season, _players = _swiss(cast, names=("Bo", "Cy"))
    pat = cast.player_of(cast.player)
    refused = api_client(cast.player).post(
        f"/api/seasons/{season.pk}/check-in/", {"player": pat.pk, "fixed_table": 2}, format="json",
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert refused.status_code == 403
    with translation.override("de"):
        expected = translation.gettext("Only the night's organisers give a player a fixed table.")
    assert expected != "Only the night's organisers give a player a fixed table."
    assert refused.json()["message"] == expected


def test_checking_in_someone_already_here_says_so():
    cast = make_club()
    season, players = _swiss(cast, names=("Kit", "Bo"))
    again = api_client(cast.owner).post(f"/api/seasons/{season.pk}/check-in/", {"player": players[0].pk}, format="json")
    assert again.status_code == 400
    assert again.json() == {"field": "player", "message": "Kit is already checked in.", "hand": None}
    # A fixed table for one already here is a change, not a repeat.
    table = api_client(cast.owner).post(
        f"/api/seasons/{season.pk}/check-in/", {"player": players[0].pk, "fixed_table": 2}, format="json"
    )
    assert table.status_code == 200, table.content


def test_calling_time_twice_says_time_was_already_called():
    cast = make_club()
    season, _players = _swiss(cast, names=("Kit", "Bo", "Cy", "Di"))
    night.round_pair(season=season, paired_by=cast.owner)
    night.round_publish(season=season, published_by=cast.owner)
    url = f"/api/seasons/{season.pk}/rounds/time/"
    assert api_client(cast.owner).post(url, {}, format="json").status_code == 200
    again = api_client(cast.owner).post(url, {}, format="json")
    assert again.status_code == 400
    assert again.json()["message"].startswith("Time was already called on round 1")
    client = Client()
    client.force_login(cast.owner)
    page = client.post(reverse("league:night_time", args=[cast.club.slug, season.pk]), follow=True)
    assert "Time was already called on round 1" in page.content.decode()


def test_a_swap_after_the_night_is_closed_says_the_night_is_closed():
    cast = make_club()
    season, _players = _swiss(cast, names=("Kit", "Bo", "Cy", "Di"))
    draft = night.round_pair(season=season, paired_by=cast.owner)
    (_, a, b), (_, c, d) = draft.pairing["pairings"]
    league.season_close(season=season, closed_by=cast.owner)
    client = Client()
    client.force_login(cast.owner)
    swap = reverse("league:night_swap", args=[cast.club.slug, season.pk])
    page = client.post(swap, {"one": a, "two": c}, follow=True)
    text = page.content.decode()
    assert "This season is closed" in text and "choose two players of the round" not in text
    api = api_client(cast.owner).post(f"/api/seasons/{season.pk}/rounds/swap/", {"one": a, "two": c}, format="json")
    assert api.status_code == 400 and "This season is closed" in api.json()["message"]
    assert SwissRound.objects.get().pairing == draft.pairing
