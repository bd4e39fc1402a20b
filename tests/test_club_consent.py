"""Nobody gets into a club, or puts someone into one, without consent (issue 30, items 1 and 2).

Adding a player by name never takes a record another club holds or an account owns; merging two
records needs someone who runs every club either belongs to (or staff).
"""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from players import clubs
from players.models import Membership, Player, Role
from scoring.league import services as league
from scoring.models import Game
from tests.league_setup import make_club, make_user

pytestmark = pytest.mark.django_db


def add(client, club, name):
    """The club page's "Add a player" form; answers the page it lands on."""
    return client.post(reverse("league:member_add", args=[club.slug]), {"name": name}, follow=True)


def merge(client, keep, drop):
    return client.post(reverse("player_merge"), {"keep": keep.pk, "drop": drop.pk, "same_person": "on"})


@pytest.fixture
def private_club():
    """A private club with a season and an admin guest, Gus Guest (guest names are public)."""
    cast = make_club(name="Quiet Gin", is_public=False)
    gus = clubs.member_add_guest(club=cast.club, name="Gus Guest", added_by=cast.owner)
    clubs.member_set_role(membership=gus, role=Role.ADMIN, changed_by=cast.owner)
    season = league.season_create(club=cast.club, name="Winter", players=[gus.player, cast.player_of(cast.player)])
    return cast, gus.player, season


@pytest.fixture
def mallory(client):
    """A signed-up stranger who owns a club of her own, signed in."""
    user = make_user("mallory")
    own = clubs.club_create(name="Mallory's Table", owner=user)
    client.force_login(user)
    return user, own


def shut_out(client, user, cast, season) -> None:
    """``user`` is no member of the private club and its pages do not exist for them."""
    assert not Membership.objects.filter(club=cast.club, player__user=user).exists()
    assert client.get(reverse("league:club", args=[cast.club.slug])).status_code == 404
    assert client.get(reverse("league:season", args=[cast.club.slug, season.pk])).status_code == 404


# --- item 1: no way into a private club by merging its guest ------------------------------------------


def test_adding_a_private_clubs_guest_and_merging_it_into_yourself_is_no_way_in(client, private_club, mallory):
    cast, gus, season = private_club
    user, own = mallory
    assert "Gus Guest" in [p["name"] for p in APIClient().get("/api/players/").json()["results"]]

    page = add(client, own, "Gus Guest").content.decode()
    assert "Gus Guest is a player of another club" in page and "a name of their own" in page
    assert not Membership.objects.filter(club=own, player=gus).exists()

    response = merge(client, Player.objects.get(user=user), gus)
    assert response.status_code == 422
    assert Player.objects.get(pk=gus.pk).user_id is None
    assert Membership.objects.get(club=cast.club, player=gus).role == Role.ADMIN
    shut_out(client, user, cast, season)


def test_a_guest_already_in_a_club_the_merger_does_not_run_is_not_merged(client, private_club, mallory):
    """Even when the guest is in both clubs (as an add before this rule could leave it), the merge is refused."""
    cast, gus, season = private_club
    user, own = mallory
    Membership.objects.create(club=own, player=gus)

    response = merge(client, Player.objects.get(user=user), gus)
    assert response.status_code == 422
    assert "neither of a club you do not run" in response.content.decode()
    assert Player.objects.filter(pk=gus.pk, user__isnull=True).exists()
    shut_out(client, user, cast, season)


def test_an_admin_cannot_become_owner_by_merging_an_ownerless_owners_record(client):
    """The owner's account was deleted: their record stays, a guest holding the owner's role."""
    cast = make_club()
    owner_record = cast.player_of(cast.owner)
    cast.owner.delete()
    client.force_login(cast.admin)
    response = merge(client, cast.player_of(cast.admin), Player.objects.get(pk=owner_record.pk))
    assert response.status_code == 422 and "only staff merge a club owner" in response.content.decode()
    assert Membership.objects.get(club=cast.club, player__user=cast.admin).role == Role.ADMIN


