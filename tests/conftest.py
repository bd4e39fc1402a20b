"""Shared fixtures: the golden vectors, a signed-in user, and settings every test runs under."""

import json
from pathlib import Path

import pytest
from django.conf import global_settings
from django.test.utils import override_settings

VECTOR_DIR = Path(__file__).parent / "vectors"
VECTOR_FILES = sorted(VECTOR_DIR.glob("*.json"))


def load_vector(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def user(db):
    from tests.factories import UserFactory

    return UserFactory(username="ann")


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """Hashing a password the production way takes ~0.3 s; tests sign in hundreds of times.

    New hashes are fast ones; the production hashers stay listed so a real hash (one a separate
    server process must check, see tests/browser/test_wall.py) still verifies here."""
    hashers = ["django.contrib.auth.hashers.MD5PasswordHasher", *global_settings.PASSWORD_HASHERS]
    with override_settings(PASSWORD_HASHERS=hashers):
        yield


@pytest.fixture(autouse=True)
def _no_lockout_or_rate_limits(request, settings):
    """The suite signs in and calls the API far more often than any person: no sign-in lockout and no API
    rate limits, except in the tests marked ``limits`` that try them."""
    if request.node.get_closest_marker("limits"):
        return
    settings.AXES_ENABLED = False
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}
