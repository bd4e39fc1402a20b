"""E-mail for what needs someone: a result to confirm, a dispute, fixtures due, an invitation.

Django's in-memory backend (pytest-django's ``mailoutbox``); e-mail goes when the write commits,
so each write runs inside ``django_capture_on_commit_callbacks(execute=True)``.
"""

import datetime
import io
import logging
import re

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from players.models import Invitation, Membership, NotificationPreference
from scoring import services
from scoring.league import services as league
from tests.factories import UserFactory
from tests.league_setup import gin, make_club

pytestmark = pytest.mark.django_db

SITE = "https://gin.example.org"
TEST_CLIENT = "http://testserver"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


def with_addresses(cast):
    for user in (cast.owner, cast.admin, cast.player, cast.rival, cast.outsider):
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
    return cast


def link_in(message, site=SITE) -> str:
    """The one link of this site (at ``site``) in an e-mail's text."""
    account = site + reverse("account")  # every e-mail to an account says where to turn them off
    links = [link for link in re.findall(rf"{re.escape(site)}\S*", message.body) if link != account]
    assert len(links) == 1, message.body
    return links[0]


def sent_to(mailoutbox) -> list[str]:
    return sorted(address for message in mailoutbox for address in message.to)


def two_player_season(cast, **dates):
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    return league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner, **dates)


def finished_game(cast, capture):
    """Pat starts the fixture and records the gin that ends it; Quinn is the one to confirm."""
    season = two_player_season(cast)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    with capture(execute=True):
        services.hand_record(game=game, recorded_by=cast.player, **gin(cast.player_of(cast.player)))
    return game


def test_a_finished_league_game_emails_the_opponent_once_with_a_link_to_confirm(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    cast = with_addresses(make_club())
    season = two_player_season(cast)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    pat = cast.player_of(cast.player)
    with django_capture_on_commit_callbacks(execute=True):
        services.hand_record(game=game, recorded_by=cast.player, ending="knock", by=pat,
                             knocker_deadwood=5, defender_deadwood=20)
    assert mailoutbox == []  # not over yet: nothing to confirm
    with django_capture_on_commit_callbacks(execute=True):
        services.hand_record(game=game, recorded_by=cast.player, **gin(pat))

    assert sent_to(mailoutbox) == [cast.rival.email]  # not Pat, who recorded it; not the admins
    message = mailoutbox[0]
    assert "Confirm the result" in message.subject
    link = link_in(message)
    assert link == SITE + reverse("league:game", args=[game.pk])
    client.force_login(cast.rival)
    page = client.get(link.removeprefix(SITE))
    assert page.status_code == 200
    assert reverse("league:game_confirm", args=[game.pk]) in page.content.decode()


def test_a_result_against_a_guest_emails_the_organisers_who_did_not_play(
    mailoutbox, django_capture_on_commit_callbacks
):
    cast = with_addresses(make_club())
    admin = cast.player_of(cast.admin)
    season = league.season_create(club=cast.club, name="Spring", players=[admin, cast.guest], created_by=cast.owner)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.admin)
    with django_capture_on_commit_callbacks(execute=True):
        services.hand_record(game=game, recorded_by=cast.admin, **gin(admin))
    assert sent_to(mailoutbox) == [cast.owner.email]  # not the admin, who played it; nobody else confirms it
    assert link_in(mailoutbox[0]) == SITE + reverse("league:game", args=[game.pk])


