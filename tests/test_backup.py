"""`manage.py backup` and `manage.py restore`: a restored install shows every standing, rating,
history page and game record exactly as before, keeps ids, and takes new games afterwards."""

import gzip
import io
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from players import clubs
from players.models import Club, Invitation, Membership, Player
from players.tokens import token_create
from scoring import services
from scoring.backup import backed_up_models
from scoring.league import services as league
from scoring.models import FactChange, Game, Hand, LeagueStatus, Season
from scoring.stats import selectors as stats_selectors
from tests.factories import make_game
from tests.league_setup import make_club, play, start_and_finish

pytestmark = pytest.mark.django_db


@pytest.fixture
def club_night():
    """A public club's season: confirmed games, one disputed, a corrected one (audited), one in play,
    friendly games, an open invitation, an API token and a password."""
    cast = make_club(name="Backup Gin")
    pat, quinn, gus = cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest
    admin = cast.player_of(cast.admin)
    cast.player.set_password("pat's long secret")
    cast.player.save()
    season = league.season_create(
        club=cast.club,
        name="Spring",
        players=[pat, quinn, gus, admin],
        rules={"preset": "standard", "undercut_bonus": 20},
        ranking=["wins", "head_to_head", "net"],
        created_by=cast.owner,
    )
    fixtures = list(season.fixtures.order_by("round", "pk"))
    duel = next(fixture for fixture in fixtures if {fixture.home, fixture.away} == {pat, quinn})
    fixtures.remove(duel)
    confirmed = [
        start_and_finish(fixture, fixture.home, started_by=cast.admin, confirm_by=cast.owner)
        for fixture in fixtures[:3]
    ]
    disputed = start_and_finish(duel, pat, started_by=cast.player, defender_deadwood=77)
    league.game_dispute(game=disputed, disputed_by=cast.rival, comment="Quinn went gin, not Pat")
    corrected = confirmed[0]
    services.hand_edit(
        hand=corrected.hands.get(),
        ending="gin",
        by=fixtures[0].away,
        defender_deadwood=90,
        edited_by=cast.admin,
        reason="Scored the wrong way",
    )
    in_play = league.fixture_start(fixture=fixtures[3], started_by=cast.admin)
    services.hand_record(game=in_play, ending="knock", by=fixtures[3].home, knocker_deadwood=4, defender_deadwood=22)
    friendly = make_game(
        player_one=pat,
        player_two=quinn,
        first_dealer=quinn,
        created_by=cast.player,
        rules={"preset": "hollywood"},
        hands=[
            {"ending": "knock", "by": pat, "knocker_deadwood": 5, "defender_deadwood": 30},
            {"ending": "gin", "by": quinn, "defender_deadwood": 44},
            {"ending": "dead"},
        ],
    )
    play(make_game(player_one=pat, player_two=gus, first_dealer=pat, created_by=cast.player), gus)
    clubs.invitation_create(club=cast.club, created_by=cast.owner, role="admin")
    token_create(user=cast.player)
    assert FactChange.objects.filter(game=corrected, action="hand_edited").exists()
    return {"cast": cast, "season": season, "games": [*confirmed, disputed, in_play, friendly]}


NOISE = re.compile(r'(nonce|value)="[^"]*"|"X-CSRFToken": "[^"]*"|csrfmiddlewaretoken[^>]*>|csrf[-_]token[^>]*>')


