"""Who confirms a league result (#29, #30): nobody confirms a result they recorded or changed themselves.

The same rule on the league page, the scoresheet, the API and the "Needs you" list.
"""

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from players import clubs
from scoring import permissions, services
from scoring.league import services as league
from scoring.models import FactChange, LeagueStatus, StandingLine
from scoring.selectors import todo_for
from tests.league_setup import make_club, make_user, play, start_and_finish

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def page(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def duel(cast, one, two, *, winner, started_by):
    """One fixture between ``one`` and ``two`` (players), started and won at once by ``winner``."""
    season = league.season_create(club=cast.club, name="Spring", players=[one, two])
    return start_and_finish(season.fixtures.get(), winner, started_by=started_by)


def confirm_button(user, game) -> bool:
    """Whether the league page and the scoresheet offer ``user`` the confirmation (they agree)."""
    action = f'action="{reverse("league:game_confirm", args=[game.pk])}"'
    on_league_page = action in page(user).get(reverse("league:game", args=[game.pk])).content.decode()
    on_sheet = action in page(user).get(reverse("game", args=[game.pk])).content.decode()
    assert on_league_page == on_sheet
    return on_sheet


# --- #30 item 8: the confirming player rewrites the result, then confirms it --------------------------


def test_a_player_who_rewrites_the_result_cannot_then_confirm_it():
    cast = make_club()
    carol, dave = cast.player, cast.rival
    game = duel(cast, cast.player_of(carol), cast.player_of(dave), winner=cast.player_of(carol), started_by=carol)
    hand = game.hands.get()

    # Dave turns Carol's gin into his own...
    rewritten = api(dave).put(
        f"/api/games/{game.pk}/hands/{hand.pk}/",
        {"ending": "gin", "by": cast.player_of(dave).pk, "defender_deadwood": 80},
        format="json",
    )
    assert rewritten.status_code == 200, rewritten.content
    # ...and cannot confirm it: the result waits for Carol.
    refused = api(dave).post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert refused.status_code == 403
    assert "waits for" in refused.json()["message"] and cast.player_of(carol).name in refused.json()["message"]
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING and game.confirmed_by is None
    assert game.winner == cast.player_of(dave)
    with pytest.raises(PermissionDenied):  # the service asks too, of the locked row
        league.game_confirm(game=game, confirmed_by=dave)
    assert not confirm_button(dave, game)
    sheet = page(carol).get(reverse("game", args=[game.pk])).content.decode()
    assert f"waiting for {cast.player_of(carol).name} or a club organiser to confirm" in sheet
    assert [g.pk for g in todo_for(carol).to_confirm] == [game.pk]
    assert todo_for(dave).to_confirm == []

    # Carol sees what Dave did and disputes it (or would confirm it: it is hers to decide now).
    assert confirm_button(carol, game)
    disputed = api(carol).post(f"/api/games/{game.pk}/dispute/", {"comment": "That was my gin"}, format="json")
    assert disputed.status_code == 200


def test_a_change_by_a_player_withdraws_the_confirmation_and_waits_for_the_other():
    cast = make_club()
    pat, admin = cast.player_of(cast.player), cast.player_of(cast.admin)
    game = duel(cast, pat, admin, winner=pat, started_by=cast.player)
    league.game_confirm(game=game, confirmed_by=cast.admin)  # the admin confirms as Pat's opponent
    assert StandingLine.objects.filter(game=game).count() == 2

    # Confirmed: only the club's admins correct it. This admin played: their change reopens the result.
    hand = game.hands.get()
    corrected = api(cast.admin).put(
        f"/api/games/{game.pk}/hands/{hand.pk}/",
        {"ending": "gin", "by": admin.pk, "defender_deadwood": 80, "reason": "Had it backwards"},
        format="json",
    )
    assert corrected.status_code == 200, corrected.content
    assert corrected.json()["game"]["league_status"] == LeagueStatus.PLAYING
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING and game.confirmed_by is None and game.confirmed_at is None
    assert not StandingLine.objects.filter(game=game).exists()  # it no longer counts
    trail = list(FactChange.objects.filter(game=game).order_by("at", "pk").values_list("action", "before"))
    assert trail[0][0] == "confirmed" and ("reopened", "Confirmed") in trail
    assert api(cast.admin).post(f"/api/games/{game.pk}/confirm/", {}, format="json").status_code == 403
    assert api(cast.player).post(f"/api/games/{game.pk}/confirm/", {}, format="json").status_code == 200


def test_removing_a_hand_once_over_makes_the_result_wait_for_the_other_player():
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = duel(cast, pat, quinn, winner=pat, started_by=cast.player)
    hand = game.hands.get()
    removed = api(cast.rival).delete(f"/api/games/{game.pk}/hands/{hand.pk}/")
    assert removed.status_code == 200, removed.content
    # Quinn records the last hand again, his way: the game is over, and it is Pat's to confirm.
    recorded = api(cast.rival).post(
        f"/api/games/{game.pk}/hands/", {"ending": "gin", "by": quinn.pk, "defender_deadwood": 80}, format="json"
    )
    assert recorded.status_code == 201, recorded.content
    game.refresh_from_db()
    assert game.over and game.winner == quinn
    assert api(cast.rival).post(f"/api/games/{game.pk}/confirm/", {}, format="json").status_code == 403
    assert permissions.can_confirm(cast.player, game, cast.club)


def test_setting_aside_a_version_once_over_is_a_change_too():
    cast = make_club()
    pat, admin = cast.player_of(cast.player), cast.player_of(cast.admin)
    game = duel(cast, pat, admin, winner=pat, started_by=cast.player)
    league.game_confirm(game=game, confirmed_by=cast.owner)
    hand = game.hands.get()
    kept = api(cast.admin).post(
        f"/api/games/{game.pk}/hands/{hand.pk}/set-aside/",
        {"ending": "gin", "by": admin.pk, "defender_deadwood": 80},
        format="json",
    )
    assert kept.status_code == 201, kept.content
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING and game.result_changed_by == cast.admin
    assert permissions.can_confirm(cast.player, game, cast.club)
    assert not permissions.can_confirm(cast.admin, game, cast.club)


# --- #29 item 2: a club admin who played confirms nothing of their own ---------------------------------


def test_an_admin_who_played_and_recorded_is_not_offered_the_confirmation():
    cast = make_club()
    pat, admin = cast.player_of(cast.player), cast.player_of(cast.admin)
    game = duel(cast, pat, admin, winner=admin, started_by=cast.admin)

    assert not confirm_button(cast.admin, game)
    refused = api(cast.admin).post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert refused.status_code == 403
    assert page(cast.admin).post(reverse("league:game_confirm", args=[game.pk])).status_code == 403
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING
    # Pat, the other player, and the owner (an organiser who did not play) are offered it.
    assert confirm_button(cast.player, game)
    assert confirm_button(cast.owner, game)
    assert api(cast.player).post(f"/api/games/{game.pk}/confirm/", {}, format="json").status_code == 200


# --- #29 item 3: a result against a guest is some organiser's to-do -------------------------------------


def test_a_result_against_a_guest_waits_for_an_organiser_who_did_not_play():
    cast = make_club()
    admin = cast.player_of(cast.admin)
    game = duel(cast, admin, cast.guest, winner=admin, started_by=cast.admin)

    # The owner did not play: it is in their "Needs you", with the page saying so; not in the admin's.
    assert [g.pk for g in todo_for(cast.owner).to_confirm] == [game.pk]
    assert todo_for(cast.admin).to_confirm == []
    todo = page(cast.owner).get(reverse("todo")).content.decode()
    assert "Confirm the result" in todo
    for user in (cast.owner, cast.admin):
        sheet = page(user).get(reverse("game", args=[game.pk])).content.decode()
        assert "waiting for a club organiser who did not play to confirm" in sheet
    assert not confirm_button(cast.admin, game)
    assert api(cast.admin).post(f"/api/games/{game.pk}/confirm/", {}, format="json").status_code == 403

    assert confirm_button(cast.owner, game)
    confirmed = page(cast.owner).post(reverse("league:game_confirm", args=[game.pk]), {"comment": ""})
    assert confirmed.status_code == 302
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.CONFIRMED and game.confirmed_by == cast.owner
    assert todo_for(cast.owner).to_confirm == []
    assert "by a player of the game" not in page(cast.owner).get(reverse("game", args=[game.pk])).content.decode()


def test_a_guest_game_of_a_plain_member_is_in_every_organisers_to_do():
    cast = make_club()
    pat = cast.player_of(cast.player)
    game = duel(cast, pat, cast.guest, winner=cast.guest, started_by=cast.player)
    for user in (cast.owner, cast.admin):
        assert [g.pk for g in todo_for(user).to_confirm] == [game.pk], user
    for user in (cast.player, cast.rival):
        assert todo_for(user).to_confirm == [], user
    assert not permissions.can_confirm(cast.player, game, cast.club)


def test_the_owner_alone_confirms_their_own_game_against_a_guest_and_it_says_so():
    olive = make_user("olive")
    club = clubs.club_create(name="Kitchen Club", owner=olive, is_public=False)
    gus = clubs.member_add_guest(club=club, name="Gus", added_by=olive).player
    me = clubs.player_of(olive)
    season = league.season_create(club=club, name="Spring", players=[me, gus])
    game = start_and_finish(season.fixtures.get(), me, started_by=olive)

    assert [g.pk for g in todo_for(olive).to_confirm] == [game.pk]
    sheet = page(olive).get(reverse("game", args=[game.pk])).content.decode()
    assert f"waiting for {me.name} (the club&#x27;s owner, a player of the game) to confirm" in sheet
    assert confirm_button(olive, game)
    confirmed = page(olive).post(reverse("league:game_confirm", args=[game.pk]), {"comment": ""})
    assert confirmed.status_code == 302
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.CONFIRMED
    league_page = page(olive).get(reverse("league:game", args=[game.pk])).content.decode()
    assert "Result confirmed" in league_page and "by a player of the game" in league_page
    entry = FactChange.objects.get(game=game, action="confirmed")
    assert entry.after.endswith("(confirmed by a player of the game)")
    trail = api(olive).get(f"/api/games/{game.pk}/audit/").json()["results"]
    assert "confirmed by a player of the game" in trail[-1]["after"]

    # With a second organiser who did not play, the owner's own game is theirs to confirm, not the owner's.
    other = clubs.member_add_guest(club=club, name="Hal", added_by=olive).player
    season_two = league.season_create(club=club, name="Summer", players=[me, gus, other])
    admin = make_user("ada")
    clubs.invitation_accept(invitation=clubs.invitation_create(club=club, created_by=olive, role="admin"), user=admin)
    fixture = season_two.fixtures.get(home__in=[me, gus], away__in=[me, gus])
    second = start_and_finish(fixture, me, started_by=olive)
    assert not permissions.can_confirm(olive, second, club)
    assert permissions.can_confirm(admin, second, club)
    assert [g.pk for g in todo_for(admin).to_confirm] == [second.pk]
    assert todo_for(olive).to_confirm == []


def test_the_to_do_lists_exactly_the_results_a_user_can_confirm():
    """One rule: every finished provisional result in a user's to-do is one they can confirm, and every
    result against a guest (or recorded by the other player) that they can confirm is in it."""
    cast = make_club()
    pat, quinn, admin = (cast.player_of(user) for user in (cast.player, cast.rival, cast.admin))
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn, admin, cast.guest])
    starters = {pat.pk: cast.player, quinn.pk: cast.rival, admin.pk: cast.admin, cast.guest.pk: cast.owner}
    games = [
        start_and_finish(fixture, fixture.home, started_by=starters[fixture.away_id])
        for fixture in season.fixtures.all()
    ]
    for user in (cast.owner, cast.admin, cast.player, cast.rival, cast.outsider):
        listed = {game.pk for game in todo_for(user).to_confirm}
        for game in games:
            if game.pk in listed:
                assert permissions.can_confirm(user, game, cast.club), (user, game)
            against_guest = cast.guest.pk in (game.player_one_id, game.player_two_id)
            played = user.pk in (game.player_one.user_id, game.player_two.user_id)
            if not against_guest and not played:
                continue  # an organiser may confirm any result, but is asked only for guests' results
            if permissions.can_confirm(user, game, cast.club):
                assert game.pk in listed, (user, game)


