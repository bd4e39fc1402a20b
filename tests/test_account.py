"""The account page: a user creates, replaces and revokes their own API token."""

import pytest
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
    assert api.post("/api/token/", HTTP_AUTHORIZATION=f"Token {first}").status_code in (200, 201)

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
