"""Quiet logs (issue 29, item 12): an expected refusal is one INFO line without a traceback, not a warning."""

import logging

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db


def request_log(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "django.request"]


def refusals(client, api) -> None:
    """A 403 page, a 404 page and a 409 from the API (a second phone records hand 1 again)."""
    assert client.get(reverse("site_settings")).status_code == 403  # PermissionDenied: not the owner
    assert client.get(reverse("game", args=[999_999])).status_code == 404
    game = make_game(player_one=PlayerFactory(name="Ann"), player_two=PlayerFactory(name="Bob"))
    path = f"/api/games/{game.pk}/hands/"
    assert api.post(path, {"ending": "dead", "number": 1}, format="json").status_code == 201
    assert api.post(path, {"ending": "dead", "number": 1}, format="json").status_code == 409


@pytest.fixture
def clients():
    user = UserFactory(username="ann", is_staff=True)
    client = Client()
    client.force_login(user)
    api = APIClient()
    api.force_authenticate(user)
    return client, api


def test_expected_refusals_are_one_info_line_each_without_a_traceback(caplog, clients):
    with caplog.at_level(logging.INFO):
        refusals(*clients)
    records = request_log(caplog)
    assert [(record.status_code, record.levelname) for record in records] == [
        (403, "INFO"),
        (404, "INFO"),
        (409, "INFO"),
    ]
    for record in records:
        assert record.exc_info is None and record.exc_text is None
        line = caplog.handler.format(record)
        assert "\n" not in line and "Traceback" not in line, line
    assert records[2].getMessage().startswith("Conflict: /api/games/")


def test_at_the_default_level_a_club_nights_refusals_print_nothing(caplog, clients):
    """The load bench's server logs at WARNING: two phones recording one hand is no warning."""
    with caplog.at_level(logging.WARNING):
        refusals(*clients)
    assert request_log(caplog) == []
    assert "Conflict" not in caplog.text and "Forbidden" not in caplog.text
