"""Found in QA: what a visitor sees when a form cannot be accepted (pages, not the API)."""

from __future__ import annotations

import pytest
from django.test import Client

from players.models import Player
from scoring.models import Hand
from tests.factories import UserFactory, make_game

pytestmark = pytest.mark.django_db


def test_a_form_sent_without_its_security_token_gets_the_sites_page_saying_what_to_do():
    # E.g. a hand form left open across a sign-out and sign-in: 403 in the site's layout with
    # what to do, not Django's developer page, and nothing saved.
    user = UserFactory(username="ann")
    ann = Player.objects.create(name="Ann", user=user)
    game = make_game(player_one=ann, created_by=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(f"/games/{game.pk}/hands/", {"ending": "dead", "action": "save"})
    assert response.status_code == 403
    page = response.content.decode()
    assert "CSRF verification failed" not in page
    assert "Reload the page" in page
    assert 'id="main"' in page  # the site's layout
    assert not Hand.objects.filter(game=game).exists()
