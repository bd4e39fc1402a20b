"""The season page's standings are cached, and every change of a result shows on the page at once."""

import re

import pytest
from django.urls import reverse

from scoring import services
from scoring.league import services as league
from scoring.models import SeasonFormat
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db


def _row(page: str, name: str) -> str:
    return page.split(f'<tr data-player="{name}">')[1].split("</tr>")[0]


def _won(page: str, name: str) -> str:
    # The cell names its column for a phone's card (data-label), so only its class is matched.
    return re.search(r'<td class="num won"[^>]*>(.*?)</td>', _row(page, name)).group(1)


@pytest.fixture
def season_page(client):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn, cast.guest], format=SeasonFormat.OPEN
    )
    url = reverse("league:season", args=[cast.club.slug, season.pk])
    return cast, season, pat, quinn, lambda: client.get(url).content.decode()


def test_a_confirmation_shows_at_once(season_page):
    cast, season, pat, quinn, page = season_page
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.admin)
    assert _won(page(), pat.name) == "0"  # cached now
    play(game, pat)
    finished = page()
    assert _won(finished, pat.name) == "0"  # not confirmed: not counted ...
    assert "awaiting confirmation" in finished  # ... but listed as provisional straight away
    league.game_confirm(game=game, confirmed_by=cast.admin)
    confirmed = page()
    assert _won(confirmed, pat.name) == "1"
    assert _won(confirmed, quinn.name) == "0"
    assert "awaiting confirmation" not in confirmed


def test_a_correction_of_a_confirmed_game_shows_at_once(season_page):
    cast, season, pat, quinn, page = season_page
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.admin)
    play(game, pat)
    league.game_confirm(game=game, confirmed_by=cast.admin)
    before = page()
    assert (_won(before, pat.name), _won(before, quinn.name)) == ("1", "0")
    # The admin finds the gin was Quinn's: the result turns round.
    services.hand_edit(
        hand=game.hands.get(), ending="gin", by=quinn, defender_deadwood=80, edited_by=cast.admin, reason="Quinn's gin"
    )
    after = page()
    assert (_won(after, pat.name), _won(after, quinn.name)) == ("0", "1")
    assert after.index(f'data-player="{quinn.name}"') < after.index(f'data-player="{pat.name}"')  # heads the table


def test_a_dispute_shows_at_once(season_page, client):
    cast, season, pat, quinn, page = season_page
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.admin)
    play(game, pat)
    assert "awaiting confirmation" in page()
    league.game_dispute(game=game, disputed_by=cast.rival, comment="That was a knock, not gin.")
    disputed = page()
    assert "awaiting confirmation" not in disputed
    assert ">disputed</span>" in disputed


def test_confirming_and_disputing_tell_the_wall_screens(season_page, monkeypatch):
    cast, season, pat, quinn, _page = season_page
    told = []
    notify_change = league.notify_change  # still called: a new game's season is written with its count

    def counted(*, game, save=()):
        told.append(game.pk)
        notify_change(game=game, save=save)

    monkeypatch.setattr(league, "notify_change", counted)
    first = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.admin)
    second = league.open_game_start(season=season, player_one=quinn, player_two=cast.guest, started_by=cast.admin)
    play(first, pat)
    play(second, quinn)
    told.clear()
    league.game_confirm(game=first, confirmed_by=cast.admin)
    league.game_dispute(game=second, disputed_by=cast.owner, comment="Wrong deadwood.")
    assert told == [first.pk, second.pk]
