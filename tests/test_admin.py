"""Django admin covers every model, and each list and add page opens."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from tests.factories import UserFactory, make_game

pytestmark = pytest.mark.django_db

MODELS = [*apps.get_app_config("players").get_models(), *apps.get_app_config("scoring").get_models()]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_every_model_has_an_admin_page_that_opens(client, model):
    assert model in admin.site._registry, f"{model.__name__} is not in the admin"
    make_game(hands=[{"ending": "dead"}])
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    opts = model._meta
    response = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
    assert response.status_code == 200


def test_games_and_hands_are_shown_in_the_admin_but_written_only_through_the_app(client):
    """A game or hand saved or deleted in the admin would skip the services: no scoring again, no audit
    trail, no standings or ratings moved, no live update. The admin shows them and offers no write."""
    game = make_game(hands=[{"ending": "dead"}])
    hand = game.hands.get()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:scoring_game_change", args=[game.pk]))
    assert page.status_code == 200
    assert b'name="_save"' not in page.content  # shown, not offered for saving
    refused = [
        client.post(reverse("admin:scoring_game_change", args=[game.pk]), {"name": "Renamed"}),
        client.post(reverse("admin:scoring_game_delete", args=[game.pk]), {"post": "yes"}),
        client.post(reverse("admin:scoring_hand_delete", args=[hand.pk]), {"post": "yes"}),
        client.get(reverse("admin:scoring_game_add")),
    ]
    assert [response.status_code for response in refused] == [403, 403, 403, 403]
    game.refresh_from_db()
    assert game.name != "Renamed" and game.hands.count() == 1