# --- #38 item 1: whoever entered the result never confirms it, whoever started the game -----------------


def test_an_admin_starts_the_fixture_and_the_winner_who_entered_the_gin_cannot_confirm_it():
    cast = make_club()
    peter, paula = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[peter, paula])
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.admin)
    entered = api(cast.player).post(
        f"/api/games/{game.pk}/hands/", {"ending": "gin", "by": peter.pk, "defender_deadwood": 80}, format="json"
    )
    assert entered.status_code == 201, entered.content
    game.refresh_from_db()
    assert game.over

    refused = api(cast.player).post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert refused.status_code == 403
    assert "Nobody confirms a result they recorded or changed themselves" in refused.json()["message"]
    assert not confirm_button(cast.player, game)
    assert page(cast.player).post(reverse("league:game_confirm", args=[game.pk])).status_code == 403
    assert todo_for(cast.player).to_confirm == []
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING

    # Paula, who entered nothing, is asked, and may confirm or dispute; so may the admin, who did not play.
    assert [g.pk for g in todo_for(cast.rival).to_confirm] == [game.pk]
    assert confirm_button(cast.rival, game)
    assert permissions.can_dispute(cast.rival, game, cast.club)
    assert not permissions.can_dispute(cast.player, game, cast.club)
    assert permissions.can_confirm(cast.admin, game, cast.club)
    sheet = page(cast.rival).get(reverse("game", args=[game.pk])).content.decode()
    assert f"waiting for {paula.name} or a club organiser to confirm" in sheet
    assert api(cast.rival).post(f"/api/games/{game.pk}/confirm/", {}, format="json").status_code == 200