def test_a_merge_does_not_take_another_account_into_a_club_it_never_joined(client):
    """A director runs two clubs; Bob (an account) joined one. A guest "Bobby" of both is not merged into
    Bob until Bob accepts an invitation to the other."""
    director = make_user("director")
    monday = clubs.club_create(name="Monday Gin", owner=director)
    friday = clubs.club_create(name="Friday Gin", owner=director)
    bob_user = make_user("bob")
    clubs.invitation_accept(invitation=clubs.invitation_create(club=monday, created_by=director), user=bob_user)
    bob = Player.objects.get(user=bob_user)
    bobby = clubs.member_add_guest(club=monday, name="Bobby", added_by=director).player
    clubs.member_add_guest(club=friday, name="Bobby", added_by=director)
    client.force_login(director)

    response = merge(client, bob, bobby)
    assert response.status_code == 422
    assert "bob has an account and is not a member of Friday Gin: send them an invitation" in (
        response.content.decode()
    )
    assert not Membership.objects.filter(club=friday, player=bob).exists()

    clubs.invitation_accept(invitation=clubs.invitation_create(club=friday, created_by=director), user=bob_user)
    assert merge(client, bob, bobby).status_code == 302
    assert not Player.objects.filter(pk=bobby.pk).exists()
    assert set(Membership.objects.filter(player=bob).values_list("club__name", flat=True)) == {
        "Monday Gin",
        "Friday Gin",
    }


# --- the legitimate paths still work -------------------------------------------------------------------


def test_a_manager_of_both_clubs_merges_a_guest_typed_twice(client):
    director = make_user("director")
    monday = clubs.club_create(name="Monday Gin", owner=director)
    friday = clubs.club_create(name="Friday Gin", owner=director, is_public=False)
    dan = clubs.member_add_guest(club=monday, name="Dan", added_by=director).player
    daniel = clubs.member_add_guest(club=friday, name="Daniel", added_by=director).player
    clubs.member_add_guest(club=monday, name="Daniel", added_by=director)  # their guest, in a second club of theirs
    client.force_login(director)

    assert merge(client, daniel, dan).status_code == 302
    assert not Player.objects.filter(pk=dan.pk).exists()
    assert set(Membership.objects.filter(player=daniel).values_list("club__name", flat=True)) == {
        "Monday Gin",
        "Friday Gin",
    }


def test_an_admin_merges_their_own_guest_record_into_their_own_though_they_play_in_another_club(client):
    cast = make_club()
    elsewhere = make_club(name="Other Gin")
    invitation = clubs.invitation_create(club=elsewhere.club, created_by=elsewhere.owner)
    clubs.invitation_accept(invitation=invitation, user=cast.admin)  # a plain player there
    annie = clubs.member_add_guest(club=cast.club, name="Annie", added_by=cast.owner).player
    client.force_login(cast.admin)
    assert merge(client, cast.player_of(cast.admin), annie).status_code == 302
    assert not Player.objects.filter(pk=annie.pk).exists()


def test_a_new_guest_and_a_name_typed_at_a_casual_table_are_still_added(client, mallory):
    user, own = mallory
    assert "Newcomer joined" in add(client, own, "Newcomer").content.decode()
    typed = Player.objects.create(name="Tess")  # a name from a casual game: no club, no account
    assert "Tess joined" in add(client, own, "tess").content.decode()
    assert set(Membership.objects.filter(club=own, player__user__isnull=True).values_list("player", flat=True)) == {
        Player.objects.get(name="Newcomer").pk,
        typed.pk,
    }


# --- item 2: a person with an account joins only by accepting an invitation --------------------------------


def test_a_player_with_an_account_is_not_added_by_name_but_invited(client, mallory):
    user, own = mallory
    bob_user = make_user("bob")
    bob = clubs.player_for_user(user=bob_user)

    page = add(client, own, "bob").content.decode()
    assert "bob has an account: send them an invitation link to Mallory" in page
    assert not Membership.objects.filter(club=own, player=bob).exists()

    # Games between Bob's record and the club's owner are refused as before.
    api = APIClient()
    api.force_authenticate(user)
    me = Player.objects.get(user=user)
    game = {"player_one": me.pk, "player_two": bob.pk, "first_dealer": me.pk}
    response = api.post("/api/games/", game, format="json")
    assert response.status_code == 400 and response.json()["field"] == "player_two"
    assert "bob's record belongs to another account" in response.json()["message"]
    assert not Game.objects.exists()

    # Once Bob accepts an invitation he is a member, and club mates may start games with him.
    clubs.invitation_accept(invitation=clubs.invitation_create(club=own, created_by=user), user=bob_user)
    assert Membership.objects.filter(club=own, player=bob, role=Role.PLAYER).exists()
    response = api.post("/api/games/", game, format="json")
    assert response.status_code == 201
