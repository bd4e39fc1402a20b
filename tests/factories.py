"""factory-boy factories. Games and hands are made through the services so
their derived figures are always the engine's."""

import factory
from django.contrib.auth import get_user_model

from players.models import Player
from scoring import services


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password("a-long-test-password")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Player {n}")


def make_game(*, rules=None, player_one=None, player_two=None, first_dealer=None, created_by=None, hands=()):
    """A game through game_create, then each hand (a dict of facts) through hand_record."""
    player_one = player_one or PlayerFactory()
    player_two = player_two or PlayerFactory()
    game = services.game_create(
        player_one=player_one,
        player_two=player_two,
        first_dealer=first_dealer or player_two,
        rules=rules or {"preset": "standard"},
        created_by=created_by,
    )
    for facts in hands:
        services.hand_record(game=game, recorded_by=created_by, **facts)
    return game
