"""A phone's first load is light: pages go gzipped to a browser that accepts it.

(Static files are gzipped by whitenoise under `make run`: tests/browser/test_make_run.py.)
"""

import gzip

import pytest
from django.test import AsyncClient
from django.urls import reverse

from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club
from tests.test_wall import open_season, run_async

ACCEPTS = "gzip, deflate, br"


@pytest.mark.django_db
def test_pages_are_sent_gzipped_to_a_browser_that_accepts_it(client):
    user = UserFactory(username="ann")
    game = make_game(player_one=PlayerFactory(name="Ann", user=user), player_two=PlayerFactory(name="Bob"))
    client.force_login(user)
    for url, words in ((reverse("login"), b"Sign in"), (f"/games/{game.pk}/", b"Ann")):
        plain = client.get(url)
        squeezed = client.get(url, headers={"Accept-Encoding": ACCEPTS})
        assert plain.status_code == squeezed.status_code == 200, url
        assert "Content-Encoding" not in plain, url  # a client that takes no compression gets it as it is
        assert squeezed["Content-Encoding"] == "gzip", url
        assert "Accept-Encoding" in squeezed["Vary"]  # a cache in between keeps the two apart
        assert words in gzip.decompress(squeezed.content), url
        assert len(squeezed.content) < len(plain.content), url


@pytest.mark.django_db(transaction=True)
def test_an_event_stream_is_sent_as_it_is_even_to_a_browser_that_accepts_gzip():
    cast = make_club(name="Plain Stream Gin")
    season = open_season(cast)
    url = reverse("league:wall_events", args=[cast.club.slug, season.pk])

    async def first_chunks():
        response = await AsyncClient().get(url, headers={"Accept-Encoding": ACCEPTS})
        chunks = []
        async for chunk in response.streaming_content:
            chunks.append(chunk)
            if b"event: ready" in chunk:
                break
        await response.streaming_content.aclose()
        return response, b"".join(chunks)

    response, body = run_async(first_chunks())
    assert response["Content-Type"] == "text/event-stream"
    assert "Content-Encoding" not in response
    assert body.startswith(b"retry: 1000\n\n") and b"event: ready\n" in body