def test_a_dispute_emails_the_other_player_and_the_clubs_owner_and_admins(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    cast = with_addresses(make_club())
    game = finished_game(cast, django_capture_on_commit_callbacks)
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        league.game_dispute(game=game, disputed_by=cast.rival, comment="I had 30, not 80")

    # Quinn disputed it (and knows); the outsider and the guest (no account) hear nothing.
    assert sent_to(mailoutbox) == sorted([cast.player.email, cast.owner.email, cast.admin.email])
    for message in mailoutbox:
        assert "disputed" in message.subject.lower()
        assert "I had 30, not 80" in message.body
        assert link_in(message) == SITE + reverse("league:game", args=[game.pk])
        assert SITE + reverse("account") in message.body
    client.force_login(cast.admin)
    assert client.get(reverse("league:game", args=[game.pk])).status_code == 200


def test_an_opted_out_account_and_an_account_without_an_address_get_none(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    cast = with_addresses(make_club())
    client.force_login(cast.rival)
    page = client.get(reverse("account"))
    assert 'name="notify"' in page.content.decode() and "checked" in page.content.decode()  # on by default
    response = client.post(reverse("account"), {"email_settings": "save", "email": cast.rival.email})  # unticked
    assert response.status_code == 302
    assert NotificationPreference.objects.get(user=cast.rival).email is False

    game = finished_game(cast, django_capture_on_commit_callbacks)
    assert mailoutbox == []  # Quinn turned e-mail off

    cast.player.email = ""  # Pat has no address
    cast.player.save(update_fields=["email"])
    with django_capture_on_commit_callbacks(execute=True):
        league.game_dispute(game=game, disputed_by=cast.rival, comment="Wrong count")
    assert sent_to(mailoutbox) == sorted([cast.owner.email, cast.admin.email])


def test_the_account_page_sets_the_address_and_names_a_bad_one(client):
    cast = make_club()
    client.force_login(cast.player)
    response = client.post(
        reverse("account"), {"email_settings": "save", "email": "pat@example.org", "notify": "on"}
    )
    assert response.status_code == 302
    cast.player.refresh_from_db()
    assert cast.player.email == "pat@example.org"
    assert NotificationPreference.objects.get(user=cast.player).email is True
    page = client.post(reverse("account"), {"email_settings": "save", "email": "not an address", "notify": "on"})
    assert page.status_code == 200 and "E-mail address:" in page.content.decode()
    cast.player.refresh_from_db()
    assert cast.player.email == "pat@example.org"


def test_a_refused_or_rolled_back_write_sends_nothing(mailoutbox, django_capture_on_commit_callbacks):
    cast = with_addresses(make_club())
    season = two_player_season(cast)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        services.hand_record(game=game, recorded_by=cast.player, **gin(cast.player_of(cast.player)))
        raise RuntimeError("the request failed after the hand")  # e.g. a later step of the same request
    assert mailoutbox == []
    game.refresh_from_db()
    assert not game.over

    game = finished_game(cast, django_capture_on_commit_callbacks)
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Exception, match="Say what is wrong"):
        league.game_dispute(game=game, disputed_by=cast.rival, comment="  ")
    assert mailoutbox == []


def test_a_mail_server_failure_is_logged_and_the_write_stands(
    monkeypatch, caplog, mailoutbox, django_capture_on_commit_callbacks
):
    cast = with_addresses(make_club())
    game = finished_game(cast, django_capture_on_commit_callbacks)

    class DownServer:
        def send_messages(self, messages):
            raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr("players.mail.mailers", type("Mailers", (), {"default": DownServer()})())
    with caplog.at_level(logging.ERROR, logger="players.mail"), django_capture_on_commit_callbacks(execute=True):
        league.game_dispute(game=game, disputed_by=cast.rival, comment="Wrong count")
    game.refresh_from_db()
    assert game.league_status == "disputed"
    assert "Could not send the game_disputed e-mail" in caplog.text


def test_send_reminders_emails_fixtures_due_by_tomorrow_or_overdue_once_a_day(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    cast = with_addresses(make_club())
    today = datetime.date.today()
    season = two_player_season(cast)
    fixture = season.fixtures.get()
    league.fixtures_set_due(season=season, round=1, due_on=today + datetime.timedelta(days=3))

    call_command("send_reminders", stdout=io.StringIO())
    assert mailoutbox == []  # due in three days: not yet

    league.fixtures_set_due(season=season, round=1, due_on=today + datetime.timedelta(days=1))
    out = io.StringIO()
    call_command("send_reminders", stdout=out)
    assert out.getvalue().strip() == "2 reminder e-mails sent."
    assert sent_to(mailoutbox) == sorted([cast.player.email, cast.rival.email])
    season_link = SITE + reverse("league:season", args=[cast.club.slug, season.pk])
    for message in mailoutbox:
        assert link_in(message) == season_link
        assert "due" in message.subject
    client.force_login(cast.player)
    assert client.get(season_link.removeprefix(SITE)).status_code == 200

    call_command("send_reminders", stdout=io.StringIO())
    assert len(mailoutbox) == 2  # not again the same day

    day_after_due = (today + datetime.timedelta(days=2)).isoformat()
    call_command("send_reminders", "--date", day_after_due, stdout=io.StringIO())
    assert len(mailoutbox) == 4  # overdue: one a day
    assert all("overdue" in message.subject for message in mailoutbox[2:])

    # Played: no more reminders.
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    services.hand_record(game=game, recorded_by=cast.player, **gin(cast.player_of(cast.player)))
    call_command("send_reminders", "--date", (today + datetime.timedelta(days=5)).isoformat(), stdout=io.StringIO())
    assert len(mailoutbox) == 4


def test_an_invitation_made_on_the_club_page_is_emailed_to_the_address_given(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    cast = make_club()
    client.force_login(cast.owner)
    url = reverse("league:invitation_create", args=[cast.club.slug])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"role": "player", "player": "", "email": "newcomer@example.org"}, follow=True)
    assert "e-mailed to newcomer@example.org" in response.content.decode()
    invitation = Invitation.objects.filter(accepted_at__isnull=True).latest("created_at")
    assert sent_to(mailoutbox) == ["newcomer@example.org"]
    assert cast.club.name in mailoutbox[0].subject
    link = link_in(mailoutbox[0], site=TEST_CLIENT)  # the address the request came to (the test client's)
    assert link == TEST_CLIENT + reverse("league:invitation", args=[invitation.token])
    client.logout()
    assert client.get(link.removeprefix(TEST_CLIENT)).status_code == 200

    # A bad address is refused, naming the field: no invitation, no e-mail.
    client.force_login(cast.owner)
    before = Invitation.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"role": "player", "player": "", "email": "newcomer at example"}, follow=True)
    assert "E-mail it to: Enter a valid email address." in response.content.decode()  # the label, not the name
    assert Invitation.objects.count() == before
    assert len(mailoutbox) == 1


