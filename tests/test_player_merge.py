"""Merging two player records of one person (issue 17, point 11)."""

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.urls import reverse

from players import clubs
from players.models import Invitation, Membership, Player
from scoring.league import services as league
from scoring.merge import player_merge
from scoring.models import FactChange, Fixture, Game, Hand, Season
from scoring.stats.selectors import club_ratings
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import gin, make_club, make_user, start_and_finish
from tests.test_stats import shown_rating

pytestmark = pytest.mark.django_db


@pytest.fixture
def typed_twice():
    """Dan (a guest) plays Pat in the club's spring season; "Daniel" (the same man) played Quinn last autumn."""
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    dan = clubs.member_add_guest(club=cast.club, name="Dan", added_by=cast.owner).player
    daniel = clubs.member_add_guest(club=cast.club, name="Daniel", added_by=cast.owner).player
    autumn = league.season_create(club=cast.club, name="Autumn", players=[daniel, quinn])
    old = start_and_finish(autumn.fixtures.get(), daniel, started_by=cast.owner, confirm_by=cast.owner)
    spring = league.season_create(club=cast.club, name="Spring", players=[dan, pat])
    new = start_and_finish(spring.fixtures.get(), pat, started_by=cast.player, confirm_by=cast.admin)
    friendly = make_game(player_one=dan, player_two=quinn, hands=[gin(dan)])
    return cast, dan, daniel, (old, new, friendly), (autumn, spring)


def test_merge_moves_everything_to_the_kept_record_with_an_audit_line(typed_twice):
    cast, dan, daniel, (old, new, friendly), (autumn, spring) = typed_twice
    assert len(club_ratings(cast.club).history[daniel.pk]) == 1 and dan.pk in club_ratings(cast.club).current
    result = player_merge(keep=daniel, drop=dan, merged_by=cast.owner)

    assert result.games == 2 and result.dropped_name == "Dan"
    assert not Player.objects.filter(name="Dan").exists()
    for game in (new, friendly):
        game.refresh_from_db()
        assert daniel.pk in (game.player_one_id, game.player_two_id)
        line = FactChange.objects.get(game=game, action="player_merged")
        assert (line.before, line.after, line.actor) == ("Dan", "Daniel", cast.owner)
    friendly.refresh_from_db()
    assert friendly.winner_id == daniel.pk
    assert Hand.objects.filter(game=friendly, by=daniel).count() == 1
    assert Fixture.objects.filter(season=spring).filter(Q(home=daniel) | Q(away=daniel)).exists()
    assert set(spring.players.all()) == {daniel, cast.player_of(cast.player)}
    assert Membership.objects.filter(club=cast.club, player=daniel).count() == 1
    ratings = club_ratings(cast.club)  # both confirmed results now rate Daniel
    assert len(ratings.history[daniel.pk]) == 2 and dan.pk not in ratings.current
    # The kept record's profile now counts the games of both.
    assert Game.objects.filter(player_one=daniel).count() + Game.objects.filter(player_two=daniel).count() == 3


def test_the_kept_records_profile_rates_the_games_of_both_at_once(typed_twice, client):
    """Daniel beat Quinn in the autumn (1516); Dan lost to Pat in the spring: merged, Daniel's rating takes
    that loss too, at 1516 v 1500 (expected 0.52301: -16.74), on the next view of the profile."""
    cast, dan, daniel, *_ = typed_twice
    assert shown_rating(client, daniel, cast.club) == (
        "1516",
        "Elo, from 1 confirmed game in the order they finished.",
    )  # and so kept by this process
    player_merge(keep=daniel, drop=dan, merged_by=cast.owner)
    assert shown_rating(client, daniel, cast.club) == (
        "1499",
        "Elo, from 2 confirmed games in the order they finished.",
    )


def test_merge_keeps_the_higher_role_and_moves_a_guest_invitation(typed_twice):
    cast, dan, daniel, *_ = typed_twice
    Membership.objects.filter(club=cast.club, player=dan).update(role="admin")
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner, role="player", player=dan)
    player_merge(keep=daniel, drop=dan)
    assert Membership.objects.get(club=cast.club, player=daniel).role == "admin"
    assert Invitation.objects.get(pk=invitation.pk).player_id == daniel.pk


def test_the_guests_account_moves_to_the_kept_record():
    account = make_user("dan")
    dan = Player.objects.create(name="Dan", user=account)
    daniel = PlayerFactory(name="Daniel")
    make_game(player_one=daniel, player_two=PlayerFactory(name="Eve"))
    player_merge(keep=daniel, drop=dan)
    daniel.refresh_from_db()
    assert daniel.user == account


