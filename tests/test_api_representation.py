"""The API's game and hand JSON, written directly for speed, equals what DRF itself renders
from the same serializers' declared fields (the fields the published schema is made from)."""

from datetime import UTC, datetime

import pytest
from django.test import RequestFactory
from django.utils import timezone
from rest_framework import serializers

from scoring import services
from scoring.api import serializers as s
from scoring.league import services as league
from scoring.models import Game
from tests.factories import UserFactory, make_game
from tests.league_setup import make_club, start_and_finish

pytestmark = pytest.mark.django_db
KNOCKER = ["3H", "4H", "5H", "7S", "7D", "7C", "9S", "9H", "9C", "2D"]  # deadwood 2
DEFENDER = ["6H", "7H", "8S", "8D", "8C", "JS", "QS", "KS", "AD", "10D"]  # 11 after laying off 6H 7H


def drf_rendering(serializer_class, instance, context=None) -> dict:
    """DRF's generic rendering: every declared field, each through its own serializer field."""
    return serializers.Serializer.to_representation(serializer_class(context=context or {}), instance)


def games_of_every_kind(user) -> list[Game]:
    """A fresh game, an unfinished one with a dead hand and cards, a finished friendly, and a
    confirmed league game (season, fixture, confirmation time, a winner in every figure)."""
    fresh = make_game(created_by=user)
    playing = make_game(created_by=user)
    playing.name, playing.source = "Kitchen", "cards app"
    playing.save()
    services.hand_record(game=playing, ending="knock", by=playing.player_one, knocker_deadwood=2,
                         defender_deadwood=11, upcard="10H", cards={"by": KNOCKER, "defender": DEFENDER})  # fmt: skip
    services.hand_record(game=playing, ending="dead")
    finished = make_game(created_by=user, hands=[])
    for _ in range(2):  # 2 x (25 + 40) ends a standard game
        services.hand_record(game=finished, ending="gin", by=finished.player_two, defender_deadwood=40)
    cast = make_club(name="Representation Club")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn])
    confirmed = start_and_finish(season.fixtures.get(), pat, started_by=cast.player, confirm_by=cast.owner)
    return [Game.objects.get(pk=game.pk) for game in (fresh, playing, finished, confirmed)]


def test_hand_and_game_json_equal_drf_rendering_for_every_kind_of_game():
    user = UserFactory()
    request = RequestFactory().get("/")
    request.user = user
    context = {"request": request}
    games = games_of_every_kind(user)
    assert games[2].over and games[2].winner_id and games[3].confirmed_at and games[3].fixture_id
    for game in games:
        for hand in game.hands.all():
            assert s.HandSerializer(hand).data == drf_rendering(s.HandSerializer, hand)
        for score in game.scores.all():
            assert s.GameScoreSerializer(score).data == drf_rendering(s.GameScoreSerializer, score)
        for player in (game.player_one, game.player_two):
            assert s.PlayerRefSerializer(player).data == drf_rendering(s.PlayerRefSerializer, player)
        for serializer_class in (s.GameSerializer, s.GameDetailSerializer):
            direct = serializer_class(game, context=context).data
            assert direct == drf_rendering(serializer_class, game, context)
            assert list(direct) == list(serializer_class.Meta.fields)  # the schema's order
    many = s.GameSerializer(games, many=True, context=context).data
    assert [game["id"] for game in many] == [game.pk for game in games]


def test_times_are_written_in_the_sites_time_zone_as_drf_writes_them(settings):
    settings.TIME_ZONE = "Europe/Paris"
    user = UserFactory()
    game = make_game(created_by=user, hands=[{"ending": "dead"}])
    Game.objects.filter(pk=game.pk).update(finished_at=datetime(2026, 7, 1, 12, 0, 0, 500, tzinfo=UTC))
    game = Game.objects.get(pk=game.pk)
    with timezone.override("Europe/Paris"):
        direct = s.GameDetailSerializer(game).data
        assert direct == drf_rendering(s.GameDetailSerializer, game)
    assert direct["finished_at"] == "2026-07-01T14:00:00.000500+02:00"
    assert direct["hands"][0]["created_at"] == drf_rendering(s.HandSerializer, game.hands.get())["created_at"]


def test_a_hand_posts_answer_is_written_once_as_drf_writes_it_and_replayed_the_same(settings):
    """The hand POST's answer is rendered once (scoring/api/rendering.py) for the response and the
    Idempotency-Key's store: the bytes DRF's JSONRenderer writes, text a script cannot misread included
    (a name with a line separator, which JSON for JavaScript escapes), indented when asked, and the replay
    of the stored answer says the same (PostgreSQL's jsonb keeps the keys in an order of its own)."""
    from rest_framework.renderers import JSONRenderer
    from rest_framework.test import APIClient

    from players.models import Player

    user = UserFactory()
    ann = Player.objects.create(name="Zoë\u2028Ann", user=user)
    game = make_game(player_one=ann, created_by=user)
    client = APIClient()
    client.force_authenticate(user)
    url, hand = f"/api/games/{game.pk}/hands/", {"ending": "gin", "by": ann.pk, "defender_deadwood": 9}
    first = client.post(url, hand, format="json", HTTP_IDEMPOTENCY_KEY="once")
    assert first.status_code == 201
    assert first.content == JSONRenderer().render(first.json())
    assert b"\\u2028" in first.content and "Zoë".encode() in first.content
    again = client.post(url, hand, format="json", HTTP_IDEMPOTENCY_KEY="once")
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()  # jsonb orders keys
    indented = client.post(url, {**hand, "number": 2}, format="json", HTTP_ACCEPT="application/json; indent=2")
    assert indented.status_code == 201 and indented.content.startswith(b'{\n  "hand": {\n')
