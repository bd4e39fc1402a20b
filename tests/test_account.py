"""The account page: a user creates, replaces and revokes their own API token."""

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.authtoken.models import Token

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_account_needs_sign_in(client):
    response = client.get(reverse("account"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert client.post(reverse("account"), {"token": "create"}).status_code == 302
    assert Token.objects.count() == 0


def test_create_replace_and_revoke_a_token(client):
    user = UserFactory(username="ann")
    client.force_login(user)
    assert "You have no API token." in client.get(reverse("account")).content.decode()

    client.post(reverse("account"), {"token": "create"})
    first = Token.objects.get(user=user).key
    assert first in client.get(reverse("account")).content.decode()
    # The token works against the API.
    api = client.__class__()
    assert api.post("/api/players/", {"name": "Zed"}, content_type="application/json",
                    HTTP_AUTHORIZATION=f"Token {first}").status_code == 201  # fmt: skip

    client.post(reverse("account"), {"token": "create"})
    assert Token.objects.filter(user=user).count() == 1 and Token.objects.get(user=user).key != first

    client.post(reverse("account"), {"token": "revoke"})
    assert not Token.objects.filter(user=user).exists()


def test_account_form_needs_csrf():
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(UserFactory(username="bob"))
    assert strict.post(reverse("account"), {"token": "create"}).status_code == 403
    assert Token.objects.count() == 0


@pytest.fixture
def token_limit_of_three(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "token": "3/hour"},
    }
    cache.clear()  # the counts live in the cache
    yield
    cache.clear()


def test_the_account_page_limits_token_changes_like_the_api(client, token_limit_of_three):
    user = UserFactory(username="ann")
    client.force_login(user)
    answers = [client.post(reverse("account"), {"token": "create"}).status_code for _ in range(5)]
    assert answers == [302] * 3 + [429] * 2
    kept = Token.objects.get(user=user).key
    refused = client.post(reverse("account"), {"token": "create"})
    assert "Too many API token changes: try again in" in refused.content.decode()
    assert Token.objects.get(user=user).key == kept  # nothing changed past the limit
    assert client.post(reverse("account"), {"token": "revoke"}).status_code == 429
    assert Token.objects.filter(user=user).exists()


def test_the_account_page_and_the_api_share_one_token_limit(client, token_limit_of_three):
    user = UserFactory(username="ann")
    client.force_login(user)
    for _ in range(3):
        client.post(reverse("account"), {"token": "create"})
    assert client.post("/api/token/").status_code == 429
