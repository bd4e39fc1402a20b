"""The kitchen-table pages through Django's test client."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from players.models import Player, SiteSettings
from scoring.engine.score import dealer_after
from scoring.models import Game, Hand
from tests.factories import PlayerFactory, UserFactory, make_game

KNOCK = {"ending": "knock", "knocker_deadwood": 5, "defender_deadwood": 20}


def post_hand(client, game, *, by=None, expected=None, htmx=False, **facts):
    data = {"action": "save", **facts}
    if by is not None:
        data["by"] = by.pk
    data["expected_number"] = expected if expected is not None else game.hand_count + 1
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("hand_submit", args=[game.pk]), data, **headers)


@pytest.fixture
def owner_game(db):
    """A standard game created by ann, who is signed in on ``client``."""
    ann = UserFactory(username="ann")
    game = make_game(created_by=ann)
    client = Client()
    client.force_login(ann)
    return client, game


# --- permissions -------------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_writes_go_to_sign_in_and_store_nothing(client):
    UserFactory(username="someone")
    game = make_game()
    for name, args in [
        ("hand_submit", [game.pk]),
        ("hand_undo", [game.pk]),
        ("play_again", [game.pk]),
        ("hand_preview", [game.pk]),
    ]:
        response = client.post(reverse(name, args=args), {"ending": "dead", "expected_number": 1})
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    assert client.get(reverse("game_new"))["Location"].startswith(reverse("login"))
    assert not Hand.objects.exists()
    assert Game.objects.count() == 1


@pytest.mark.django_db
def test_a_stranger_gets_403_on_every_write():
    owner = UserFactory(username="owner")
    game = make_game(created_by=owner, hands=[{"ending": "dead"}])
    stranger = Client()
    stranger.force_login(UserFactory(username="stranger"))
    assert post_hand(stranger, game, ending="dead").status_code == 403
    assert stranger.post(reverse("hand_preview", args=[game.pk]), {"ending": "dead"}).status_code == 403
    assert stranger.get(reverse("hand_edit", args=[game.pk, 1])).status_code == 403
    assert stranger.post(reverse("hand_edit", args=[game.pk, 1]), {"ending": "dead"}).status_code == 403
    assert stranger.post(reverse("hand_remove", args=[game.pk, 1])).status_code == 403
    assert stranger.post(reverse("hand_undo", args=[game.pk]), {"number": 1}).status_code == 403
    assert stranger.post(reverse("play_again", args=[game.pk])).status_code == 403
    assert Hand.objects.count() == 1 and Game.objects.count() == 1
    # The sheet is readable, without the record form.
    page = stranger.get(reverse("game", args=[game.pk]))
    assert page.status_code == 200 and b'id="record"' not in page.content


@pytest.mark.django_db
def test_linked_player_and_staff_may_write_but_not_the_creator_of_another_game():
    bob_user = UserFactory(username="bob")
    bob = PlayerFactory(name="Bob")
    game = make_game(created_by=UserFactory(username="owner"), player_one=bob)
    bob.user = bob_user  # Bob claims his record after the game started (an invitation does this)
    bob.save(update_fields=["user"])
    as_bob = Client()
    as_bob.force_login(bob_user)
    assert post_hand(as_bob, game, ending="dead").status_code == 302
    staff = Client()
    staff.force_login(UserFactory(username="staff", is_staff=True))
    game.refresh_from_db()
    assert post_hand(staff, game, ending="dead").status_code == 302
    assert Hand.objects.filter(game=game).count() == 2


# --- CSRF, CSP ------------------------------------------------------------------


@pytest.mark.django_db
def test_forms_carry_a_csrf_token_and_posts_without_one_are_refused(owner_game):
    client, game = owner_game
    for url in (reverse("game", args=[game.pk]), reverse("game_new")):
        assert b'name="csrfmiddlewaretoken"' in client.get(url).content
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(game.created_by)
    response = post_hand(strict, game, ending="dead")
    assert response.status_code == 403
    assert not Hand.objects.exists()


def _form_token(response) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode()).group(1)


@pytest.mark.django_db
def test_a_page_still_loading_when_someone_signs_in_does_not_undo_their_new_token():
    """A page asked for before signing in (the offline worker fetches the waiting page while the sign-in
    page is open) can come back after it. Its answer must not put the old CSRF cookie back: the forms
    of the pages opened since would all be refused with 403."""
    UserFactory(username="ann")
    browser = Client(enforce_csrf_checks=True)
    sign_in_page = browser.get(reverse("login"))
    slow_answer = browser.get(reverse("offline_waiting"))  # sent with the signed-out cookie...
    signed_in = browser.post(
        reverse("login"),
        {"username": "ann", "password": "a-long-test-password", "csrfmiddlewaretoken": _form_token(sign_in_page)},
    )
    assert signed_in.status_code == 302
    new_game = browser.get(reverse("game_new"))
    browser.cookies.update(slow_answer.cookies)  # ...and lands now, its cookies stored as a browser would
    rules = browser.post(reverse("rules_check"), {"preset": "hollywood", "csrfmiddlewaretoken": _form_token(new_game)})
    assert rules.status_code == 200
    assert "Hollywood" in rules.content.decode()


@pytest.mark.django_db
def test_pages_have_a_csp_and_no_inline_script_or_style(owner_game):
    client, game = owner_game
    post_hand(client, game, by=game.player_one, **KNOCK)
    for url in (
        reverse("home"),
        reverse("game", args=[game.pk]),
        reverse("game_new"),
        reverse("hand_edit", args=[game.pk, 1]),
        reverse("hand_remove", args=[game.pk, 1]),
        reverse("stats:player", args=[game.player_one_id]),
        reverse("login"),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "script-src 'self' 'nonce-" in response["Content-Security-Policy"]
        html = response.content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), url
        assert " style=" not in html and "<style" not in html, url
        assert " on" not in re.sub(r"<[^>]*>", lambda m: re.sub(r'"[^"]*"', "", m.group()), html).split("<body", 1)[0]


# --- recording and refusals ------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("facts", "label", "reason"),
    [
        (
            {"ending": "knock", "by": 1, "knocker_deadwood": 12, "defender_deadwood": 30},
            "Knocker&#x27;s deadwood",
            "over the knock limit of 10",
        ),
        ({"ending": "gin", "by": 1, "defender_deadwood": 120}, "Other player&#x27;s deadwood", "from 0 to 98, not 120"),
        (
            {"ending": "knock", "by": 1, "defender_deadwood": 30},
            "Knocker&#x27;s deadwood",
            "enter a number from 1 to 10",
        ),
        ({"ending": "knock", "knocker_deadwood": 5, "defender_deadwood": 30}, "Who went out", "choose the player"),
        ({"ending": "gin", "by": 1, "defender_deadwood": "ten"}, "Other player&#x27;s deadwood", "whole number"),
    ],
)
def test_a_refused_hand_names_the_field_and_stores_nothing(owner_game, facts, label, reason):
    client, game = owner_game
    facts = dict(facts)
    if facts.pop("by", None):
        facts["by"] = game.player_one.pk
    response = client.post(reverse("hand_submit", args=[game.pk]), {"action": "save", "expected_number": 1, **facts})
    assert response.status_code == 422
    errors = re.findall(r'<p class="error" role="alert">(.*?)</p>', response.content.decode())
    assert any(error.startswith(f"{label}:") and reason in error for error in errors), errors
    assert not Hand.objects.exists()
    game.refresh_from_db()
    assert game.hand_count == 0


@pytest.mark.django_db
def test_a_hand_after_game_over_is_refused(owner_game):
    client, game = owner_game
    post_hand(client, game, ending="gin", by=game.player_one, defender_deadwood=90)  # 115: game over
    game.refresh_from_db()
    assert game.over
    response = post_hand(client, game, ending="dead")
    assert response.status_code == 422
    assert "How the hand ended: the game is already over" in response.content.decode()
    assert Hand.objects.count() == 1


@pytest.mark.django_db
def test_a_double_submit_records_the_hand_once(owner_game):
    client, game = owner_game
    first = post_hand(client, game, by=game.player_one, expected=1, **KNOCK)
    second = post_hand(client, game, by=game.player_one, expected=1, **KNOCK)
    assert first.status_code == 302
    assert second.status_code == 409
    assert "Hand 1 was already recorded; the sheet now has 1 hand." in second.content.decode()
    assert Hand.objects.count() == 1


@pytest.mark.django_db
def test_a_hand_number_that_cannot_be_next_is_refused_with_the_sheets_count(owner_game):
    client, game = owner_game
    for made_up in (0, -3, 7):
        response = post_hand(client, game, by=game.player_one, expected=made_up, **KNOCK)
        assert response.status_code == 409
        assert f"The sheet has no hands, so the next is hand 1, not {made_up}" in response.content.decode()
    assert Hand.objects.count() == 0


@pytest.mark.django_db
def test_preview_shows_the_result_and_saves_nothing(owner_game):
    client, game = owner_game
    data = {"ending": "knock", "by": game.player_two_id, "knocker_deadwood": 8, "defender_deadwood": 6}
    htmx = client.post(reverse("hand_preview", args=[game.pk]), data, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 200
    text = htmx.content.decode()
    assert "<html" not in text and 'id="preview"' in text
    assert f"Undercut! {game.player_one.name} scores 27." in text
    no_js = client.post(reverse("hand_submit", args=[game.pk]), {**data, "action": "preview", "expected_number": 1})
    assert f"Undercut! {game.player_one.name} scores 27." in no_js.content.decode()
    assert "<html" in no_js.content.decode()
    assert not Hand.objects.exists()


@pytest.mark.django_db
def test_htmx_save_swaps_only_the_sheet(owner_game):
    client, game = owner_game
    response = post_hand(client, game, by=game.player_one, htmx=True, **KNOCK)
    text = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in text and text.count('id="sheet"') == 1
    assert f"Hand 1 saved: {game.player_one.name} knock 15." in text
    assert 'name="expected_number" value="2"' in text


@pytest.mark.django_db
def test_oklahoma_form_has_the_upcard_picker_and_big_gin_only_where_allowed(db):
    user = UserFactory(username="ok")
    client = Client()
    client.force_login(user)
    oklahoma = make_game(created_by=user, rules={"preset": "oklahoma"})
    classic = make_game(created_by=user, rules={"preset": "classic"})
    ok_page = client.get(reverse("game", args=[oklahoma.pk])).content.decode()
    assert 'name="upcard_rank"' in ok_page and 'name="upcard_suit"' in ok_page
    assert 'value="big_gin"' in ok_page
    classic_page = client.get(reverse("game", args=[classic.pk])).content.decode()
    assert 'name="upcard_rank"' not in classic_page
    assert 'value="big_gin"' not in classic_page  # classic has no big gin
    response = post_hand(
        client,
        oklahoma,
        ending="knock",
        by=oklahoma.player_one,
        knocker_deadwood=5,
        defender_deadwood=20,
        upcard_rank="7",
        upcard_suit="S",
    )
    assert response.status_code == 302
    hand = Hand.objects.get(game=oklahoma)
    assert hand.upcard == "7S" and hand.doubled and hand.points == 30


# --- corrections -------------------------------------------------------------------------


@pytest.mark.django_db
def test_editing_an_earlier_hand_shows_what_changed(owner_game):
    client, game = owner_game
    post_hand(client, game, by=game.player_one, **KNOCK)
    game.refresh_from_db()
    post_hand(client, game, ending="gin", by=game.player_two, defender_deadwood=10)
    edit_url = reverse("hand_edit", args=[game.pk, 1])
    assert 'value="20"' in client.get(edit_url).content.decode()
    response = client.post(edit_url, {**KNOCK, "by": game.player_one_id, "defender_deadwood": 4}, follow=True)
    text = response.content.decode()
    name = game.player_one.name
    assert "Hand 1 corrected." in text
    assert f"Hand 1: {name} knock 15 → {game.player_two.name} undercut 26" in text
    assert Hand.objects.get(game=game, number=1).result == "undercut"


@pytest.mark.django_db
def test_a_refused_edit_changes_nothing(owner_game):
    client, game = owner_game
    post_hand(client, game, by=game.player_one, **KNOCK)
    response = client.post(
        reverse("hand_edit", args=[game.pk, 1]), {**KNOCK, "by": game.player_one_id, "knocker_deadwood": 11}
    )
    assert response.status_code == 422
    assert "Knocker&#x27;s deadwood: 11 is over the knock limit of 10" in response.content.decode()
    assert Hand.objects.get().knocker_deadwood == 5


@pytest.mark.django_db
def test_removal_needs_the_confirm_step(owner_game):
    client, game = owner_game
    post_hand(client, game, by=game.player_one, **KNOCK)
    game.refresh_from_db()
    post_hand(client, game, ending="dead")
    url = reverse("hand_remove", args=[game.pk, 1])
    confirm = client.get(url)
    assert "Remove hand 1?" in confirm.content.decode() and Hand.objects.count() == 2
    response = client.post(url, follow=True)
    assert "Hand 1 removed" in response.content.decode()
    assert list(Hand.objects.values_list("number", "ending")) == [(1, "dead")]


@pytest.mark.django_db
def test_undo_removes_only_the_hand_the_user_saw_last(owner_game):
    client, game = owner_game
    post_hand(client, game, by=game.player_one, **KNOCK)
    game.refresh_from_db()
    post_hand(client, game, ending="dead")
    stale = client.post(reverse("hand_undo", args=[game.pk]), {"number": 1}, follow=True)
    assert "nothing was undone" in stale.content.decode()
    assert Hand.objects.count() == 2
    client.post(reverse("hand_undo", args=[game.pk]), {"number": 2})
    assert list(Hand.objects.values_list("number", flat=True)) == [1]


@pytest.mark.django_db
def test_play_again_carries_players_rules_and_dealer(owner_game):
    client, game = owner_game
    rules_spec = {"preset": "standard", "undercut_bonus": 20, "next_dealer": "winner"}
    game = make_game(created_by=game.created_by, rules=rules_spec)
    for facts in (
        {"ending": "knock", "by": game.player_one, "knocker_deadwood": 5, "defender_deadwood": 20},
        {"ending": "gin", "by": game.player_two, "defender_deadwood": 90},
    ):
        post_hand(client, game, **facts)
        game.refresh_from_db()
    assert game.over and game.next_dealer_id is None
    response = client.post(reverse("play_again", args=[game.pk]))
    new = Game.objects.latest("pk")
    assert response["Location"] == reverse("game", args=[new.pk])
    assert new.rules == game.rules and (new.player_one, new.player_two) == (game.player_one, game.player_two)
    from scoring.engine.rules import resolve_rules
    from scoring.engine.score import HandFacts, score_session

    rules = resolve_rules(game.rules)
    facts = [
        HandFacts(h.ending, h.by_id, h.knocker_deadwood, h.defender_deadwood) for h in game.hands.order_by("number")
    ]
    session = score_session(rules, (game.player_one_id, game.player_two_id), game.first_dealer_id, facts)
    assert new.first_dealer_id == dealer_after(rules, session.players, game.first_dealer_id, session.hands)
    assert new.first_dealer_id == game.player_two_id  # next_dealer=winner: the last hand's winner deals


# --- starting a game --------------------------------------------------------------------


@pytest.mark.django_db
def test_start_a_game_creating_players_and_an_override(owner_game):
    client, _ = owner_game
    response = client.post(
        reverse("game_new"),
        {
            "player_one": "Zed",
            "player_two": "  yan ",
            "first_dealer": "two",
            "preset": "classic",
            "rule_undercut_bonus": "15",
            "rule_big_gin_bonus": "off",
            "hollywood": "on",
            "action": "start",
        },
    )
    game = Game.objects.latest("pk")
    assert response["Location"] == reverse("game", args=[game.pk])
    assert (game.player_one.name, game.player_two.name) == ("Zed", "yan")
    assert game.first_dealer == game.player_two
    assert game.rules["undercut_bonus"] == 15 and game.rules["hollywood"] is True and game.preset == "classic"
    sheet = client.get(response["Location"]).content.decode()
    assert "Undercut bonus: 15" in sheet


@pytest.mark.django_db
def test_start_a_game_refusals_name_the_field(owner_game):
    client, _ = owner_game
    before = Game.objects.count()
    response = client.post(
        reverse("game_new"),
        {
            "player_one": "Zed",
            "player_two": "zed",
            "first_dealer": "one",
            "preset": "standard",
            "rule_knock_limit": "11",
        },
    )
    text = response.content.decode()
    assert response.status_code == 422
    assert "Second player: a game needs two different players." in text
    assert "Knock limit: enter a number from 0 to 10, not 11" in text
    assert Game.objects.count() == before and not Player.objects.filter(name="Zed").exists()


@pytest.mark.django_db
def test_new_game_offers_recent_opponents_and_last_rules(owner_game):
    client, game = owner_game
    make_game(created_by=game.created_by, rules={"preset": "standard", "undercut_bonus": 20})
    page = client.get(reverse("game_new")).content.decode()
    assert reverse("play_again", args=[game.pk]) in page  # one tap to play the same pair again
    assert 'name="rule_undercut_bonus" value="20"' in page  # the last rule set, pre-filled


# --- history ------------------------------------------------------------------------


@pytest.mark.django_db
def test_home_lists_games_in_progress_first_and_player_page_lists_hands(owner_game):
    client, game = owner_game
    post_hand(client, game, ending="gin", by=game.player_one, defender_deadwood=90)
    open_game = make_game(created_by=game.created_by)
    home = client.get(reverse("home")).content.decode()
    assert home.index(reverse("game", args=[open_game.pk])) < home.index(reverse("game", args=[game.pk]))
    player_page = client.get(reverse("stats:player", args=[game.player_one_id])).content.decode()
    assert f"115 to {game.player_one.name}" in player_page


# --- query counts -------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("hands", [0, 5, 40])
def test_scoresheet_queries_do_not_grow_with_hands(django_assert_num_queries, hands):
    user = UserFactory(username="counter")
    game = make_game(created_by=user, rules={"preset": "hollywood", "target": 10_000})
    for number in range(hands):
        by = game.player_one if number % 2 else game.player_two
        facts = (
            {"ending": "dead"}
            if number % 5 == 4
            else {"ending": "knock", "by": by, **{"knocker_deadwood": 3, "defender_deadwood": 9}}
        )
        from scoring.services import hand_record

        hand_record(game=game, **facts)
    anonymous = Client()
    with django_assert_num_queries(2):  # game with its players, hands
        assert anonymous.get(reverse("game", args=[game.pk])).status_code == 200
    signed_in = Client()
    signed_in.force_login(user)
    with django_assert_num_queries(4):  # + session, user
        assert signed_in.get(reverse("game", args=[game.pk])).status_code == 200


# --- accounts ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_first_run_creates_the_owner_then_setup_is_gone(client):
    assert client.get(reverse("home"))["Location"] == reverse("setup")
    assert client.get(reverse("login"))["Location"] == reverse("setup")
    response = client.post(
        reverse("setup"),
        {"username": "owner", "password1": "kitchen-table-42", "password2": "kitchen-table-42", "player_name": "Olive"},
    )
    assert response["Location"] == reverse("home")
    owner = get_user_model().objects.get()
    assert owner.is_superuser and owner.player.name == "Olive"
    other = Client()
    assert other.get(reverse("setup"))["Location"] == reverse("login")
    assert (
        other.post(
            reverse("setup"), {"username": "x", "password1": "kitchen-table-42", "password2": "kitchen-table-42"}
        ).status_code
        == 302
    )
    assert get_user_model().objects.count() == 1


@pytest.mark.django_db
def test_owner_turns_signup_off(client):
    owner = UserFactory(username="owner", is_superuser=True, is_staff=True)
    plain = Client()
    plain.force_login(UserFactory(username="plain"))
    assert plain.get(reverse("site_settings")).status_code == 403
    assert plain.post(reverse("site_settings"), {}).status_code == 403
    assert SiteSettings.load().signup_open
    client.force_login(owner)
    client.post(reverse("site_settings"), {})  # unchecked box: closed
    assert not SiteSettings.load().signup_open
    visitor = Client()
    closed = visitor.post(
        reverse("signup"), {"username": "new", "password1": "kitchen-table-42", "password2": "kitchen-table-42"}
    )
    assert closed.status_code == 403 and "Sign-up is closed" in closed.content.decode()
    assert not get_user_model().objects.filter(username="new").exists()
    client.post(reverse("site_settings"), {"signup_open": "on"})
    opened = visitor.post(
        reverse("signup"), {"username": "new", "password1": "kitchen-table-42", "password2": "kitchen-table-42"}
    )
    assert opened.status_code == 302 and get_user_model().objects.filter(username="new", is_superuser=False).exists()


@pytest.mark.django_db
def test_signup_cannot_claim_an_existing_player(client):
    UserFactory(username="owner")
    PlayerFactory(name="Bob")
    response = client.post(
        reverse("signup"),
        {"username": "bob", "password1": "kitchen-table-42", "password2": "kitchen-table-42", "player_name": "bob"},
    )
    assert response.status_code == 422
    assert "Your name at the table: that player already exists" in response.content.decode()
    assert Player.objects.get(name="Bob").user is None


@pytest.mark.django_db
def test_demo_data_alone_still_leads_to_owner_setup(client):
    from django.core.management import call_command

    call_command("seed_demo", "--players", "4", "--games", "2", stdout=io.StringIO())
    assert get_user_model().objects.exists()  # the demo's members, none of whom can sign in
    assert client.get(reverse("home"))["Location"] == reverse("setup")
    client.post(
        reverse("setup"), {"username": "owner", "password1": "kitchen-table-42", "password2": "kitchen-table-42"}
    )
    assert get_user_model().objects.get(username="owner").is_superuser
    assert client.get(reverse("home")).status_code == 200
