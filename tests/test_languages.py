"""Choosing the language (issue 31): the browser's, the footer's, and the account's, kept across devices."""

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from players.models import LanguageChoice
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def page_language(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode()).group(1)


def signed_in_client(user, **headers) -> Client:
    client = Client(**headers)
    client.force_login(user)
    return client


def test_english_is_the_default_and_the_browser_chooses_otherwise(client):
    assert page_language(client.get(reverse("player_list"))) == "en-gb"
    german = client.get(reverse("player_list"), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    assert page_language(german) == "de"
    assert german["Content-Language"] == "de"
    assert page_language(client.get(reverse("player_list"), HTTP_ACCEPT_LANGUAGE="pt-BR")) == "pt-br"


def test_the_footer_offers_every_shipped_language_and_comes_back_to_the_page(client):
    page = client.get(reverse("player_list") + "?x=1").content.decode()
    footer = page[page.index("<footer") : page.index("</footer>")]
    assert 'action="/language/"' in footer
    assert 'name="csrfmiddlewaretoken"' in footer
    assert 'name="next" value="/players/?x=1"' in footer
    assert re.search(r'<button type="submit">', footer)  # works without JavaScript
    for code, name in settings.LANGUAGES:
        assert f'value="{code}"' in footer and name in footer
    assert re.search(r'value="en-gb"[^>]*selected', footer)


def test_a_visitor_switches_in_the_footer_and_back_to_the_browsers_language(client):
    answer = client.post(reverse("language_choose"), {"language": "fr", "next": "/players/"})
    assert answer.status_code == 302 and answer["Location"] == "/players/"
    assert page_language(client.get("/players/", HTTP_ACCEPT_LANGUAGE="de")) == "fr"  # the choice beats the browser
    client.post(reverse("language_choose"), {"language": "", "next": "/players/"})
    assert page_language(client.get("/players/", HTTP_ACCEPT_LANGUAGE="de")) == "de"


def test_a_switch_refuses_other_sites_and_unknown_languages(client):
    answer = client.post(reverse("language_choose"), {"language": "xx", "next": "https://evil.example/"})
    assert answer["Location"] == reverse("home")
    assert page_language(client.get("/players/")) == "en-gb"
    assert client.get(reverse("language_choose")).status_code == 405


@pytest.mark.parametrize("nowhere", ["-1", "players/"])
def test_a_switch_sent_back_to_no_page_of_the_site_goes_home_in_the_language_chosen(client, nowhere):
    answer = client.post(reverse("language_choose"), {"language": "de", "next": nowhere})
    assert answer.status_code == 302 and answer["Location"] == reverse("home")
    assert page_language(client.get("/players/")) == "de"


def test_the_account_page_keeps_the_choice_for_every_device():
    ann = UserFactory(username="ann")
    phone = signed_in_client(ann)
    form = phone.get(reverse("account")).content.decode()
    assert 'name="language"' in form and 'value="" selected' in form  # "as the browser says" until chosen
    phone.post(reverse("language_choose"), {"language": "es", "next": reverse("account")})
    assert LanguageChoice.objects.get(user=ann).language == "es"
    assert page_language(phone.get(reverse("account"), HTTP_ACCEPT_LANGUAGE="en")) == "es"
    assert re.search(r'<option value="es"[^>]*selected', phone.get(reverse("account")).content.decode())

    # Another device signs in with an English browser: the account's Spanish.
    laptop = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert laptop.post(reverse("login"), {"username": "ann", "password": "a-long-test-password"}).status_code == 302
    assert page_language(laptop.get(reverse("player_list"))) == "es"
    # Signed out: the browser's language again.
    laptop.post(reverse("logout"))
    assert page_language(laptop.get(reverse("player_list"))) == "en-gb"


def test_a_signed_in_footer_switch_is_the_accounts_choice_and_as_the_browser_says_clears_it():
    bob = UserFactory(username="bob")
    client = signed_in_client(bob)
    client.post(reverse("language_choose"), {"language": "de", "next": "/players/"})
    assert LanguageChoice.objects.get(user=bob).language == "de"
    client.post(reverse("language_choose"), {"language": "", "next": "/players/"})
    assert LanguageChoice.objects.get(user=bob).language == ""
    assert page_language(client.get("/players/", HTTP_ACCEPT_LANGUAGE="fr")) == "fr"


def test_the_switch_needs_the_csrf_token():
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(reverse("language_choose"), {"language": "de"}).status_code == 403


@pytest.mark.parametrize("language", ["de", "es", "fr", "pt-br"])
def test_the_footer_names_each_language_in_that_language_whatever_the_page_is_in(client, language):
    page = client.get(reverse("league:clubs"), headers={"accept-language": language}).content.decode()
    footer = page[page.index('class="language-switch"') :]
    for _code, own_name in settings.LANGUAGES:
        assert f">{own_name}</option>" in footer  # "English" on a German page, not "Englisch"
