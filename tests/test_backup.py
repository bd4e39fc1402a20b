"""`manage.py backup` and `manage.py restore`: a restored install shows every standing, rating,
history page and game record exactly as before, keeps ids, and takes new games afterwards."""

import copy
import gzip
import io
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
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
    return build_club_night()


def build_club_night() -> dict:
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
    rows_before["players.Invitation"] -= 1  # the open invitation link is left out (below)
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
    assert Invitation.objects.filter(club=cast.club, role="admin").exists()  # accepted: the club's history
    assert not Invitation.objects.filter(accepted_at=None).exists()  # an unused link was never written
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


def test_a_backup_leaves_out_invitation_links_not_yet_used(club_night, tmp_path):
    """An unused link is a live credential (whoever holds it joins the club); used ones are the club's history."""
    cast = club_night["cast"]
    unused = Invitation.objects.get(accepted_at=None)
    path = tmp_path / "backup.json"
    call_command("backup", str(path))
    text = path.read_text()
    rows = [row for row in json.loads(text)["objects"] if row["model"] == "players.invitation"]
    assert rows and all(row["fields"]["accepted_at"] for row in rows)
    assert len(rows) == Invitation.objects.filter(club=cast.club).exclude(accepted_at=None).count()
    assert unused.token not in text


# --- restore trusts nothing in the file -------------------------------------------------------------


@pytest.fixture(scope="module")
def club_night_backup(django_db_setup, django_db_blocker, tmp_path_factory) -> dict:
    """The club night's backup as a parsed document, written once for the module: the club night is built in
    a transaction rolled back once the backup is written (about a second of services per test otherwise), so
    the database is as empty afterwards as before."""
    path = tmp_path_factory.mktemp("backup") / "backup.json"
    with django_db_blocker.unblock(), transaction.atomic():
        build_club_night()
        call_command("backup", str(path))
        transaction.set_rollback(True)
    forget_cached_figures()
    return json.loads(path.read_text())


@pytest.fixture
def written(club_night_backup, transactional_db):
    """The club night's backup (a copy each test may edit), and an empty database to restore it into."""
    assert not Player.objects.exists() and not Game.objects.exists()
    forget_cached_figures()
    return copy.deepcopy(club_night_backup)


def row_of(document: dict, model: str, **fields) -> dict:
    return next(
        row
        for row in document["objects"]
        if row["model"] == model and all(row["fields"].get(name) == value for name, value in fields.items())
    )


def restore_refused(document: dict, tmp_path, *, force: bool = True) -> str:
    """Restore ``document`` (forced past its digest unless told not to); the one-line refusal, nothing written."""
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CommandError) as refused:
        call_command("restore", str(path), force=force, stdout=io.StringIO())
    message = str(refused.value)
    assert "\n" not in message and "Traceback" not in message and message.endswith("Nothing was restored.")
    assert not get_user_model().objects.exists() and not Player.objects.exists() and not Game.objects.exists()
    assert not Club.objects.exists() and not Hand.objects.exists() and not Token.objects.exists()
    return message


def add_row(model: str, pk, **fields):
    def edit(document):
        document["objects"].append({"model": model, "pk": pk, "fields": fields})

    return edit


def set_field(model: str, field: str, value, **where):
    def edit(document):
        row = row_of(document, model, **where)
        row["fields"][field] = value
        return row["pk"]  # the key the refusal names: the database's, which earlier tests may have moved on

    return edit


def two_players_named_alike(document):
    """Player names are unique in any letter case: the database's constraint refuses the second, named."""
    players = [row for row in document["objects"] if row["model"] == "players.player"]
    players[1]["fields"]["name"] = players[0]["fields"]["name"].upper()


def claimed_by_mallory(document):
    next(row for row in document["objects"] if row["model"] == "players.player" and row["fields"]["user"])[
        "fields"
    ]["user"] = ["mallory"]


def second_copy_of_a_user_made_superuser(document):
    user = next(row for row in document["objects"] if row["model"] == "auth.user")
    copy = json.loads(json.dumps(user))
    copy["fields"]["is_superuser"] = copy["fields"]["is_staff"] = True
    document["objects"].append(copy)
    return user["pk"]