def test_when_both_players_entered_hands_neither_confirms_and_the_organisers_are_asked():
    cast = make_club()
    peter, paula = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[peter, paula])
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.admin)
    services.hand_record(
        game=game, recorded_by=cast.rival, ending="knock", by=paula, knocker_deadwood=5, defender_deadwood=30
    )
    play(game, peter, recorded_by=cast.player)
    assert game.over

    for user in (cast.player, cast.rival):
        assert not permissions.can_confirm(user, game, cast.club), user
        assert todo_for(user).to_confirm == [], user
    for user in (cast.owner, cast.admin):
        assert [g.pk for g in todo_for(user).to_confirm] == [game.pk], user
        assert permissions.can_confirm(user, game, cast.club), user


def test_a_player_who_corrected_a_hand_before_the_end_does_not_confirm():
    cast = make_club()
    peter, paula = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[peter, paula])
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.admin)
    hand = services.hand_record(
        game=game, recorded_by=cast.rival, ending="knock", by=paula, knocker_deadwood=5, defender_deadwood=30
    )
    services.hand_edit(
        hand=hand, ending="knock", by=peter, knocker_deadwood=5, defender_deadwood=30, edited_by=cast.player
    )
    play(game, peter, recorded_by=cast.rival)
    # Paula entered both hands, Peter corrected the first: neither confirms.
    assert not permissions.can_confirm(cast.player, game, cast.club)
    assert not permissions.can_confirm(cast.rival, game, cast.club)
    assert permissions.can_confirm(cast.owner, game, cast.club)