def clean(response) -> str:
    """A page as a reader sees it: the per-request nonce and CSRF token left out."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return NOISE.sub("", body.decode())


def everything_shown(client: Client, club: Club, season: Season) -> dict:
    """Every page and API answer whose figures a backup must bring back."""
    urls = [
        reverse("league:club", args=[club.slug]),
        reverse("league:season", args=[club.slug, season.pk]),
        reverse("stats:standings_csv", args=[club.slug, season.pk]),
        reverse("stats:club_hands", args=[club.slug]),
        reverse("stats:club_hands_csv", args=[club.slug]),
        reverse("stats:club_games_json", args=[club.slug]),
        f"/api/clubs/{club.pk}/ratings/",
        f"/api/seasons/{season.pk}/standings/",
        f"/api/clubs/{club.pk}/members/",
        "/api/games/?page_size=200",
    ]
    for player in Player.objects.order_by("pk"):
        urls += [
            reverse("stats:player", args=[player.pk]),
            reverse("stats:profile", args=[player.pk]),
            reverse("stats:player_hands", args=[player.pk]),
            reverse("stats:player_games_json", args=[player.pk]),
            f"/api/players/{player.pk}/ratings/",
        ]
    for game in Game.objects.order_by("pk"):
        urls += [reverse("game", args=[game.pk]), f"/api/games/{game.pk}/", f"/api/games/{game.pk}/record/"]
        if game.season_id:
            urls += [reverse("league:game", args=[game.pk]), f"/api/games/{game.pk}/audit/"]
    shown = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        shown[url] = clean(response)
    return shown


def forget_cached_figures():
    cache.clear()
    stats_selectors._RATINGS.clear()


@pytest.mark.django_db(transaction=True)  # flush and restore commit, as on a server
def test_backup_then_restore_into_an_empty_database_shows_everything_as_before(club_night, tmp_path):
    cast, season = club_night["cast"], club_night["season"]
    member = Client()
    member.force_login(cast.player)
    before_anonymous = everything_shown(Client(), cast.club, season)
    before_member = clean(member.get(reverse("stats:profile", args=[cast.player_of(cast.player).pk])))
    rows_before = {model._meta.label: model._default_manager.count() for model in backed_up_models()}
    hands_before = list(Hand.objects.order_by("pk").values())
    audit_before = list(FactChange.objects.order_by("pk").values())
    password_before = cast.player.password

    path = tmp_path / "ginleague.json.gz"
    call_command("backup", str(path))
    document = json.loads(gzip.decompress(path.read_bytes()))
    assert document["format"] == "ginleague-backup" and document["version"] == 1
    labels = {row["model"] for row in document["objects"]}
    assert {"auth.user", "players.invitation", "scoring.season", "scoring.factchange", "scoring.fixture"} <= labels
    assert "authtoken.token" not in labels  # API tokens are left out: owners make a new one after a restore
    assert "pat's long secret" not in path.read_bytes().decode("latin-1")

    call_command("flush", interactive=False, verbosity=0)  # a new, migrated, empty database
    forget_cached_figures()
    assert not Player.objects.exists() and not Game.objects.exists()

    said = io.StringIO()
    call_command("restore", str(path), stdout=said)
    forget_cached_figures()
    assert "Recomputed 7 games" in said.getvalue() and "corrected" not in said.getvalue()  # figures were right

    assert {model._meta.label: model._default_manager.count() for model in backed_up_models()} == rows_before
    assert list(Hand.objects.order_by("pk").values()) == hands_before
    assert list(FactChange.objects.order_by("pk").values()) == audit_before
    after_anonymous = everything_shown(Client(), cast.club, season)
    assert after_anonymous.keys() == before_anonymous.keys()
    for url, page in before_anonymous.items():
        assert after_anonymous[url] == page, url
    # Accounts come back with their passwords (hashes), roles and invitations; tokens do not.
    user = get_user_model().objects.get(pk=cast.player.pk)
    assert user.password == password_before and user.check_password("pat's long secret")
    member = Client()
    member.force_login(user)
    assert clean(member.get(reverse("stats:profile", args=[cast.player_of(user).pk]))) == before_member
    assert Membership.objects.filter(club=cast.club, player__user=cast.admin.pk, role="admin").exists()
    assert Invitation.objects.filter(club=cast.club, role="admin", accepted_at=None).exists()
    assert not Token.objects.exists()
    statuses = set(Game.objects.values_list("league_status", flat=True))
    assert {LeagueStatus.CONFIRMED, LeagueStatus.DISPUTED, LeagueStatus.PLAYING, ""} <= statuses


def test_restore_refuses_a_database_that_is_not_empty(club_night, tmp_path):
    path = tmp_path / "backup.json"
    call_command("backup", str(path))
    games = Game.objects.count()
    with pytest.raises(CommandError, match="The database is not empty"):
        call_command("restore", str(path), verbosity=0)
    assert Game.objects.count() == games


def test_restore_refuses_what_is_not_a_backup(db, tmp_path):
    path = tmp_path / "games.json"
    path.write_text(json.dumps([{"players": ["Ann", "Bob"]}]))
    with pytest.raises(CommandError, match="not a GinLeague backup"):
        call_command("restore", str(path), verbosity=0)


@pytest.mark.django_db(transaction=True)  # flush and restore commit, as on a server
def test_after_a_restore_new_rows_get_new_ids(club_night, tmp_path):
    """PostgreSQL's sequences are moved past the restored ids, so a new game does not collide."""
    cast = club_night["cast"]
    path = tmp_path / "backup.json"
    call_command("backup", str(path))
    highest = {"game": Game.objects.latest("pk").pk, "hand": Hand.objects.latest("pk").pk}
    call_command("flush", interactive=False, verbosity=0)
    call_command("restore", str(path), verbosity=0)
    user = get_user_model().objects.get(pk=cast.player.pk)
    pat = Player.objects.get(user=user)
    new_guest = Player.objects.create(name="Newcomer")
    game = services.game_create(player_one=pat, player_two=new_guest, first_dealer=pat, created_by=user)
    services.hand_record(game=game, ending="knock", by=pat, knocker_deadwood=3, defender_deadwood=20)
    assert game.pk > highest["game"] and Hand.objects.get(game=game).pk > highest["hand"]
    club = clubs.club_create(name="Second club", owner=user)
    assert Membership.objects.filter(club=club).exists()
    assert FactChange.objects.count() > 0
