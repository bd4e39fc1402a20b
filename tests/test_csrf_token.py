"""The pages' CSRF token (ginleague/csrf.py: Django's get_token with its mask drawn from one read of random bytes)
is a token Django's middleware takes: a form's token, sent back with the cookie, passes a checked POST; a wrong one
is refused; each page masks the same secret anew."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.middleware.csrf import CSRF_ALLOWED_CHARS, _unmask_cipher_token
from django.test import Client
from django.urls import reverse

from ginleague.csrf import _random_chars

pytestmark = pytest.mark.django_db


def page_token(client: Client) -> str:
    page = client.get(reverse("league:clubs")).content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_a_pages_token_passes_the_check_and_a_wrong_one_does_not():
    strict = Client(enforce_csrf_checks=True)
    first, second = page_token(strict), page_token(strict)
    secret = strict.cookies["csrftoken"].value
    assert first != second and len(first) == 64 and set(first) <= set(CSRF_ALLOWED_CHARS)
    assert _unmask_cipher_token(first) == _unmask_cipher_token(second) == secret
    switch = reverse("language_choose")
    assert strict.post(switch, {"language": "de", "csrfmiddlewaretoken": second}).status_code == 302
    wrong = second[:32] + second[33:] + ("a" if second[32] != "a" else "b")
    assert strict.post(switch, {"language": "de", "csrfmiddlewaretoken": wrong}).status_code == 403


def test_the_mask_draws_every_character_alike():
    drawn = Counter(_random_chars(64 * 500))
    assert set(drawn) == set(CSRF_ALLOWED_CHARS)
    assert max(drawn.values()) < 2 * min(drawn.values())  # 500 of each expected; a biased draw skews the ends