def unused_admin_invitation(document):
    """A used invitation made unused again, as an admin's (#38): a working link into the club if restored."""
    row = next(row for row in document["objects"] if row["model"] == "players.invitation")
    row["fields"].update(accepted_at=None, accepted_by=None, role="admin")
    return row["pk"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (add_row("authtoken.token", "f" * 40, user=["pat-backup-gin"], created="2026-01-01T00:00:00Z"),
         "is of model authtoken.token, which a backup never holds"),
        (add_row("sessions.session", "s" * 32, session_data="x", expire_date="2030-01-01T00:00:00Z"),
         "is of model sessions.session, which a backup never holds"),
        (add_row("auth.permission", 999, name="Everything", content_type=["scoring", "game"], codename="all"),
         "is of model auth.permission, which a backup never holds"),
        (second_copy_of_a_user_made_superuser, "auth.user {key}: appears twice"),
        (set_field("players.membership", "role", "emperor", role="player"),
         "field role: Value 'emperor' is not a valid choice."),
        (set_field("players.club", "slug", "../<script>"), "players.club {key}, field slug: Enter a valid “slug”"),
        (set_field("auth.user", "password", "hunter22", username="pat-backup-gin"),
         "field password: is not a password hash"),
        (set_field("scoring.hand", "defender_deadwood", 500, ending="knock"),
         "field defender_deadwood: hand 1: defender_deadwood must be between 0 and 98"),
        (set_field("scoring.hand", "ending", "bogus", ending="knock"), "field ending: hand 1: ending must be one of"),
        (set_field("scoring.hand", "points", 10**30, ending="knock"),
         "field points: Ensure this value is less than or equal to"),
        (set_field("scoring.hand", "colour", "red", ending="knock"), "field colour: Hand has no such field."),
        (set_field("scoring.game", "rules", {"preset": "standard", "target": -1}, preset="hollywood"),
         "field rules: target must be between 1 and 10000, not -1."),
        (set_field("scoring.hand", "game", 9999, ending="knock"),
         "field game: points at scoring.game 9999, which the backup does not hold."),
        (two_players_named_alike, ": cannot be stored ("),
        (set_field("scoring.hand", "created_at", "yesterday", ending="knock"),
         "field created_at: “yesterday” value has an invalid format."),
        (set_field("players.club", "name", "Gin\x00Club"),
         "players.club {key}, field name: text may not contain the NUL"),
        (claimed_by_mallory,
         "field user: points at auth.user ['mallory'], which the backup does not hold."),
        (set_field("scoring.game", "time_called_after", 1, preset="hollywood"),
         "field time_called_after: a Hollywood sitting is not ended by time"),
        (unused_admin_invitation,
         "players.invitation {key}, field accepted_at: an invitation link not yet used, which a backup never holds"),
    ],
    ids=[
        "api-token", "session", "permission", "duplicate-user", "role", "slug", "plain-password",
        "deadwood-500", "bogus-ending", "points-1e30", "unknown-field", "target-minus-1", "dangling-link",
        "same-name", "bad-time", "nul", "unknown-account", "hollywood-timed", "unused-invitation",
    ],
)
def test_restore_refuses_what_no_backup_holds_naming_the_object_and_field(written, tmp_path, edit, said):
    key = edit(written)
    message = restore_refused(written, tmp_path)
    assert said.format(key=key) in message, message


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_hands_over_the_cap(written, tmp_path):
    game = row_of(written, "scoring.game", preset="hollywood")
    hand = row_of(written, "scoring.hand", game=game["pk"])
    for number in range(4, 1002):
        copy = json.loads(json.dumps(hand))
        copy["pk"] = 10_000 + number
        copy["fields"].update(number=number, ending="dead", by=None, knocker_deadwood=None, defender_deadwood=None)
        written["objects"].append(copy)
    assert "hand 1001: a game holds at most 1000 hands" in restore_refused(written, tmp_path)


@pytest.mark.django_db(transaction=True)
def test_an_edited_backup_is_restored_only_with_force(written, tmp_path):
    set_field("players.player", "name", "Gus Renamed", name="Gus backup-gin")(written)
    message = restore_refused(written, tmp_path, force=False)
    assert "does not match its digest" in message and "--force" in message
    del written["digest"]
    assert "carries no digest" in restore_refused(written, tmp_path, force=False)

    path = tmp_path / "forced.json"
    path.write_text(json.dumps(written))
    call_command("restore", str(path), force=True, stdout=io.StringIO())
    assert Player.objects.filter(name="Gus Renamed").exists()


@pytest.mark.django_db(transaction=True)
def test_a_backup_as_written_restores_without_force(written, tmp_path):
    path = tmp_path / "as-written.json"
    path.write_text(json.dumps(written))  # parsed and written again: the same content, so the same digest
    assert written["digest"].startswith("sha256:")
    call_command("restore", str(path), stdout=io.StringIO())
    assert Game.objects.count() == 7
