"""E-mail in its recipient's language (issue 31): the account's choice, else English, never the sender's."""

from unittest import mock

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import lazy

from players.languages import account_language_set
from players.mail import send_now
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# A subject that says which language it was made in: str() of a lazy string runs under the active language.
language_now = lazy(translation.get_language, str)


def rendered_languages():
    """Patch the mail's renderer to note the language each body is rendered in (and render it still)."""
    seen: list[str] = []

    def rendering(*args, **kwargs):
        seen.append(translation.get_language())
        return render_to_string(*args, **kwargs)

    return seen, mock.patch("players.mail.render_to_string", side_effect=rendering)


def test_each_recipient_gets_the_language_their_account_chose_else_english(mailoutbox):
    ann, bob, cy = UserFactory(username="ann"), UserFactory(username="bob"), UserFactory(username="cy")
    account_language_set(user=ann, language="de")
    account_language_set(user=cy, language="")  # "as the browser says": e-mail has no browser, so English
    seen, patch = rendered_languages()
    with patch, translation.override("fr"):  # whoever caused the e-mail reads French: nobody else gets it
        sent = send_now(
            to=[ann.email, bob.email, cy.email],
            subject=language_now(),
            template="invitation",
            context={"club": "Gin Club", "link": "https://example.org/i/x", "invited_by": "Dee", "role": "player"},
        )
    assert sent == 3
    assert sorted(seen) == ["de", "en-gb"]  # once per language, not per address
    subjects = {message.to[0]: message.subject for message in mailoutbox}
    assert subjects == {ann.email: "de", bob.email: "en-gb", cy.email: "en-gb"}
    assert all(len(message.to) == 1 for message in mailoutbox)


def test_a_callable_subject_is_made_in_each_recipients_language(mailoutbox):
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    account_language_set(user=bob, language="pt-br")
    send_now(
        to=[ann.email, bob.email],
        subject=lambda: f"subject in {translation.get_language()}",
        template="invitation",
        context={"club": "Gin Club", "link": "https://example.org/i/x", "invited_by": "Dee", "role": "player"},
    )
    assert {message.to[0]: message.subject for message in mailoutbox} == {
        ann.email: "subject in en-gb",
        bob.email: "subject in pt-br",
    }


def test_an_invitation_sent_by_a_french_organiser_reaches_a_new_address_wholly_in_english(
    mailoutbox, django_capture_on_commit_callbacks
):
    from players import clubs
    from tests.league_setup import make_club

    cast = make_club()
    with translation.override("fr"), django_capture_on_commit_callbacks(execute=True):
        clubs.invitation_create(club=cast.club, created_by=cast.owner, email="new.player@example.com")
    (message,) = mailoutbox
    assert message.subject == f"An invitation to {cast.club.name}"  # not "Une invitation…": the reader has no French
    assert message.body.startswith("Hello")


# --- #38 item 7: an account without an explicit choice: the language it signed up in, then the one it last used


def _invite(cast, address, mailoutbox, django_capture_on_commit_callbacks):
    from players import clubs

    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        clubs.invitation_create(club=cast.club, created_by=cast.owner, email=address)
    (message,) = mailoutbox
    return message


def test_an_account_that_signed_up_in_portuguese_gets_its_e_mail_in_portuguese(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    from django.contrib.auth import get_user_model

    from tests.league_setup import make_club

    cast = make_club()
    someone = UserFactory(username="site-owner")
    someone.set_password("a long enough pass 41")  # an account that signs in: past the first-run page
    someone.save()
    signed_up = client.post(
        "/signup/",
        {"username": "paulo", "password1": "a long enough pass 41", "password2": "a long enough pass 41"},
        HTTP_ACCEPT_LANGUAGE="pt-BR",
    )
    assert signed_up.status_code == 302, signed_up.content
    paulo = get_user_model().objects.get(username="paulo")
    paulo.email = "paulo@example.com"  # as the account page sets it; the language switch never touched
    paulo.save()
    message = _invite(cast, paulo.email, mailoutbox, django_capture_on_commit_callbacks)
    with translation.override("pt-br"):
        assert message.subject == translation.gettext("An invitation to {club}").format(club=cast.club.name)
    assert message.subject != f"An invitation to {cast.club.name}"

    # An explicit choice still wins.
    account_language_set(user=paulo, language="de")
    message = _invite(cast, paulo.email, mailoutbox, django_capture_on_commit_callbacks)
    with translation.override("de"):
        assert message.subject == translation.gettext("An invitation to {club}").format(club=cast.club.name)


def test_an_account_with_no_sign_up_language_gets_the_language_it_last_signed_in_with(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    from tests.league_setup import make_club

    cast = make_club()
    older = UserFactory(username="olga", email="olga@example.com")
    older.set_password("a long enough pass 41")
    older.save()
    signed_in = client.post(
        "/login/", {"username": "olga", "password": "a long enough pass 41"}, HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert signed_in.status_code == 302, signed_in.content
    message = _invite(cast, older.email, mailoutbox, django_capture_on_commit_callbacks)
    with translation.override("fr"):
        assert message.subject == translation.gettext("An invitation to {club}").format(club=cast.club.name)
