"""A game holds at most MAX_HANDS hands: no real sitting comes near, and a sheet of 100,000 hands made
every later view of its game slow and huge. Refused on every way in, naming the first hand over."""

import io
import json
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from players.tokens import token_create
from scoring import services
from scoring.engine.record import evaluate, parse_record
from scoring.engine.score import MAX_HANDS
from scoring.models import Game, Hand
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def dead_hands(count: int) -> dict:
    return {"players": ["Ann", "Bob"], "first_dealer": "Ann", "hands": [{"ending": "dead"}] * count}


@pytest.fixture
def ann():
    return UserFactory(username="ann")


@pytest.fixture
def full_game(ann):
    """A game of guests holding exactly MAX_HANDS dead hands (still open: dead hands score nothing)."""
    return services.game_import(record=parse_record(dead_hands(MAX_HANDS)), created_by=ann)


def api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


def test_the_cap_is_above_any_real_sitting_and_holds_a_full_game(full_game):
    assert MAX_HANDS == 1000
    assert full_game.hand_count == MAX_HANDS and not full_game.over


def test_importing_a_record_over_the_cap_is_refused_naming_the_hand(ann):
    response = api_client(ann).post("/api/games/import/", dead_hands(100_000), format="json")
    assert response.status_code == 400
    assert response.json() == {
        "error": {"hand": MAX_HANDS + 1, "field": "hands"},
        "message": f"hand {MAX_HANDS + 1}: a game holds at most {MAX_HANDS} hands",
    }
    assert not Game.objects.exists() and not Hand.objects.exists()
    assert evaluate(dead_hands(MAX_HANDS + 1))["error"] == {"hand": MAX_HANDS + 1, "field": "hands"}


def test_import_games_refuses_a_file_over_the_cap(tmp_path):
    path = tmp_path / "long.json"
    path.write_text(json.dumps(dead_hands(MAX_HANDS + 1)))
    said = io.StringIO()
    with pytest.raises(CommandError, match="nothing of them was stored"):
        call_command("import_games", str(path), stderr=said)
    assert f"hand {MAX_HANDS + 1}: a game holds at most {MAX_HANDS} hands" in said.getvalue()
    assert not Game.objects.exists()


def test_recording_a_hand_past_the_cap_through_the_api_is_refused(full_game, ann):
    response = api_client(ann).post(
        f"/api/games/{full_game.pk}/hands/", {"ending": "dead", "number": MAX_HANDS + 1}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "field": "hands",
        "message": f"hand {MAX_HANDS + 1}: a game holds at most {MAX_HANDS} hands",
        "hand": MAX_HANDS + 1,
    }
    assert Hand.objects.filter(game=full_game).count() == MAX_HANDS


def test_recording_a_hand_past_the_cap_on_the_scoresheet_is_refused(full_game, ann):
    client = Client()
    client.force_login(ann)
    response = client.post(
        reverse("hand_submit", args=[full_game.pk]),
        {"action": "save", "ending": "dead", "expected_number": MAX_HANDS + 1},
    )
    assert response.status_code == 422
    errors = re.findall(r'<p class="error" role="alert">(.*?)</p>', response.content.decode())
    assert any(f"a game holds at most {MAX_HANDS} hands" in error for error in errors), errors
    assert Hand.objects.filter(game=full_game).count() == MAX_HANDS


# --- a long sheet is sent in parts ------------------------------------------------------------------


def test_the_scoresheet_of_a_long_game_shows_its_latest_hands_and_links_to_all(full_game):
    url = reverse("game", args=[full_game.pk])
    page = Client().get(url).content.decode()
    numbers = [int(number) for number in re.findall(r'<tr class="dead"><td class="num">(\d+)</td>', page)]
    assert numbers == list(range(MAX_HANDS - 99, MAX_HANDS + 1))
    assert f"The last 100 of {MAX_HANDS} hands." in page
    assert f'href="{url}?hands=all#hands">Show all {MAX_HANDS} hands</a>' in page
    whole = Client().get(url, {"hands": "all"}).content.decode()
    assert len(re.findall(r'<tr class="dead">', whole)) == MAX_HANDS and "The last 100" not in whole


def test_the_hands_shown_keep_the_running_totals_of_the_hands_before_them(ann):
    record = dead_hands(150)
    knock = {"ending": "knock", "by": "Ann", "knocker_deadwood": 1, "defender_deadwood": 10}
    record["hands"] = [knock, *record["hands"]]
    game = services.game_import(record=parse_record(record), created_by=ann)
    page = Client().get(reverse("game", args=[game.pk])).content.decode()
    first_shown = re.search(r'<tr class="dead"><td class="num">52</td>.*?</tr>', page).group(0)
    assert re.findall(r'<td class="num run">(\d+)</td>', first_shown) == ["9", "0"]  # Ann's knock in hand 1
    assert '<td class="num">1</td>' not in page.split('class="hands"', 1)[1]


def test_a_short_sheet_shows_every_hand_without_a_link(ann):
    game = services.game_import(record=parse_record(dead_hands(100)), created_by=ann)
    page = Client().get(reverse("game", args=[game.pk])).content.decode()
    assert len(re.findall(r'<tr class="dead">', page)) == 100 and "Show all" not in page


def test_the_api_pages_a_games_hands(full_game):
    first = APIClient().get(f"/api/games/{full_game.pk}/hands/").json()
    assert first["count"] == MAX_HANDS and [hand["number"] for hand in first["results"]] == list(range(1, 51))
    assert first["next"].endswith(f"/api/games/{full_game.pk}/hands/?page=2")
    last = APIClient().get(f"/api/games/{full_game.pk}/hands/", {"page": 5, "page_size": 200}).json()
    assert [hand["number"] for hand in last["results"]] == list(range(801, 1001)) and last["next"] is None
    assert APIClient().get("/api/games/999999/hands/").status_code == 404