def test_merge_is_refused_when_both_have_accounts():
    one = Player.objects.create(name="Dan", user=make_user("dan"))
    two = Player.objects.create(name="Daniel", user=make_user("daniel"))
    with pytest.raises(ValidationError) as refused:
        player_merge(keep=two, drop=one)
    assert "both belong to accounts" in str(refused.value.message_dict["drop"])
    assert Player.objects.filter(name="Dan").exists()


def test_merge_is_refused_when_the_two_played_each_other():
    dan, daniel = PlayerFactory(name="Dan"), PlayerFactory(name="Daniel")
    game = make_game(player_one=dan, player_two=daniel, hands=[gin(dan)])
    with pytest.raises(ValidationError) as refused:
        player_merge(keep=daniel, drop=dan)
    assert f"played each other (game {game.pk})" in str(refused.value.message_dict["drop"])
    game.refresh_from_db()
    assert (game.player_one_id, game.player_two_id) == (dan.pk, daniel.pk)


def test_merge_is_refused_when_both_are_in_one_season(typed_twice):
    cast, dan, daniel, _, (autumn, spring) = typed_twice
    Season.players.through.objects.create(season=spring, player=daniel)
    with pytest.raises(ValidationError) as refused:
        player_merge(keep=daniel, drop=dan)
    assert "both entered in Spring" in str(refused.value.message_dict["drop"])
    assert Player.objects.filter(name="Dan").exists()


# --- the page ------------------------------------------------------------------------------------------


def test_a_club_admin_merges_a_guest_on_the_page(client, typed_twice):
    cast, dan, daniel, (old, new, friendly), _ = typed_twice
    UserFactory(username="founder")
    client.force_login(cast.admin)
    assert reverse("player_merge") in client.get(reverse("league:club", args=[cast.club.slug])).content.decode()
    page = client.get(reverse("player_merge"))
    assert page.status_code == 200
    response = client.post(reverse("player_merge"), {"keep": daniel.pk, "drop": dan.pk})
    assert response.status_code == 422 and "same person" in response.content.decode()
    response = client.post(reverse("player_merge"), {"keep": daniel.pk, "drop": dan.pk, "same_person": "on"})
    assert response.status_code == 302
    assert not Player.objects.filter(name="Dan").exists()
    history = client.get(reverse("league:game", args=[new.pk])).content.decode()
    assert "Player records merged" in history and "Dan" in history


def test_the_page_refuses_merging_two_accounts_naming_why(client, typed_twice):
    cast, *_ = typed_twice
    staff = UserFactory(username="staff", is_staff=True)
    client.force_login(staff)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    response = client.post(reverse("player_merge"), {"keep": pat.pk, "drop": quinn.pk, "same_person": "on"})
    assert response.status_code == 422
    assert "both belong to accounts" in response.content.decode()
    assert Player.objects.filter(pk=quinn.pk).exists()


def test_a_plain_member_may_not_merge(client, typed_twice):
    cast, dan, daniel, *_ = typed_twice
    client.force_login(cast.player)
    assert client.get(reverse("player_merge")).status_code == 403
    response = client.post(reverse("player_merge"), {"keep": daniel.pk, "drop": dan.pk, "same_person": "on"})
    assert response.status_code == 403
    assert Player.objects.filter(name="Dan").exists()


# --- closed seasons (issue 29, item 1) ------------------------------------------------------------------


def test_a_merge_that_would_join_two_records_results_in_a_closed_season_is_refused_saying_so(client, typed_twice):
    cast, dan, daniel, _, (autumn, spring) = typed_twice
    Season.players.through.objects.create(season=spring, player=daniel)
    league.season_close(season=spring, closed_by=cast.owner)
    with pytest.raises(ValidationError) as refused:
        player_merge(keep=daniel, drop=dan)
    assert str(refused.value.message_dict["season"][0]).startswith("This season is closed:")

    client.force_login(cast.admin)
    response = client.post(reverse("player_merge"), {"keep": daniel.pk, "drop": dan.pk, "same_person": "on"})
    assert response.status_code == 422 and "This season is closed" in response.content.decode()
    assert Player.objects.filter(name="Dan").exists()


def test_a_merge_may_still_rename_a_closed_seasons_player(typed_twice):
    cast, dan, daniel, (old, new, friendly), (autumn, spring) = typed_twice
    league.season_close(season=spring, closed_by=cast.owner)
    spring.refresh_from_db()
    champion = spring.champion_id
    player_merge(keep=daniel, drop=dan, merged_by=cast.owner)
    new.refresh_from_db()
    assert daniel.pk in (new.player_one_id, new.player_two_id)
    spring.refresh_from_db()
    assert spring.champion_id == champion  # Pat won; the order is the same, Dan's line now says Daniel
