"""The API's words: English unless the request asks for a language; what a program acts on never depends on them."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_write_without_anyone_signed_in_says_so_without_words(language):
    """A phone's queue tells "sign in first" from a refusal by a header, not by the English "Sign in"."""
    answer = Client(enforce_csrf_checks=False).post(
        "/api/games/", {}, content_type="application/json", headers={"accept-language": language}
    )
    assert answer.status_code == 403
    assert answer.headers["X-Sign-In"] == "required"
    assert answer.json()["message"]


def test_a_refusal_that_is_not_about_signing_in_carries_no_sign_in_header(client, user):
    client.force_login(user)
    answer = client.post("/api/games/", {"player_one": "Ann"}, content_type="application/json")
    assert answer.status_code == 400
    assert "X-Sign-In" not in answer.headers
