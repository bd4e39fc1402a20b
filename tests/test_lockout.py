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


@pytest.fixture
def address_limit_of_thirty(settings):
    """The address's limit lowered from 100 to 30 (still three times an account's): the same lock for a third of
    the requests. The club test below keeps the real limit, which is what lets a club's typos through."""
    settings.AXES_ADDRESS_FAILURE_LIMIT = 30
    assert settings.AXES_ADDRESS_FAILURE_LIMIT > 2 * settings.AXES_FAILURE_LIMIT


@pytest.mark.parametrize("door", ["login", "admin:login"])
def test_wrong_passwords_past_the_limit_lock_the_account_until_the_lock_expires(client, ann, root, settings, door):
    user = root if door == "admin:login" else ann
    url = reverse(door)
    limit = settings.AXES_FAILURE_LIMIT
    answers = [sign_in(client, url, user.username, f"guess-{n}").status_code for n in range(limit + 10)]
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


def test_the_lock_is_per_account_from_any_address(client, ann, settings):
    url = reverse("login")
    for n in range(settings.AXES_FAILURE_LIMIT + 5):
        sign_in(client, url, "ann", f"guess-{n}", address=f"198.51.100.{n}")
    assert sign_in(client, url, "ann", PASSWORD, address="192.0.2.99").status_code == 429


def test_the_lock_is_per_address_across_accounts_at_its_own_higher_limit(
    client, ann, settings, address_limit_of_thirty
):
    url = reverse("login")
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        sign_in(client, url, f"someone-{n}", "guess", address="203.0.113.66")
    assert sign_in(client, url, "ann", PASSWORD, address="203.0.113.66").status_code == 429
    assert sign_in(client, url, "ann", PASSWORD, address="192.0.2.1").status_code == 302


def test_signing_in_to_ones_own_account_does_not_reset_the_guesses_at_another(client, ann, settings):
    """The attack of #30: with sign-up open, guess 9 of the victim's passwords, sign in as yourself, repeat."""
    UserFactory(username="mallory", password=PASSWORD)
    url = reverse("login")
    limit = settings.AXES_FAILURE_LIMIT
    guesses = iter(range(1000))
    for _ in range(limit - 1):
        assert sign_in(client, url, "ann", f"guess-{next(guesses)}").status_code == 200
    assert sign_in(client, url, "mallory", PASSWORD).status_code == 302  # the attacker's own account
    client.logout()
    assert sign_in(client, url, "ann", f"guess-{next(guesses)}").status_code == 429  # the account's limit
    assert sign_in(client, url, "ann", PASSWORD).status_code == 429  # the right password is refused too
    assert not signed_in(client)


def test_a_club_on_one_address_is_not_locked_out_by_a_few_typos(client, settings):
    members = [UserFactory(username=f"member-{n}", password=PASSWORD) for n in range(30)]
    url = reverse("login")
    for member in members:  # one typo each, then the right password, from the club's one address
        assert sign_in(client, url, member.username, "typo", address="198.51.100.20").status_code == 200
        assert sign_in(client, url, member.username, PASSWORD, address="198.51.100.20").status_code == 302
        client.logout()
    for member in members:  # 30 typos from that address still stay under its limit
        assert sign_in(client, url, member.username, "typo", address="198.51.100.20").status_code == 200
    assert sign_in(client, url, "member-0", PASSWORD, address="198.51.100.20").status_code == 302


def test_a_successful_sign_in_clears_that_accounts_own_failures(client, ann, settings):
    url = reverse("login")
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, url, "ann", f"guess-{n}")
    assert sign_in(client, url, "ann", PASSWORD).status_code == 302
    client.logout()
    for n in range(settings.AXES_FAILURE_LIMIT - 1):  # her own typos start counting again from nothing
        assert sign_in(client, url, "ann", f"guess-{n}").status_code == 200
    assert sign_in(client, url, "ann", PASSWORD).status_code == 302


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


def test_the_readme_states_the_lockout_limits_in_force(settings):
    readme = (settings.BASE_DIR / "README.md").read_text()
    section = readme[readme.index("### Sign-in lockout") : readme.index("### Rate limits")]
    assert f"`AXES_FAILURE_LIMIT` ({settings.AXES_FAILURE_LIMIT}) for one" in section
    assert f"`AXES_ADDRESS_FAILURE_LIMIT` ({settings.AXES_ADDRESS_FAILURE_LIMIT}) from one address" in section
    assert "clears that account's own failures only" in section


def test_a_caller_cannot_pick_its_address_with_x_forwarded_for_when_no_proxy_is_configured(
    client, ann, settings, address_limit_of_thirty
):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "5/minute"}}
    api = APIClient()
    answers = [
        api.get("/api/players/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code
        for n in range(7)
    ]
    assert answers == [200] * 5 + [429] * 2  # one caller, one count, whatever it claims
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": f"someone-{n}", "password": "guess"},
                    REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"198.51.100.{n % 250}")  # fmt: skip
    assert sign_in(client, reverse("login"), "ann", PASSWORD, address="127.0.0.1").status_code == 429
