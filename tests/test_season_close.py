"""Fixtures with due dates, and seasons that close: locked results, a champion, an archive."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.urls import reverse

from scoring import permissions, services
from scoring.league import services as league
from scoring.league.standings import season_standings
from scoring.models import Fixture, SeasonFormat
from tests.league_setup import gin, make_club, make_user, play, start_and_finish
from tests.test_api_league import api_client

pytestmark = pytest.mark.django_db


def _season(cast, *, starts_on=None, ends_on=None, format=SeasonFormat.SINGLE):
    entrants = [cast.player_of(user) for user in (cast.owner, cast.player, cast.rival)] + [cast.guest]
    return league.season_create(
        club=cast.club,
        name="Spring",
        players=entrants,
        format=format,
        starts_on=starts_on,
        ends_on=ends_on,
        created_by=cast.owner,
    )


def test_due_dates_are_spread_over_the_season_and_the_last_round_is_due_when_it_ends():
    cast = make_club()
    season = _season(cast, starts_on=datetime.date(2026, 3, 1), ends_on=datetime.date(2026, 3, 31))
    due = {f.round: f.due_on for f in season.fixtures.all()}
    assert due == {1: datetime.date(2026, 3, 11), 2: datetime.date(2026, 3, 21), 3: datetime.date(2026, 3, 31)}
    assert league.due_dates(2, None, datetime.date(2026, 5, 1)) == [datetime.date(2026, 5, 1)] * 2
    assert league.due_dates(2, datetime.date(2026, 5, 1), None) == [None, None]


def test_a_rounds_due_date_can_be_changed_but_not_past_the_season_end():
    cast = make_club()
    season = _season(cast, starts_on=datetime.date(2026, 3, 1), ends_on=datetime.date(2026, 3, 31))
    assert league.fixtures_set_due(season=season, round=2, due_on=datetime.date(2026, 3, 25)) == 2
    assert set(Fixture.objects.filter(season=season, round=2).values_list("due_on", flat=True)) == {
        datetime.date(2026, 3, 25)
    }
    with pytest.raises(ValidationError) as refused:
        league.fixtures_set_due(season=season, round=2, due_on=datetime.date(2026, 4, 2))
    assert "due_on" in refused.value.message_dict


def test_closing_names_the_champion_and_locks_every_result():
    cast = make_club()
    season = _season(cast)
    owner, pat, quinn = (cast.player_of(u) for u in (cast.owner, cast.player, cast.rival))
    fixtures = list(season.fixtures.select_related("home", "away").order_by("round", "pk"))
    confirmed = []
    for fixture in fixtures:
        pair = {fixture.home, fixture.away}
        if pat in pair:  # Pat wins every game of hers
            confirmed.append(start_and_finish(fixture, pat, started_by=cast.owner, confirm_by=cast.admin))
    provisional = next(f for f in fixtures if pat not in {f.home, f.away} and quinn in {f.home, f.away})
    open_game = start_and_finish(provisional, quinn, started_by=cast.owner)
    in_play = league.fixture_start(
        fixture=next(f for f in fixtures if {f.home, f.away} == {owner, cast.guest}), started_by=cast.owner
    )

    closed = league.season_close(season=season, closed_by=cast.owner)
    assert closed.closed_at is not None and closed.champion == pat

    game = confirmed[0]
    with pytest.raises(ValidationError, match="closed"), transaction.atomic():  # hand_record has no savepoint
        services.hand_record(game=in_play, recorded_by=cast.owner, **gin(owner))
    with pytest.raises(ValidationError, match="closed"):
        services.hand_edit(hand=game.hands.get(), edited_by=cast.owner, reason="late", **gin(pat, 70))
    with pytest.raises(ValidationError, match="closed"):
        services.hand_remove(hand=game.hands.get(), removed_by=cast.owner)
    with pytest.raises(ValidationError, match="closed"):
        league.game_confirm(game=open_game, confirmed_by=cast.owner)
    with pytest.raises(ValidationError, match="closed"):
        league.game_dispute(game=open_game, disputed_by=cast.player, comment="no")
    remaining = Fixture.objects.filter(season=season, game__isnull=True).first()
    with pytest.raises(ValidationError, match="closed"):
        league.fixture_start(fixture=remaining, started_by=cast.owner)
    with pytest.raises(ValidationError, match="closed"):
        league.season_close(season=season, closed_by=cast.owner)
    # Nobody may change anything, not even the club's owner; pages and API ask the same question.
    game.refresh_from_db()
    assert not permissions.can_edit_game(cast.owner, game)
    assert not permissions.can_confirm(cast.owner, open_game, cast.club)
    assert game.hands.get().defender_deadwood == 80


def test_a_shared_top_names_no_champion():
    cast = make_club()
    season = _season(cast)
    league.season_close(season=season, closed_by=cast.owner)
    season.refresh_from_db()
    assert season.closed_at is not None and season.champion is None


def test_the_api_refuses_writes_to_a_closed_seasons_games_saying_why():
    cast = make_club()
    season = _season(cast)
    pat = cast.player_of(cast.player)
    fixture = season.fixtures.filter(home=pat).first() or season.fixtures.filter(away=pat).first()
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    league.season_close(season=season, closed_by=cast.owner)

    client = api_client(cast.player)
    response = client.post(
        f"/api/games/{game.pk}/hands/", {"ending": "gin", "by": pat.pk, "defender_deadwood": 30}, format="json"
    )
    assert response.status_code == 400  # the season's state, not the person, is why
    assert "season is closed" in response.json()["message"]
    rival = api_client(cast.rival if game.player_two.user_id == cast.rival.pk else cast.owner)
    response = rival.post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert response.status_code == 400
    assert "closed" in response.json()["message"]
    # Reading stays open: closed seasons are an archive.
    assert api_client(cast.player).get(f"/api/games/{game.pk}/").status_code == 200


# --- a closed season is final: one guard, on the page and in the API (issue 29, items 1 and 4) ----------


def _final_season(cast):
    """Spring, closed: Pat won two games by 325 and lost one by 348 (two wins, net 302); Quinn won that
    one (one win, net 348). Ranked by wins Pat is champion; ranked by net points Quinn would be."""
    season = _season(cast)
    owner, pat, quinn = (cast.player_of(u) for u in (cast.owner, cast.player, cast.rival))
    gus = cast.guest

    def fixture(a, b):
        return season.fixtures.get(Q(home=a, away=b) | Q(home=b, away=a))

    start_and_finish(fixture(pat, owner), pat, started_by=cast.admin, defender_deadwood=75, confirm_by=cast.admin)
    start_and_finish(fixture(pat, gus), pat, started_by=cast.admin, defender_deadwood=75, confirm_by=cast.admin)
    start_and_finish(fixture(pat, quinn), quinn, started_by=cast.admin, defender_deadwood=98, confirm_by=cast.admin)
    league.season_close(season=season, closed_by=cast.admin)
    season.refresh_from_db()
    assert season.champion == pat
    return season, pat, quinn


def _top(season) -> str:
    season.refresh_from_db()
    return season_standings(season).rows[0].name


def test_a_closed_seasons_ranking_rule_cannot_reorder_its_final_standings(client):
    cast = make_club()
    season, pat, quinn = _final_season(cast)
    with pytest.raises(ValidationError, match="This season is closed"):
        league.season_set_ranking(season=season, ranking=["net", "wins"])

    client.force_login(cast.owner)
    season_page = client.get(reverse("league:season", args=[cast.club.slug, season.pk])).content.decode()
    assert "Ranking rule and tie-breakers" not in season_page  # not offered once closed
    url = reverse("league:season_ranking", args=[cast.club.slug, season.pk])
    page = client.post(url, {"ranking_1": "net", "ranking_2": "wins", "ranking_3": ""}, follow=True)
    assert "This season is closed" in page.content.decode()
    assert "Ranking rule saved" not in page.content.decode()
    assert _top(season) == pat.name

    response = api_client(cast.owner).patch(f"/api/seasons/{season.pk}/", {"ranking": ["net", "wins"]}, format="json")
    assert response.status_code == 400
    assert response.json()["message"].startswith("This season is closed:")
    rules = {"rules": {"preset": "oklahoma"}}
    response = api_client(cast.owner).patch(f"/api/seasons/{season.pk}/", rules, format="json")
    assert response.status_code == 400 and response.json()["message"].startswith("This season is closed:")
    assert _top(season) == pat.name and season.ranking == ["wins", "net", "head_to_head"]


def test_a_closed_seasons_hands_and_results_are_refused_on_the_page_saying_why(client):
    cast = make_club()
    season, pat, quinn = _final_season(cast)
    game = season.games.get(winner=quinn)
    client.force_login(cast.owner)

    sheet = client.post(reverse("hand_submit", args=[game.pk]), {"ending": "gin", "by": pat.pk}, follow=True)
    assert sheet.status_code == 200 and "This season is closed" in sheet.content.decode()
    undo = client.post(reverse("hand_undo", args=[game.pk]), {"number": "1"}, follow=True)
    assert "This season is closed" in undo.content.decode()
    assert game.hands.count() == 1

    due = client.post(reverse("league:season_due", args=[cast.club.slug, season.pk]),
                      {"round": "1", "due_on": "2026-12-01"}, follow=True)
    assert "This season is closed" in due.content.decode()
    assert not season.fixtures.filter(due_on__isnull=False).exists()


def test_a_closed_seasons_game_is_refused_in_the_api_before_asking_who_writes():
    cast = make_club()
    season, pat, quinn = _final_season(cast)
    game = season.games.get(winner=quinn)
    hand = game.hands.get()
    # Gus's game, which Quinn did not play: the season's state is why, not the person.
    for method, url, body in (
        ("post", f"/api/games/{game.pk}/hands/", {"ending": "gin", "by": pat.pk, "defender_deadwood": 30}),
        ("patch", f"/api/games/{game.pk}/hands/{hand.pk}/", {"defender_deadwood": 90, "reason": "late"}),
        ("delete", f"/api/games/{game.pk}/hands/{hand.pk}/", {"reason": "late"}),
        ("post", f"/api/games/{game.pk}/confirm/", {}),
        ("post", f"/api/games/{game.pk}/dispute/", {"comment": "no"}),
    ):
        response = getattr(api_client(cast.admin), method)(url, body, format="json")
        assert response.status_code == 400, (method, url)
        assert response.json()["message"].startswith("This season is closed:"), (method, url)
    assert game.hands.get().defender_deadwood == 98


def test_confirming_in_a_closed_season_says_it_is_closed_even_to_someone_who_does_not_confirm(client):
    cast = make_club()
    season = _season(cast)
    owner, pat = cast.player_of(cast.owner), cast.player_of(cast.player)
    fixture = season.fixtures.get(Q(home=owner, away=cast.guest) | Q(home=cast.guest, away=owner))
    game = start_and_finish(fixture, owner, started_by=cast.owner)  # provisional
    league.season_close(season=season, closed_by=cast.owner)

    client.force_login(cast.player)  # Pat neither played it nor runs the club
    page = client.post(reverse("league:game_confirm", args=[game.pk]), {"comment": ""})
    assert page.status_code == 400 and "This season is closed" in page.content.decode()
    response = api_client(cast.player).post(f"/api/games/{game.pk}/confirm/", {}, format="json")
    assert response.status_code == 400 and response.json()["message"].startswith("This season is closed:")
    game.refresh_from_db()
    assert game.league_status == "playing" and pat not in (game.player_one, game.player_two)


def test_starting_a_closed_seasons_fixture_as_the_owner_says_the_season_is_closed(client):
    cast = make_club()
    season = _season(cast)
    league.season_close(season=season, closed_by=cast.owner)
    fixture = season.fixtures.first()
    client.force_login(cast.owner)
    page = client.post(reverse("league:fixture_start", args=[cast.club.slug, season.pk, fixture.pk]), follow=True)
    assert page.status_code == 200
    assert "This season is closed" in page.content.decode()
    assert "Only the fixture's players" not in page.content.decode()
    response = api_client(cast.owner).post(f"/api/fixtures/{fixture.pk}/start/", {}, format="json")
    assert response.status_code == 400 and response.json()["message"].startswith("This season is closed:")
    assert not season.games.exists()


def test_a_result_already_confirmed_says_so_before_asking_who_confirms(client):
    cast = make_club()
    season = _season(cast)
    owner = cast.player_of(cast.owner)
    fixture = season.fixtures.get(Q(home=owner, away=cast.guest) | Q(home=cast.guest, away=owner))
    game = start_and_finish(fixture, owner, started_by=cast.owner, confirm_by=cast.admin)
    client.force_login(cast.player)  # not a player of the game, not an organiser
    page = client.post(reverse("league:game_confirm", args=[game.pk]), {"comment": ""})
    assert page.status_code == 400 and "already confirmed" in page.content.decode()
    response = api_client(cast.player).post(f"/api/games/{game.pk}/dispute/", {"comment": "no"}, format="json")
    assert response.status_code == 400 and "provisional" in response.json()["message"]


# --- closing says what it leaves behind (issue 29, item 5) ----------------------------------------------


def _half_played(cast):
    """Spring: one result confirmed, one awaiting confirmation, one game in play, three fixtures not played."""
    season = _season(cast)
    owner, pat, quinn = (cast.player_of(u) for u in (cast.owner, cast.player, cast.rival))

    def fixture(a, b):
        return season.fixtures.get(Q(home=a, away=b) | Q(home=b, away=a))

    start_and_finish(fixture(pat, quinn), pat, started_by=cast.player, confirm_by=cast.rival)
    provisional = start_and_finish(fixture(pat, owner), owner, started_by=cast.owner)
    in_play = league.fixture_start(fixture=fixture(quinn, cast.guest), started_by=cast.rival)
    return season, provisional, in_play


def test_before_closing_the_organiser_sees_what_closing_leaves_behind_and_what_it_does(client):
    cast = make_club()
    season, provisional, in_play = _half_played(cast)
    url = reverse("league:season_close", args=[cast.club.slug, season.pk])
    client.force_login(cast.owner)
    season_page = client.get(reverse("league:season", args=[cast.club.slug, season.pk])).content.decode()
    assert f'href="{url}"' in season_page  # the season page leads to the warning, not straight to closing

    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Fixtures not played (3)" in text and "marks them <strong>not played</strong>" in text
    assert "Results not yet confirmed (1)" in text and "leaves them out of the final standings" in text
    assert f'href="{reverse("league:game", args=[provisional.pk])}"' in text  # confirm it there, now
    assert "Games in play (1)" in text and "ends them <strong>unfinished</strong>" in text
    assert "the champion is <strong>" + cast.player_of(cast.player).name in text
    season.refresh_from_db()
    assert season.closed_at is None  # looking closes nothing

    client.force_login(cast.player)
    assert client.get(url).status_code == 403


def test_after_closing_the_sheets_say_season_closed_and_nothing_waits_for_confirmation(client):
    cast = make_club()
    season, provisional, in_play = _half_played(cast)
    league.season_close(season=season, closed_by=cast.owner)
    client.force_login(cast.rival)  # Quinn: playing the game in play, asked to confirm nothing now

    sheet = client.get(reverse("game", args=[in_play.pk])).content.decode()
    assert "Season closed" in sheet and "closed unfinished" in sheet
    assert 'id="record"' not in sheet and "Provisional" not in sheet
    client.force_login(cast.player)
    sheet = client.get(reverse("game", args=[provisional.pk])).content.decode()
    assert "Season closed" in sheet and "left out of the final standings" in sheet
    assert "waiting for the other player" not in sheet and "confirm or dispute" not in sheet

    page = client.get(reverse("league:season", args=[cast.club.slug, season.pk])).content.decode()
    assert "awaiting confirmation" not in page and "Left out of the final standings" in page
    page = client.get(reverse("league:season", args=[cast.club.slug, season.pk]) + f"?round={in_play.fixture.round}")
    assert "closed unfinished" in page.content.decode()


def test_recording_in_a_closed_open_play_season_says_it_is_closed_before_who_may(client):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Open", players=[pat, quinn], format=SeasonFormat.OPEN)
    league.season_close(season=season, closed_by=cast.owner)
    client.force_login(cast.outsider)  # not a member of this public club
    page = client.post(
        reverse("league:open_game_start", args=[cast.club.slug, season.pk]),
        {"player_one": pat.pk, "player_two": quinn.pk},
        follow=True,
    )
    assert page.status_code == 200 and "This season is closed" in page.content.decode()
    body = {"player_one": pat.pk, "player_two": quinn.pk}
    response = api_client(cast.outsider).post(f"/api/seasons/{season.pk}/games/", body, format="json")
    assert response.status_code == 400 and response.json()["message"].startswith("This season is closed:")
    assert not season.games.exists()


def test_deleting_a_closed_seasons_game_says_the_season_is_closed():
    cast = make_club()
    season, pat, quinn = _final_season(cast)
    game = season.games.get(winner=quinn)
    staff = make_user("staff")
    staff.is_staff = True
    staff.save()
    response = api_client(staff).delete(f"/api/games/{game.pk}/")
    assert response.status_code == 400 and response.json()["message"].startswith("This season is closed:")
    with pytest.raises(ValidationError, match="This season is closed"):
        services.game_delete(game=game)
    assert season.games.filter(pk=game.pk).exists()