def test_an_account_made_from_an_emailed_invitation_gets_that_address_and_can_change_it(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    """Issue 29, item 7: the invited person's next e-mail (a result to confirm, a reminder) reaches them."""
    UserFactory(username="founder")  # someone can sign in: not the first run
    cast = make_club()
    client.force_login(cast.owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("league:invitation_create", args=[cast.club.slug]),
            {"role": "player", "player": "", "email": "newcomer@example.org"},
        )
    path = link_in(mailoutbox[0], site=TEST_CLIENT).removeprefix(TEST_CLIENT)
    client.logout()
    password = "a-long-test-password"
    response = client.post(
        reverse("signup"), {"username": "newcomer", "password1": password, "password2": password, "next": path}
    )
    assert response.status_code == 302 and response["Location"] == path
    client.post(path)  # "Accept and join"
    account = client.get(reverse("account")).content.decode()
    assert 'value="newcomer@example.org"' in account
    newcomer = Membership.objects.get(club=cast.club, player__user__username="newcomer").player.user
    assert newcomer.email == "newcomer@example.org"

    client.post(reverse("account"), {"email_settings": "save", "email": "elsewhere@example.org", "notify": "on"})
    newcomer.refresh_from_db()
    assert newcomer.email == "elsewhere@example.org"


# --- issue 29, item 6: links work where the app is served ---------------------------------------------


def test_links_in_emails_a_request_causes_go_where_that_request_came(
    client, settings, mailoutbox, django_capture_on_commit_callbacks
):
    """The server runs on another port than 8000 and SITE_URL is not set: the links still open the app."""
    settings.SITE_URL = ""
    served_at = "http://localhost:8123"
    cast = with_addresses(make_club())
    client.force_login(cast.owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("league:invitation_create", args=[cast.club.slug]),
            {"role": "player", "player": "", "email": "newcomer@example.org"},
            HTTP_HOST="localhost:8123",
        )
    invitation = Invitation.objects.get(email="newcomer@example.org")
    assert link_in(mailoutbox[0], site=served_at) == served_at + reverse("league:invitation", args=[invitation.token])

    # A hand saved through the API ends a league game: the service e-mails Quinn, linking where Pat's phone is.
    mailoutbox.clear()
    season = two_player_season(cast)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    client.force_login(cast.player)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("api:hand-list", kwargs={"game_pk": game.pk}),
            {"ending": "gin", "by": cast.player_of(cast.player).pk, "defender_deadwood": 90},
            content_type="application/json",
            HTTP_HOST="localhost:8123",
        )
    assert response.status_code == 201, response.content
    assert sent_to(mailoutbox) == [cast.rival.email]
    assert link_in(mailoutbox[0], site=served_at) == served_at + reverse("league:game", args=[game.pk])
    assert served_at + reverse("account") in mailoutbox[0].body
    assert "127.0.0.1:8000" not in mailoutbox[0].body


def test_reminders_without_a_request_link_to_site_url(settings, mailoutbox):
    settings.SITE_URL = "https://gin.example.org:8443"
    cast = with_addresses(make_club())
    season = two_player_season(cast)
    league.fixtures_set_due(season=season, round=1, due_on=datetime.date.today())
    call_command("send_reminders", stdout=io.StringIO())
    assert len(mailoutbox) == 2
    for message in mailoutbox:
        link = link_in(message, site="https://gin.example.org:8443")
        assert link == "https://gin.example.org:8443" + reverse("league:season", args=[cast.club.slug, season.pk])


def checks_about_site_url() -> list:
    from django.core.checks import run_checks

    return [message for message in run_checks() if message.id == "players.W001"]


def test_check_warns_when_email_is_sent_and_site_url_is_not_set(settings):
    smtp = {"default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend", "OPTIONS": {"host": "mail"}}}
    settings.MAILERS = smtp
    settings.SITE_URL = ""
    [warning] = checks_about_site_url()
    assert "SITE_URL is not set" in warning.msg and "send_reminders" in warning.msg
    out = io.StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "players.W001" in out.getvalue()

    settings.SITE_URL = "https://gin.example.org"
    assert checks_about_site_url() == []
    settings.SITE_URL = ""
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
    assert checks_about_site_url() == []  # printed to the console: no link leaves the machine
