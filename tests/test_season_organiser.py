"""What an organiser ran into running a season (issue 17, defects 1-6): each test failed before its fix."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from players import clubs
from players.models import Membership, Player
from scoring import services
from scoring.league import services as league
from scoring.models import FactChange
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club, make_user, start_and_finish

pytestmark = pytest.mark.django_db


@pytest.fixture
def season_game():
    """Pat (an account) beat Quinn in a league fixture Pat started: provisional, waiting for Quinn."""
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn, cast.guest])
    fixture = season.fixtures.get(home__in=[pat, quinn], away__in=[pat, quinn])
    game = start_and_finish(fixture, pat, started_by=cast.player)
    return cast, season, game


# --- 1. an invitation survives sign-up and sign-in ---------------------------------------------------


@pytest.fixture
def invitation():
    UserFactory(username="founder")  # someone can sign in, so this is not the first run
    cast = make_club()
    return clubs.invitation_create(club=cast.club, created_by=cast.owner, role="player")


def test_invitation_offers_sign_in_and_sign_up_returning_to_it(client, invitation):
    path = reverse("league:invitation", args=[invitation.token])
    text = client.get(path).content.decode()
    assert f'href="{reverse("login")}?next={path}"' in text
    assert f'href="{reverse("signup")}?next={path}"' in text


def test_sign_up_from_an_invitation_lands_back_on_it_ready_to_accept(client, invitation):
    path = reverse("league:invitation", args=[invitation.token])
    form = client.get(reverse("signup"), {"next": path}).content.decode()
    assert f'name="next" value="{path}"' in form
    assert f'href="{reverse("login")}?next={path}"' in form  # "already have an account?" keeps it too
    response = client.post(
        reverse("signup"),
        {"username": "newbie", "password1": "a-long-test-password", "password2": "a-long-test-password",
         "next": path},
    )
    assert response.status_code == 302 and response["Location"] == path
    page = client.get(path).content.decode()
    assert "Accept and join" in page
    client.post(path)
    assert Membership.objects.filter(club=invitation.club, player__user__username="newbie").exists()


def test_sign_in_from_an_invitation_lands_back_on_it(client, invitation):
    UserFactory(username="member")
    path = reverse("league:invitation", args=[invitation.token])
    login_page = client.get(reverse("login"), {"next": path}).content.decode()
    assert f'href="{reverse("signup")}?next={path}"' in login_page
    response = client.post(reverse("login"), {"username": "member", "password": "a-long-test-password", "next": path})
    assert response.status_code == 302 and response["Location"] == path


def test_sign_up_with_a_table_name_from_a_guest_invitation_ends_as_the_guests_record(client):
    UserFactory(username="founder")
    cast = make_club()
    gus = cast.guest
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner, player=gus)
    path = reverse("league:invitation", args=[invitation.token])
    assert f'href="{reverse("signup")}?next={path}"' in client.get(path).content.decode()
    form = client.get(reverse("signup"), {"next": path}).content.decode()
    assert 'name="player_name"' not in form  # no second name to make up ...
    assert f"your new account will play as {gus.name}" in form  # ... and the page says why
    response = client.post(
        reverse("signup"),
        {"username": "gus", "password1": "a-long-test-password", "password2": "a-long-test-password",
         "player_name": gus.name, "next": path},
    )
    assert response.status_code == 302 and response["Location"] == path
    response = client.post(path)
    assert response.status_code == 302 and response["Location"] == reverse("league:club", args=[cast.club.slug])
    gus.refresh_from_db()
    assert gus.user.username == "gus"  # the club's record of him, with its games, is now his
    assert Membership.objects.get(club=cast.club, player__user__username="gus").player == gus
    assert Player.objects.filter(user=gus.user).count() == 1
    assert f"Welcome to {cast.club.name}." in client.get(response["Location"]).content.decode()


def test_an_account_that_is_only_a_name_takes_the_guests_record_by_invitation(client):
    cast = make_club()
    account = make_user("gus")
    Player.objects.create(name="Gussie", user=account, created_by=account)  # signed up earlier, never played
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner, player=cast.guest)
    client.force_login(account)
    response = client.post(reverse("league:invitation", args=[invitation.token]))
    assert response.status_code == 302
    cast.guest.refresh_from_db()
    assert cast.guest.user == account
    assert not Player.objects.filter(name="Gussie").exists()


def test_a_guest_invitation_still_refuses_an_account_that_already_plays(client, season_game):
    cast, season, game = season_game  # Pat has played a league game
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner, player=cast.guest)
    client.force_login(cast.player)
    path = reverse("league:invitation", args=[invitation.token])
    response = client.post(path)
    assert "already plays as" in response.content.decode()
    cast.guest.refresh_from_db()
    assert cast.guest.user is None


def test_a_guest_invitation_keeps_a_record_with_only_a_friendly_game(db):
    cast = make_club()
    account = make_user("dora")
    dora = PlayerFactory(name="Dora", user=account)
    make_game(player_one=dora, player_two=PlayerFactory(name="Eve"))  # no club, but games: not just a name
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner, player=cast.guest)
    with pytest.raises(ValidationError):
        clubs.invitation_accept(invitation=invitation, user=account)
    assert Player.objects.filter(pk=dora.pk, user=account).exists()


# Also no page at all: a word Django's redirect would take for a view's name ("-1": a crash page), a relative path.
@pytest.mark.parametrize(
    "unsafe", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "-1", "players/"]
)
def test_sign_up_never_sends_you_off_site(client, invitation, unsafe):
    form = client.get(reverse("signup"), {"next": unsafe}).content.decode()
    assert "evil.example" not in form and "javascript:" not in form
    response = client.post(
        reverse("signup"),
        {"username": "newbie", "password1": "a-long-test-password", "password2": "a-long-test-password",
         "next": unsafe},
    )
    assert response.status_code == 302 and response["Location"] == reverse("home")


@pytest.mark.parametrize("unsafe", ["https://evil.example/", "-1", "players/"])
def test_sign_in_sends_you_to_no_other_site_and_to_no_page_that_is_not_one(client, unsafe):
    UserFactory(username="member")
    response = client.post(reverse("login"), {"username": "member", "password": "a-long-test-password", "next": unsafe})
    assert response.status_code == 302 and response["Location"] == reverse("home")


# --- 2. the scoresheet of a league game leads to its confirmation --------------------------------------


def test_scoresheet_of_a_league_game_shows_its_status_and_confirm_dispute_to_the_opponent(client, season_game):
    cast, season, game = season_game
    client.force_login(cast.rival)  # Quinn: the other player
    text = client.get(reverse("game", args=[game.pk])).content.decode()
    quinn = cast.player_of(cast.rival).name
    assert f"Provisional: waiting for {quinn} or a club organiser to confirm." in text
    assert f'action="{reverse("league:game_confirm", args=[game.pk])}"' in text
    assert f'action="{reverse("league:game_dispute", args=[game.pk])}"' in text

    response = client.post(reverse("league:game_confirm", args=[game.pk]), {"comment": ""})
    assert response.status_code == 302
    text = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Result confirmed" in text
    assert reverse("league:game_confirm", args=[game.pk]) not in text


def test_scoresheet_offers_no_confirmation_to_the_player_who_recorded_it(client, season_game):
    cast, season, game = season_game
    client.force_login(cast.player)  # Pat started and recorded the game
    text = client.get(reverse("game", args=[game.pk])).content.decode()
    quinn = cast.player_of(cast.rival).name
    assert f"Provisional: waiting for {quinn} or a club organiser to confirm." in text
    assert reverse("league:game_confirm", args=[game.pk]) not in text
    assert reverse("league:game_dispute", args=[game.pk]) not in text


def test_scoresheet_of_a_friendly_game_has_no_league_status(client, user):
    game = make_game(created_by=user)
    client.force_login(user)
    assert "League game" not in client.get(reverse("game", args=[game.pk])).content.decode()


# --- 3. corrections carry a reason ---------------------------------------------------------------------


def _edit_data(game, **facts):
    hand = game.hands.get(number=1)
    data = {"ending": hand.ending, "by": hand.by_id, "defender_deadwood": hand.defender_deadwood}
    data.update(facts)
    return data


def test_hand_correction_form_keeps_its_reason_in_the_audit_trail(client, season_game):
    cast, season, game = season_game
    client.force_login(cast.player)
    edit = reverse("hand_edit", args=[game.pk, 1])
    assert 'name="reason"' in client.get(edit).content.decode()
    response = client.post(edit, _edit_data(game, defender_deadwood=90, reason="Quinn recounted: 90, not 80."))
    assert response.status_code == 302
    assert FactChange.objects.get(game=game, action="hand_edited").comment == "Quinn recounted: 90, not 80."
    trail = client.get(reverse("league:game", args=[game.pk])).content.decode()
    assert "Quinn recounted: 90, not 80." in trail


def test_correcting_a_confirmed_result_needs_a_reason_on_the_page(client, season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client.force_login(cast.admin)
    edit = reverse("hand_edit", args=[game.pk, 1])
    response = client.post(edit, _edit_data(game, defender_deadwood=90))
    assert response.status_code == 422
    assert "Reason" in response.content.decode()
    assert game.hands.get(number=1).defender_deadwood == 80  # nothing saved
    response = client.post(edit, _edit_data(game, defender_deadwood=90, reason="Miscounted deadwood."))
    assert response.status_code == 302
    assert FactChange.objects.get(game=game, action="hand_edited").comment == "Miscounted deadwood."


def test_correcting_a_confirmed_result_needs_a_reason_in_the_api(client, season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client.force_login(cast.admin)
    hand = game.hands.get(number=1)
    url = f"/api/games/{game.pk}/hands/{hand.pk}/"
    response = client.patch(url, {"defender_deadwood": 90}, content_type="application/json")
    assert response.status_code == 400 and response.json()["field"] == "reason"
    response = client.patch(url, {"defender_deadwood": 90, "reason": "Recount."}, content_type="application/json")
    assert response.status_code == 200
    assert FactChange.objects.get(game=game, action="hand_edited").comment == "Recount."


def test_service_refuses_an_unexplained_correction_of_a_confirmed_result(season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    hand = game.hands.get(number=1)
    with pytest.raises(services.HandRefused) as refused:
        services.hand_edit(hand=hand, ending="gin", by=hand.by_id, defender_deadwood=90, edited_by=cast.admin,
                           reason="   ")
    assert refused.value.field == "reason"


# Removing a hand is a correction too: same reason, same rule.


def test_removing_a_hand_keeps_its_reason_in_the_audit_trail(client, season_game):
    cast, season, game = season_game
    client.force_login(cast.player)
    remove = reverse("hand_remove", args=[game.pk, 1])
    assert 'name="reason"' in client.get(remove).content.decode()
    response = client.post(remove, {"reason": "Recorded twice by mistake."})
    assert response.status_code == 302
    assert not game.hands.exists()
    assert FactChange.objects.get(game=game, action="hand_removed").comment == "Recorded twice by mistake."
    assert "Recorded twice by mistake." in client.get(reverse("league:game", args=[game.pk])).content.decode()


def test_removing_a_hand_of_a_confirmed_result_needs_a_reason_on_the_page(client, season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client.force_login(cast.admin)
    remove = reverse("hand_remove", args=[game.pk, 1])
    response = client.post(remove, {"reason": "  "})
    assert response.status_code == 422
    text = response.content.decode()
    assert "Reason for the removal:" in text and 'name="reason"' in text
    assert game.hands.count() == 1  # nothing removed
    response = client.post(remove, {"reason": "Hand belonged to another game."})
    assert response.status_code == 302 and not game.hands.exists()
    assert FactChange.objects.get(game=game, action="hand_removed").comment == "Hand belonged to another game."


def test_undo_on_a_confirmed_result_asks_for_a_reason_first(client, season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client.force_login(cast.admin)
    response = client.post(reverse("hand_undo", args=[game.pk]), {"number": 1})
    assert response.status_code == 302 and response["Location"] == reverse("hand_remove", args=[game.pk, 1])
    assert game.hands.count() == 1
    page = client.get(response["Location"]).content.decode()
    assert "This result was confirmed: say why" in page


def test_removing_a_hand_of_a_confirmed_result_needs_a_reason_in_the_api(client, season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client.force_login(cast.admin)
    hand = game.hands.get(number=1)
    url = f"/api/games/{game.pk}/hands/{hand.pk}/"
    response = client.delete(url)
    assert response.status_code == 400 and response.json()["field"] == "reason"
    assert game.hands.count() == 1
    response = client.delete(url + "?reason=Entered+in+the+wrong+game.")
    assert response.status_code == 200 and not game.hands.exists()
    assert FactChange.objects.get(game=game, action="hand_removed").comment == "Entered in the wrong game."


def test_api_delete_takes_the_reason_in_a_json_body_too(client, season_game):
    cast, season, game = season_game
    client.force_login(cast.player)
    hand = game.hands.get(number=1)
    response = client.delete(
        f"/api/games/{game.pk}/hands/{hand.pk}/", {"reason": "Duplicate."}, content_type="application/json"
    )
    assert response.status_code == 200
    assert FactChange.objects.get(game=game, action="hand_removed").comment == "Duplicate."


@pytest.mark.parametrize("remove", ["hand_remove", "hand_remove_last"])
def test_service_refuses_an_unexplained_removal_from_a_confirmed_result(season_game, remove):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    target = {"hand": game.hands.get(number=1)} if remove == "hand_remove" else {"game": game}
    with pytest.raises(services.HandRefused) as refused:
        getattr(services, remove)(removed_by=cast.admin, reason=" ", **target)
    assert refused.value.field == "reason"
    assert game.hands.count() == 1
    getattr(services, remove)(removed_by=cast.admin, reason="Wrong game.", **target)
    assert not game.hands.exists()


# --- 4. a refused page says why, in the site's layout ------------------------------------------------


def test_correcting_a_disputed_game_as_its_creator_says_why_in_the_site_layout(client, season_game):
    cast, season, game = season_game
    league.game_dispute(game=game, disputed_by=cast.rival, comment="I had 70, not 80.")
    client.force_login(cast.player)  # Pat created the game but is not an admin
    response = client.get(reverse("hand_edit", args=[game.pk, 1]))
    assert response.status_code == 403
    text = response.content.decode()
    assert 'class="site"' in text and 'id="main"' in text  # base.html's header and main
    assert "This result is disputed: only the club&#x27;s admins can correct it now." in text


def test_correcting_a_confirmed_game_as_a_player_says_why(client, season_game):
    cast, season, game = season_game
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client.force_login(cast.rival)
    response = client.post(reverse("hand_edit", args=[game.pk, 1]), _edit_data(game, defender_deadwood=90))
    assert response.status_code == 403
    assert "This result is confirmed: only the club&#x27;s admins can correct it now." in response.content.decode()


def test_someone_elses_friendly_game_says_who_may_change_it(client, user):
    game = make_game(created_by=user)
    client.force_login(make_user("stranger"))
    response = client.get(reverse("hand_edit", args=[game.pk, 1 if game.hand_count else 1]))
    assert response.status_code == 403
    assert "Only the game&#x27;s players, its creator and staff may change it." in response.content.decode()


# --- 5. every rate on the profile divides by what its label says -------------------------------------


def test_profile_rates_agree_with_their_labels(client):
    """Eve: 7 hands, 6 won, 2 of them by gin; 2 knocks of her own, 1 undercut; Bob knocks 1, undercut by Eve."""
    eve, bob = PlayerFactory(name="Eve"), PlayerFactory(name="Bob")
    rules = {"preset": "standard", "target": 500}
    hands = [
        {"ending": "gin", "by": eve, "defender_deadwood": 10},
        {"ending": "gin", "by": eve, "defender_deadwood": 10},
        {"ending": "knock", "by": eve, "knocker_deadwood": 2, "defender_deadwood": 10},
        {"ending": "knock", "by": eve, "knocker_deadwood": 9, "defender_deadwood": 5},  # undercut: Bob wins
        {"ending": "knock", "by": bob, "knocker_deadwood": 9, "defender_deadwood": 5},  # Eve undercuts
        {"ending": "knock", "by": eve, "knocker_deadwood": 1, "defender_deadwood": 10},
        {"ending": "knock", "by": eve, "knocker_deadwood": 1, "defender_deadwood": 10},
    ]
    make_game(rules=rules, player_one=eve, player_two=bob, hands=hands)
    response = client.get(reverse("stats:profile", args=[eve.pk]))
    assert response.status_code == 200
    text = response.content.decode()
    assert "Gin rate (hands won by gin)" in text
    assert 'data-stat="gin_rate">33%' in text  # 2 gins / 6 hands won (not 2 / 7 = 29 %)
    assert 'data-stat="undercut_rate">100%' in text  # Bob's 1 knock, undercut by Eve
    assert 'data-stat="knock_success">75%' in text  # Eve's 4 knocks, 3 scored for her


# --- 6. a member's home page shows their own games first --------------------------------------------


def test_home_shows_the_members_own_games_and_the_clubs_behind_a_link(client, season_game):
    cast, season, game = season_game
    quinn = cast.player_of(cast.rival)
    others = season.fixtures.get(home__in=[quinn, cast.guest], away__in=[quinn, cast.guest])
    theirs = start_and_finish(others, quinn, started_by=cast.rival)
    UserFactory(username="founder")  # someone can sign in, so home is not the first-run set-up
    client.force_login(cast.player)  # Pat: played one game, not the Quinn v Gus game
    text = client.get(reverse("home")).content.decode()
    assert reverse("game", args=[game.pk]) in text
    assert reverse("game", args=[theirs.pk]) not in text
    assert f'href="{reverse("home")}?show=all"' in text
    everything = client.get(reverse("home"), {"show": "all"}).content.decode()
    assert reverse("game", args=[game.pk]) in everything and reverse("game", args=[theirs.pk]) in everything
