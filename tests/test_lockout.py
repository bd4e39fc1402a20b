"""Nobody gets in by guessing: sign-in lockout on both password doors, and the API's rate limits."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from players.tokens import token_create
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.limits]

PASSWORD = "a-long-test-password"
LOCKED = "Too many failed sign-ins"


@pytest.fixture(autouse=True)
def fast_hashing_and_fresh_counters(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()  # the API throttles count in the cache
    yield
    cache.clear()


@pytest.fixture
def ann(db):
    return UserFactory(username="ann", password=PASSWORD)


@pytest.fixture
def root(db):
    return UserFactory(username="root", password=PASSWORD, is_staff=True, is_superuser=True)


def sign_in(client, door: str, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(door, {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def cool_off_passes():
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))


@pytest.mark.parametrize("door", ["login", "admin:login"])
def test_fifty_wrong_passwords_lock_the_account_until_the_lock_expires(client, ann, root, settings, door):
    user = root if door == "admin:login" else ann
    url = reverse(door)
    answers = [sign_in(client, url, user.username, f"guess-{n}").status_code for n in range(50)]
    limit = settings.AXES_FAILURE_LIMIT
    assert 429 not in answers[: limit - 1]  # the first wrong passwords are just wrong
    assert set(answers[limit:]) == {429}  # then every try is refused, right or wrong

    locked = sign_in(client, url, user.username, PASSWORD)
    assert locked.status_code == 429
    assert LOCKED in locked.content.decode()
    assert "15 minutes" in locked.content.decode()
    assert not signed_in(client)

    cool_off_passes()
    assert sign_in(client, url, user.username, PASSWORD).status_code == 302
    assert signed_in(client)


def test_the_lock_is_per_account_from_any_address(client, ann):
    url = reverse("login")
    for n in range(50):
        sign_in(client, url, "ann", f"guess-{n}", address=f"198.51.100.{n}")
    assert sign_in(client, url, "ann", PASSWORD, address="192.0.2.99").status_code == 429


def test_the_lock_is_per_address_across_accounts(client, ann):
    url = reverse("login")
    for n in range(50):
        sign_in(client, url, f"someone-{n}", "guess", address="203.0.113.66")
    assert sign_in(client, url, "ann", PASSWORD, address="203.0.113.66").status_code == 429
    assert sign_in(client, url, "ann", PASSWORD, address="192.0.2.1").status_code == 302


def test_an_owner_unlocks_an_account_with_the_management_command(client, ann):
    url = reverse("login")
    for n in range(20):
        sign_in(client, url, "ann", f"guess-{n}", address=f"198.51.100.{n}")
    assert sign_in(client, url, "ann", PASSWORD, address="192.0.2.5").status_code == 429
    call_command("axes_reset_username", "ann")
    assert sign_in(client, url, "ann", PASSWORD, address="192.0.2.5").status_code == 302


def test_the_token_endpoint_is_not_a_password_door(ann):
    api = APIClient()
    response = api.post("/api/token/", {"username": "ann", "password": PASSWORD}, format="json")
    assert response.status_code == 403
    assert "token" not in response.json()


def test_anonymous_api_use_is_rate_limited_per_address(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "5/minute"}}
    api = APIClient()
    answers = [api.get("/api/players/", REMOTE_ADDR="203.0.113.9").status_code for _ in range(8)]
    assert answers == [200] * 5 + [429] * 3
    refused = api.get("/api/players/", REMOTE_ADDR="203.0.113.9")
    assert int(refused["Retry-After"]) > 0
    assert set(refused.json()) == {"field", "message", "hand"}
    assert api.get("/api/players/", REMOTE_ADDR="203.0.113.10").status_code == 200  # another address


def test_signed_in_api_use_is_rate_limited_per_account(settings, ann):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"user": "5/minute"}}
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=ann).key}")
    answers = [api.get("/api/games/", REMOTE_ADDR=f"198.51.100.{n}").status_code for n in range(7)]
    assert answers == [200] * 5 + [429] * 2  # a new address does not reset an account's count


def test_token_creation_has_its_own_tighter_limit(settings, ann):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user": "100/minute", "token": "3/hour"},
    }
    api = APIClient()
    api.force_authenticate(ann)
    answers = [api.post("/api/token/").status_code for _ in range(5)]
    assert answers == [201] * 3 + [429] * 2
    assert api.get("/api/games/").status_code == 200  # the rest of the API is still open


def test_the_documented_default_rates(settings):
    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] == {
        "anon": "120/minute", "user": "600/minute", "token": "20/hour",
    }  # fmt: skip
