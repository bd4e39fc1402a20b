"""A Swiss night (issue 28): opening the night, check-in, pairing and publishing rounds."""

import datetime
import re

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.urls import resolve, reverse
from rest_framework.test import APIClient

from players import clubs
from players.models import Player
from scoring import changes, services
from scoring.league import night
from scoring.league import services as league
from scoring.league.standings import current_standings, season_standings
from scoring.models import Fixture, Game, Season, SeasonFormat, SwissEntry, SwissRound
from tests.factories import PlayerFactory
from tests.league_setup import make_club, start_and_finish
from tests.test_api_league import api_client

pytestmark = pytest.mark.django_db


def _night(cast, **kwargs):
    kwargs.setdefault("players", [])
    return league.season_create(
        club=cast.club, name="Friday night", format=SeasonFormat.SWISS, created_by=cast.owner, **kwargs
    )


# --- 1. opening the night -----------------------------------------------------------------------------


def test_a_swiss_night_opens_with_nobody_checked_in_yet_its_rounds_and_round_length():
    cast = make_club()
    night = _night(cast, swiss_rounds=4, round_minutes=40, rules={"preset": "standard", "target": 150})
    night.refresh_from_db()
    assert (night.format, night.swiss_rounds, night.round_minutes) == ("swiss", 4, 40)
    assert night.rules["target"] == 150
    assert not night.fixtures.exists()
    open_ended = _night(cast)
    assert (open_ended.swiss_rounds, open_ended.round_minutes) == (None, None)  # as many as started, to the target


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"swiss_rounds": 0}, "swiss_rounds"),
        ({"swiss_rounds": 40}, "swiss_rounds"),
        ({"round_minutes": 2}, "round_minutes"),
    ],
)
def test_a_swiss_nights_bad_rounds_or_length_is_refused_naming_the_field_and_nothing_is_saved(kwargs, field):
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        _night(cast, **kwargs)
    assert field in refused.value.message_dict
    assert not Season.objects.exists()


def test_a_round_robin_still_needs_two_players():
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        league.season_create(club=cast.club, name="Spring", players=[cast.guest], created_by=cast.owner)
    assert "players" in refused.value.message_dict


def test_the_new_season_page_opens_a_timed_swiss_night(client):
    cast = make_club()
    client.force_login(cast.owner)
    page = client.get(reverse("league:season_new", args=[cast.club.slug]))
    assert b"Swiss night" in page.content and b"Round length (minutes)" in page.content
    answer = client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {
            "name": "Friday night",
            "format": "swiss",
            "preset": "standard",
            "overrides": "target = 150",
            "swiss_rounds": "5",
            "round_minutes": "35",
            "ranking_1": "wins",
        },
    )
    night = Season.objects.get()
    assert answer.status_code == 302
    assert (night.format, night.swiss_rounds, night.round_minutes, night.rules["target"]) == ("swiss", 5, 35, 150)


def test_the_new_season_page_checks_in_the_players_ticked_and_gives_a_night_its_own_tie_breakers(client):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    client.force_login(cast.owner)
    client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Friday night", "format": "swiss", "preset": "standard", "players": [pat.pk, quinn.pk],
         "ranking_1": "wins", "ranking_2": "net", "ranking_3": "head_to_head"},  # the form as it comes
    )  # fmt: skip
    night_ = Season.objects.get()
    assert night_.ranking == ["match_points", "buchholz", "net", "head_to_head", "gins"]
    assert set(night_.swiss_entries.filter(present=True).values_list("player", flat=True)) == {pat.pk, quinn.pk}
    page = client.get(reverse("league:night", args=[cast.club.slug, night_.pk])).content.decode()
    assert "Who is here (2)" in page
    draft = night.round_pair(season=night_, paired_by=cast.owner)  # the two ticked are paired at once
    assert {player for _, one, two in draft.pairing["pairings"] for player in (one, two)} == {pat.pk, quinn.pk}


def test_the_api_opens_a_swiss_night_and_names_a_bad_round_length():
    cast = make_club()
    client = api_client(cast.owner)
    url = f"/api/clubs/{cast.club.pk}/seasons/"
    body = {"name": "Friday", "players": [], "format": "swiss", "round_minutes": 1000}
    refused = client.post(url, body, format="json")
    assert refused.status_code == 400 and "round_minutes" in str(refused.json())
    made = client.post(url, {"name": "Friday", "players": [], "format": "swiss", "swiss_rounds": 3}, format="json")
    assert made.status_code == 201, made.json()
    assert (made.json()["format"], made.json()["swiss_rounds"], made.json()["round_minutes"]) == ("swiss", 3, None)


# --- 2. check-in ----------------------------------------------------------------------------------------


def test_the_organiser_checks_members_and_guests_in_and_the_night_page_lists_who_is_here(client):
    cast = make_club()
    night_ = _night(cast)
    pat = cast.player_of(cast.player)
    client.force_login(cast.owner)
    url = reverse("league:night_check_in", args=[cast.club.slug, night_.pk])
    for player in (pat, cast.guest):
        assert client.post(url, {"player": player.pk, "here": "1"}).status_code == 302
    page = client.get(reverse("league:night", args=[cast.club.slug, night_.pk])).content.decode()
    assert "Who is here (2)" in page
    assert set(night_.swiss_entries.filter(present=True).values_list("player__name", flat=True)) == {
        pat.name,
        cast.guest.name,
    }
    assert set(night_.players.all()) == {pat, cast.guest}


def test_a_player_checks_themselves_in_from_the_club_page_link_but_nobody_else(client):
    cast = make_club()
    night_ = _night(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    client.force_login(cast.player)
    club_page = client.get(reverse("league:club", args=[cast.club.slug])).content.decode()
    night_url = reverse("league:night", args=[cast.club.slug, night_.pk])
    assert night_url in club_page
    assert "I'm here: check me in" in client.get(night_url).content.decode()
    url = reverse("league:night_check_in", args=[cast.club.slug, night_.pk])
    assert client.post(url, {"player": pat.pk, "here": "1"}).status_code == 302
    assert client.post(url, {"player": quinn.pk, "here": "1"}).status_code == 403
    assert list(night_.swiss_entries.values_list("player", flat=True)) == [pat.pk]


def test_a_player_who_checks_out_before_playing_is_no_longer_in_the_field():
    cast = make_club()
    night_ = _night(cast)
    pat = cast.player_of(cast.player)
    night.check_in(season=night_, player=pat, checked_in_by=cast.player)
    entry = night.check_out(season=night_, player=pat, checked_out_by=cast.player)
    assert (entry.present, entry.dropped_after_round) == (False, None)
    assert not night_.players.exists()


def test_check_in_is_refused_for_an_outsider_and_on_a_season_that_is_not_a_swiss_night():
    cast = make_club()
    night_ = _night(cast)
    outsider = PlayerFactory(name="Olga")
    with pytest.raises(ValidationError) as refused:
        night.check_in(season=night_, player=outsider, checked_in_by=cast.owner)
    assert "player" in refused.value.message_dict
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    spring = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    with pytest.raises(ValidationError) as refused:
        night.check_in(season=spring, player=pat, checked_in_by=cast.owner)
    assert "season" in refused.value.message_dict
    assert not SwissEntry.objects.exists()


def test_the_api_checks_a_player_in_with_a_fixed_table_and_refuses_someone_else_s_phone():
    cast = make_club()
    night_ = _night(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    url = f"/api/seasons/{night_.pk}/check-in/"
    made = api_client(cast.admin).post(url, {"player": pat.pk, "fixed_table": 1}, format="json")
    assert made.status_code == 200, made.json()
    assert made.json() == {
        "player": {"id": pat.pk, "name": pat.name},
        "present": True,
        "dropped_after_round": None,
        "fixed_table": 1,
    }
    refused = api_client(cast.player).post(url, {"player": quinn.pk}, format="json")
    assert refused.status_code == 403
    out = api_client(cast.player).post(url, {"player": pat.pk, "here": False}, format="json")
    assert out.status_code == 200 and out.json()["present"] is False


# --- 3. pairing, swapping and publishing a round --------------------------------------------------------


def _checked_in_night(cast, count=5, **kwargs):
    """A night with the cast's four members and ``count - 4`` more guests checked in."""
    night_ = _night(cast, **kwargs)
    players = [cast.player_of(user) for user in (cast.owner, cast.admin, cast.player, cast.rival)] + [cast.guest]
    for number in range(count - len(players)):
        players.append(clubs.member_add_guest(club=cast.club, name=f"Guest {number}", added_by=cast.owner).player)
    for player in players[:count]:
        night.check_in(season=night_, player=player, checked_in_by=cast.owner)
    return night_, players[:count]


def _play_round(night_, winner="home"):
    """Every game of the night not yet started is played (``winner`` side wins by a gin) and confirmed."""
    for fixture in Fixture.objects.filter(season=night_, game__isnull=True).select_related("home", "away"):
        game = start_and_finish(fixture, getattr(fixture, winner), started_by=None)
        league.game_confirm(game=game, confirmed_by=None)


def test_pairing_keeps_a_draft_with_tables_and_a_bye_and_publishing_creates_the_fixtures():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=5)
    draft = night.round_pair(season=night_, paired_by=cast.owner)
    assert draft.number == 1 and not draft.published
    assert not Fixture.objects.exists()  # nobody sees it before it is published
    tables = sorted(table for table, _, _ in draft.pairing["pairings"])
    assert tables == [1, 2]
    seated = [p for _, one, two in draft.pairing["pairings"] for p in (one, two)] + [draft.pairing["bye"]]
    assert sorted(seated) == sorted(p.pk for p in players)
    published = night.round_publish(season=night_, published_by=cast.owner)
    assert published.published and published.started_at is not None
    assert published.bye_id == draft.pairing["bye"]
    fixtures = list(Fixture.objects.filter(season=night_).order_by("table"))
    assert [(f.round, f.table, f.home_id, f.away_id) for f in fixtures] == [
        (1, table, one, two) for table, one, two in sorted(draft.pairing["pairings"])
    ]


def test_the_next_round_waits_for_every_result_then_pairs_without_a_rematch_and_a_new_bye():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=5)
    night.round_pair(season=night_, paired_by=cast.owner)
    first = night.round_publish(season=night_, published_by=cast.owner)
    with pytest.raises(ValidationError) as refused:
        night.round_pair(season=night_, paired_by=cast.owner)
    assert "round" in refused.value.message_dict
    _play_round(night_)
    second = night.round_pair(season=night_, paired_by=cast.owner)
    met = {frozenset((f.home_id, f.away_id)) for f in Fixture.objects.filter(season=night_)}
    assert not {frozenset((one, two)) for _, one, two in second.pairing["pairings"]} & met
    assert second.pairing["bye"] != first.bye_id


def test_a_swap_is_said_to_create_a_rematch_and_the_draft_shows_it():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=4)
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    _play_round(night_)
    draft = night.round_pair(season=night_, paired_by=cast.owner)
    (_, a, b), (_, c, d) = draft.pairing["pairings"]
    round_one = {frozenset((f.home_id, f.away_id)) for f in Fixture.objects.filter(season=night_)}
    # swapping b and c seats a with c and b with d: a rematch exactly if one of those pairs met in round 1
    expected = frozenset((a, c)) in round_one or frozenset((b, d)) in round_one
    by_id = {p.pk: p for p in players}
    assert night.swap_creates_rematch(season=night_, one=by_id[b], two=by_id[c]) is expected
    swapped = night.round_swap(season=night_, one=by_id[b], two=by_id[c], swapped_by=cast.owner)
    assert bool(swapped.pairing["rematches"]) is expected
    assert sorted(frozenset((one, two)) for _, one, two in swapped.pairing["pairings"]) == sorted(
        [frozenset((a, c)), frozenset((b, d))]
    )


def test_publishing_is_refused_when_who_is_here_changed_since_the_pairing():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=4)
    night.round_pair(season=night_, paired_by=cast.owner)
    late = clubs.member_add_guest(club=cast.club, name="Late Larry", added_by=cast.owner).player
    night.check_in(season=night_, player=late, checked_in_by=cast.owner)
    with pytest.raises(ValidationError) as refused:
        night.round_publish(season=night_, published_by=cast.owner)
    assert "pair it again" in refused.value.message_dict["round"][0]
    assert not Fixture.objects.exists()
    night.round_pair(season=night_, paired_by=cast.owner)  # the late arrival is in the new pairing
    published = night.round_publish(season=night_, published_by=cast.owner)
    assert late.pk in {
        published.bye_id,
        *Fixture.objects.values_list("home_id", flat=True),
        *Fixture.objects.values_list("away_id", flat=True),
    }


def test_a_player_who_drops_out_keeps_their_game_and_is_not_paired_again():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=4)
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    _play_round(night_)
    leaver = players[0]
    entry = night.check_out(season=night_, player=leaver, checked_out_by=cast.owner)
    assert entry.dropped_after_round == 1
    draft = night.round_pair(season=night_, paired_by=cast.owner)
    assert leaver.pk not in {p for _, one, two in draft.pairing["pairings"] for p in (one, two)}
    assert leaver.pk != draft.pairing["bye"]
    assert (
        Fixture.objects.filter(season=night_, round=1).filter(home=leaver).exists()
        or Fixture.objects.filter(season=night_, round=1, away=leaver).exists()
    )


def test_the_organiser_pairs_swaps_and_publishes_on_the_night_page(client):
    cast = make_club()
    night_, players = _checked_in_night(cast, count=5)
    client.force_login(cast.owner)
    base = [cast.club.slug, night_.pk]
    client.post(reverse("league:night_pair", args=base), {"first_round": "random"})
    draft = SwissRound.objects.get()
    assert draft.first_round == "random"
    page = client.get(reverse("league:night", args=base)).content.decode()
    assert "Round 1: pairing to check" in page and "bye (1 match point)" in page
    assert "<title>Friday night · Thursday Gin · GinLeague</title>" in page
    bye = draft.pairing["bye"]
    _, one, _ = draft.pairing["pairings"][0]
    client.post(reverse("league:night_swap", args=base), {"one": one, "two": bye})
    draft.refresh_from_db()
    assert draft.pairing["bye"] == one  # round 1: nobody has met, so no rematch
    client.post(reverse("league:night_publish", args=base))
    page = client.get(reverse("league:night", args=base)).content.decode()
    assert "pairing to check" not in page and "Table 1" in page and "Table 2" in page
    assert Fixture.objects.filter(season=night_).count() == 2


def test_only_an_organiser_pairs_a_round(client):
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4)
    client.force_login(cast.player)
    assert client.post(reverse("league:night_pair", args=[cast.club.slug, night_.pk])).status_code == 403
    assert not SwissRound.objects.exists()


def test_the_api_pairs_swaps_and_publishes_a_round_and_only_for_an_organiser():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=5)
    base = f"/api/seasons/{night_.pk}/rounds"
    assert api_client(cast.player).post(f"{base}/pair/", {}, format="json").status_code == 403
    admin = api_client(cast.admin)
    bad = admin.post(f"{base}/pair/", {"first_round": "alphabetical"}, format="json")
    assert bad.status_code == 400 and "first_round" in str(bad.json())
    paired = admin.post(f"{base}/pair/", {"first_round": "rating"}, format="json").json()
    assert paired["number"] == 1 and paired["published"] is False and [p["table"] for p in paired["pairings"]] == [1, 2]
    one, bye = paired["pairings"][1]["two"], paired["bye"]
    swapped = admin.post(f"{base}/swap/", {"one": one, "two": bye}, format="json").json()
    assert swapped["bye"] == one and swapped["swap_created_rematch"] is False
    published = admin.post(f"{base}/publish/", {}, format="json")
    assert published.status_code == 200 and published.json()["published"] is True
    again = admin.post(f"{base}/publish/", {}, format="json")
    assert again.status_code == 400 and "pair one first" in str(again.json())
    fixtures = admin.get(f"/api/fixtures/?season={night_.pk}").json()["results"]
    assert sorted(f["table"] for f in fixtures) == [1, 2]


def test_the_schema_documents_the_swiss_night_operations():
    schema = APIClient().get("/api/schema/").content.decode()
    for path in ("/check-in/", "/rounds/pair/", "/rounds/swap/", "/rounds/publish/"):
        assert path in schema


# --- 4. playing a timed round ----------------------------------------------------------------------------


def test_time_for_the_room_is_called_on_every_game_of_the_round_still_in_play():
    cast = make_club()
    night_, players = _checked_in_night(cast, count=6, round_minutes=30)
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    first, second, third = Fixture.objects.filter(season=night_).order_by("table")
    finished = start_and_finish(first, first.home, started_by=None)  # over before time: keeps its result
    in_play = league.fixture_start(fixture=second, started_by=None)
    called = night.round_call_time(season=night_, called_by=cast.owner)
    assert [game.pk for game in called] == [in_play.pk]
    in_play.refresh_from_db()
    finished.refresh_from_db()
    assert in_play.time_called_after == 0 and finished.time_called_after is None
    assert not Game.objects.filter(fixture=third).exists()  # a game not started is not called (nor started)
    assert SwissRound.objects.get().time_called_at is not None


def test_time_is_not_called_on_a_night_played_to_the_target():
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4)
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    with pytest.raises(ValidationError) as refused:
        night.round_call_time(season=night_, called_by=cast.owner)
    assert "to the target" in refused.value.message_dict["round"][0]


def test_a_timed_round_shows_its_deadline_from_the_server_and_the_organiser_s_time_button(client):
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4, round_minutes=30)
    night.round_pair(season=night_, paired_by=cast.owner)
    round_ = night.round_publish(season=night_, published_by=cast.owner)
    client.force_login(cast.owner)
    base = [cast.club.slug, night_.pk]
    page = client.get(reverse("league:night", args=base)).content.decode()
    deadline = round_.started_at + datetime.timedelta(minutes=30)
    assert f'data-deadline="{int(deadline.timestamp())}"' in page
    assert "Time (for the room)" in page
    fixture = Fixture.objects.filter(season=night_).first()
    league.fixture_start(fixture=fixture, started_by=None)
    client.post(reverse("league:night_time", args=base))
    assert Game.objects.get(fixture=fixture).time_called_after == 0
    assert "Time has been called" in client.get(reverse("league:night", args=base)).content.decode()


def test_the_api_calls_time_for_the_room_and_gives_a_timed_rounds_deadline():
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4, round_minutes=25)
    admin = api_client(cast.admin)
    admin.post(f"/api/seasons/{night_.pk}/rounds/pair/", {}, format="json")
    published = admin.post(f"/api/seasons/{night_.pk}/rounds/publish/", {}, format="json").json()
    assert published["ends_at"] is not None
    fixture = Fixture.objects.filter(season=night_).first()
    game = league.fixture_start(fixture=fixture, started_by=None)
    assert api_client(cast.player).post(f"/api/seasons/{night_.pk}/rounds/time/", {}, format="json").status_code == 403
    called = admin.post(f"/api/seasons/{night_.pk}/rounds/time/", {}, format="json")
    assert called.status_code == 200 and called.json() == {"games": [game.pk]}


# --- 5. standings -------------------------------------------------------------------------------------------


def _hand_built_night(cast, **kwargs):
    """Five players, two rounds, results fixed by hand: round 1 Ann beat Bob, Cy beat Di, Ed had the
    bye; round 2 Ann beat Cy, Ed beat Bob, Di had the bye."""
    night_ = _night(cast, **kwargs)
    names = ["Ann", "Bob", "Cy", "Di", "Ed"]
    by = {name: clubs.member_add_guest(club=cast.club, name=name, added_by=cast.owner).player for name in names}
    for player in by.values():
        night.check_in(season=night_, player=player, checked_in_by=cast.owner)
    for number, games, bye in ((1, [("Ann", "Bob"), ("Cy", "Di")], "Ed"), (2, [("Ann", "Cy"), ("Ed", "Bob")], "Di")):
        SwissRound.objects.create(
            season=night_,
            number=number,
            published=True,
            bye=by[bye],
            pairing={"pairings": [], "bye": by[bye].pk, "rematches": [], "unmet_table_wishes": [], "order": []},
        )
        for table, (winner, loser) in enumerate(games, 1):
            fixture = Fixture.objects.create(season=night_, round=number, table=table, home=by[winner], away=by[loser])
            game = start_and_finish(fixture, by[winner], started_by=None)
            league.game_confirm(game=game, confirmed_by=None)
    return night_


def test_swiss_standings_rank_by_match_points_then_buchholz_computed_by_hand():
    cast = make_club()
    night_ = _hand_built_night(cast)
    rows = season_standings(night_).rows
    # match points: Ann 2, Ed 2 (bye + win), Cy 1, Di 1 (bye), Bob 0
    # Buchholz (opponents' match points, a bye adds nothing): Ann 0+1=1, Ed 0, Cy 1+2=3, Di 1, Bob 2+2=4
    assert [(r.name, r.match_points, r.buchholz, r.byes, r.ahead_by_words) for r in rows] == [
        ("Ann", 2, 1, 0, "on Buchholz"),
        ("Ed", 2, 0, 1, "on match points"),
        ("Cy", 1, 3, 0, "on Buchholz"),
        ("Di", 1, 1, 1, "on match points"),
        ("Bob", 0, 4, 0, ""),
    ]
    assert night_.ranking == ["match_points", "buchholz", "net", "head_to_head", "gins"]


def test_a_night_counting_3_for_a_win_gives_3_for_a_win_and_a_bye_and_the_same_order():
    cast = make_club()
    night_ = _hand_built_night(cast, points_per_win=3)
    rows = season_standings(night_).rows
    # the hand-worked figures above, each match point worth 3: the order and what decided it stay
    assert [(r.name, r.match_points, r.buchholz, r.ahead_by_words) for r in rows] == [
        ("Ann", 6, 3, "on Buchholz"),
        ("Ed", 6, 0, "on match points"),
        ("Cy", 3, 9, "on Buchholz"),
        ("Di", 3, 3, "on match points"),
        ("Bob", 0, 12, ""),
    ]


def test_match_points_for_a_win_are_1_or_3_on_the_page_and_in_the_api_and_nothing_else(client):
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        _night(cast, points_per_win=2)
    assert "points_per_win" in refused.value.message_dict and not Season.objects.exists()
    body = {"name": "Friday", "players": [], "format": "swiss", "points_per_win": 3}
    made = api_client(cast.owner).post(f"/api/clubs/{cast.club.pk}/seasons/", body, format="json")
    assert made.status_code == 201 and made.json()["points_per_win"] == 3
    client.force_login(cast.owner)
    client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Saturday night", "format": "swiss", "preset": "standard", "points_per_win": "3", "ranking_1": "wins"},
    )
    saturday = Season.objects.get(name="Saturday night")
    assert saturday.points_per_win == 3
    page = client.get(reverse("league:night", args=[cast.club.slug, saturday.pk]))
    assert "a win is worth 3 match points" in page.content.decode()


def test_the_season_page_and_the_api_show_match_points_and_buchholz(client):
    cast = make_club()
    night_ = _hand_built_night(cast)
    page = client.get(reverse("league:season", args=[cast.club.slug, night_.pk])).content.decode()
    assert "Bhz" in page and "on Buchholz" in page
    rows = APIClient().get(f"/api/seasons/{night_.pk}/standings/").json()["rows"]
    assert [(r["player"]["name"], r["match_points"], r["buchholz"]) for r in rows[:2]] == [("Ann", 2, 1), ("Ed", 2, 0)]


def test_match_points_and_buchholz_rank_a_swiss_night_only():
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    with pytest.raises(ValidationError) as refused:
        league.season_create(
            club=cast.club, name="Spring", players=[pat, quinn], ranking=["buchholz"], created_by=cast.owner
        )
    assert "Swiss night only" in refused.value.message_dict["ranking"][0]


def test_a_bye_counts_in_the_standings_as_soon_as_its_round_is_published():
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=3)
    assert all(row.match_points == 0 for row in current_standings(night_).rows)  # computed and kept
    night.round_pair(season=night_, paired_by=cast.owner)
    round_ = night.round_publish(season=night_, published_by=cast.owner)
    rows = {row.player_id: row for row in current_standings(night_).rows}
    assert (rows[round_.bye_id].match_points, rows[round_.bye_id].net) == (1, 0)


def _nine_player_night(cast):
    """Nine players, four rounds, every result fixed by hand (a Swiss pairing of these results: score
    groups top down, no rematch, the bye to the lowest without one). Ivy has to leave after round 3.

    Every game is won by a gin against 80 (25 + 80 = 105 hand points). Alone, that is a *clean* game:
    box 25, game bonus 100 and the shutout bonus 100, so the winner wins by 105 + 25 + 100 + 100 = 330.
    Two games are *fought*: the loser first goes gin against 30 (55 points, short of 100), then the
    winner's gin ends it: 105 + 25 + 100 = 230 against 55 + 25 = 80, a margin of 150 and one gin each.

        round 1: Ann beat Bob, Cy beat Di, Ed beat Flo, Gil beat Hal; Ivy's bye
        round 2: Ann beat Cy, Ed beat Gil, Ivy beat Bob, Di beat Flo; Hal's bye
        round 3: Ann beat Ed, Ivy beat Cy (fought), Gil beat Di, Bob beat Hal; Flo's bye
        (Ivy drops out)
        round 4: Ann beat Gil, Bob beat Ed, Cy beat Flo (fought), Di beat Hal; no bye (eight players)
    """
    night_ = _night(cast)
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gil", "Hal", "Ivy"]
    by = {name: clubs.member_add_guest(club=cast.club, name=name, added_by=cast.owner).player for name in names}
    for player in by.values():
        night.check_in(season=night_, player=player, checked_in_by=cast.owner)
    rounds = [
        ([("Ann", "Bob"), ("Cy", "Di"), ("Ed", "Flo"), ("Gil", "Hal")], "Ivy"),
        ([("Ann", "Cy"), ("Ed", "Gil"), ("Ivy", "Bob"), ("Di", "Flo")], "Hal"),
        ([("Ann", "Ed"), ("Ivy", "Cy"), ("Gil", "Di"), ("Bob", "Hal")], "Flo"),
        ([("Ann", "Gil"), ("Bob", "Ed"), ("Cy", "Flo"), ("Di", "Hal")], None),
    ]
    fought = {("Ivy", "Cy"), ("Cy", "Flo")}
    for number, (games, bye) in enumerate(rounds, 1):
        if number == 4:
            night.check_out(season=night_, player=by["Ivy"], checked_out_by=cast.owner)
        pairings = [[table, by[one].pk, by[two].pk] for table, (one, two) in enumerate(games, 1)]
        SwissRound.objects.create(
            season=night_, number=number, published=True, bye=by[bye] if bye else None,
            pairing={"pairings": pairings, "bye": by[bye].pk if bye else None, "rematches": [],
                     "unmet_table_wishes": [], "order": []},
        )  # fmt: skip
        for table, (winner, loser) in enumerate(games, 1):
            fixture = Fixture.objects.create(season=night_, round=number, table=table, home=by[winner], away=by[loser])
            game = league.fixture_start(fixture=fixture, started_by=None)
            if (winner, loser) in fought:
                services.hand_record(game=game, recorded_by=None, ending="gin", by=by[loser], defender_deadwood=30)
            services.hand_record(game=game, recorded_by=None, ending="gin", by=by[winner], defender_deadwood=80)
            game.refresh_from_db()
            assert game.over and game.margin == (150 if (winner, loser) in fought else 330)
            league.game_confirm(game=game, confirmed_by=None)
    return night_


def _standings_page_lines(html: str) -> list[tuple]:
    """The season page's standings table as text: one tuple of cell texts per line."""
    table = re.search(r'<table class="standings[^"]*">.*?</table>', html, re.S).group(0)
    return [
        tuple(re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S))
        for row in re.findall(r"<tr data-player=[^>]*>(.*?)</tr>", table, re.S)
    ]


def test_a_nine_player_nights_tie_breakers_worked_by_hand_line_by_line(client):
    cast = make_club()
    night_ = _nine_player_night(cast)
    # Match points (a win or a bye: 1):
    #   Ann 4 wins = 4; Ivy bye + 2 wins = 3 (then dropped out); Bob, Cy, Di, Ed, Gil 2 wins each = 2;
    #   Flo bye, 3 losses = 1; Hal bye, 3 losses = 1.
    # Buchholz (the match points of the opponents played; a bye adds nothing, docs/league.md):
    #   Ann  Bob 2 + Cy 2 + Ed 2 + Gil 2 = 8        Ivy  Bob 2 + Cy 2 = 4
    #   Bob  Ann 4 + Ivy 3 + Hal 1 + Ed 2 = 10      Cy   Di 2 + Ann 4 + Ivy 3 + Flo 1 = 10
    #   Ed   Flo 1 + Gil 2 + Ann 4 + Bob 2 = 9      Gil  Hal 1 + Ed 2 + Di 2 + Ann 4 = 9
    #   Di   Cy 2 + Flo 1 + Gil 2 + Hal 1 = 6
    #   Flo  Ed 2 + Di 2 + Cy 2 = 6                 Hal  Gil 2 + Bob 2 + Di 2 = 6
    # Net points (margins won - margins lost; clean 330, fought 150):
    #   Ann 4 x 330 = 1320; Ivy 330 + 150 = 480; Bob 330 + 330 - 330 - 330 = 0;
    #   Cy 330 + 150 - 330 - 150 = 0; Ed, Gil, Di 2 x 330 - 2 x 330 = 0;
    #   Flo -330 - 330 - 150 = -810; Hal -3 x 330 = -990.
    # Gins (each winner's, and the loser's in a fought game): Cy 2 wins + 1 in the loss to Ivy = 3;
    #   Flo 1 (in the loss to Cy); Hal 0; everyone else one per win.
    # So: Ann above Ivy on match points (4 > 3), Ivy above the 2s (3 > 2); among the 2s Cy and Bob lead on
    # Buchholz (10), are level on net points (0) and have not met (head-to-head 0-0 each): Cy is above Bob
    # on gins (3 > 2). Bob is above Ed on Buchholz (10 > 9); Ed and Gil are level on Buchholz (9) and net
    # points (0): Ed beat Gil in round 2, so Ed is above on head-to-head; Gil is above Di on Buchholz
    # (9 > 6); Di above the 1s on match points. Flo and Hal are level on match points and Buchholz (6):
    # Flo is above on net points (-810 > -990).
    expected = [
        # position, name, MP, Buchholz, played, won, lost, net, gins, what put the line above the next
        (1, "Ann", 4, 8, 4, 4, 0, 1320, 4, "on match points"),
        (2, "Ivy", 3, 4, 2, 2, 0, 480, 2, "on match points"),
        (3, "Cy", 2, 10, 4, 2, 2, 0, 3, "on gins"),
        (4, "Bob", 2, 10, 4, 2, 2, 0, 2, "on Buchholz"),
        (5, "Ed", 2, 9, 4, 2, 2, 0, 2, "on head-to-head"),
        (6, "Gil", 2, 9, 4, 2, 2, 0, 2, "on Buchholz"),
        (7, "Di", 2, 6, 4, 2, 2, 0, 2, "on match points"),
        (8, "Flo", 1, 6, 3, 0, 3, -810, 1, "on net points"),
        (9, "Hal", 1, 6, 3, 0, 3, -990, 0, ""),
    ]
    rows = season_standings(night_).rows
    shown = [
        (r.position, r.name, r.match_points, r.buchholz, r.played, r.won, r.lost, r.net, r.gins, r.ahead_by_words)
        for r in rows
    ]
    for line, (got, want) in enumerate(zip(shown, expected, strict=True), 1):
        assert got == want, f"line {line}"
    assert not any(row.tied for row in rows)
    assert [row.byes for row in rows] == [0, 1, 0, 0, 0, 0, 0, 1, 1]

    page = client.get(reverse("league:season", args=[cast.club.slug, night_.pk])).content.decode()
    # The page's columns: #, player, MP, Bhz, P, W, L, Net, Avg, Hands, Gins, UC+, UC-, decided by.
    lines = _standings_page_lines(page)
    for line, (cells, want) in enumerate(zip(lines, expected, strict=True), 1):
        position, name, mp, bhz, played, won, lost, net, _avg, _hands, gins, _given, _received, decided = cells
        assert (int(position), name, int(mp), int(bhz), int(played), int(won), int(lost), int(net), int(gins),
                decided) == want, f"page line {line}"  # fmt: skip


# --- 6. the wall -------------------------------------------------------------------------------------------


def _sql_versions(season_ids):
    """The live hub's reading of season versions (PostgreSQL), as version texts."""
    with connection.cursor() as cursor:
        cursor.execute(changes.season_versions_sql(), [season_ids, season_ids])
        return {row[0]: changes.version_text(*row[1:]) for row in cursor.fetchall()}


def test_publishing_a_round_moves_the_season_version_the_wall_follows_as_the_live_hub_reads_it():
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4)
    before = changes.season_version(night_.pk)
    night.round_pair(season=night_, paired_by=cast.owner)
    assert changes.season_version(night_.pk) == before  # a draft is not on the wall
    night.round_publish(season=night_, published_by=cast.owner)
    after = changes.season_version(night_.pk)
    assert after != before
    league.fixture_start(fixture=Fixture.objects.filter(season=night_).first(), started_by=None)
    playing = changes.season_version(night_.pk)
    assert playing != after
    if connection.vendor == "postgresql":  # the hub's one statement says the same as the ORM
        assert _sql_versions([night_.pk]) == {night_.pk: playing}


def test_the_wall_shows_this_rounds_tables_the_bye_the_clock_and_match_points(client):
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=5, round_minutes=30)
    night.round_pair(season=night_, paired_by=cast.owner)
    round_ = night.round_publish(season=night_, published_by=cast.owner)
    board = client.get(reverse("league:wall_board", args=[cast.club.slug, night_.pk])).content.decode()
    for fixture in Fixture.objects.filter(season=night_).select_related("home", "away"):
        assert f'data-table="{fixture.table}"' in board
        assert f"{fixture.home.name} v {fixture.away.name}" in board
    assert "Round 1" in board and round_.bye.name in board and "Bye" in board
    deadline = round_.started_at + datetime.timedelta(minutes=30)
    assert f'data-deadline="{int(deadline.timestamp())}"' in board
    assert "Bhz" in board


# --- 7. closing the night -----------------------------------------------------------------------------------


def test_closing_the_night_names_the_champion_and_prints_each_rounds_pairings_and_results(client):
    cast = make_club()
    night_ = _hand_built_night(cast)
    league.season_close(season=night_, closed_by=cast.owner)
    assert night_.champion.name == "Ann"  # level with Ed on match points, ahead on Buchholz
    sheet = client.get(reverse("league:season_print", args=[cast.club.slug, night_.pk])).content.decode()
    assert "Friday night: round 1" in sheet and "Friday night: round 2" in sheet
    assert sheet.count("bye: 1 match point") == 2
    assert "Ann won by" in sheet and "champion: <strong>Ann</strong>" in sheet
    page = client.get(reverse("league:night", args=[cast.club.slug, night_.pk])).content.decode()
    assert "Champion: Ann" in page
    with pytest.raises(ValidationError):
        night.check_in(season=night_, player=cast.player_of(cast.player), checked_in_by=cast.owner)
    with pytest.raises(ValidationError):
        night.round_pair(season=night_, paired_by=cast.owner)


def test_a_swap_with_a_player_not_in_the_round_is_refused_by_name():
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4)
    draft = night.round_pair(season=night_, paired_by=cast.owner)
    stranger = clubs.member_add_guest(club=cast.club, name="Stan", added_by=cast.owner).player
    one = Player.objects.get(pk=draft.pairing["pairings"][0][1])
    refused = api_client(cast.owner).post(
        f"/api/seasons/{night_.pk}/rounds/swap/", {"one": one.pk, "two": stranger.pk}, format="json"
    )
    assert refused.status_code == 400
    assert "Stan is not in this round" in str(refused.json())
    assert SwissRound.objects.get().pairing == draft.pairing


# --- the API's permission matrix for a Swiss night's writes ----------------------------------------------

# The API routes the matrix below covers (tests/test_api.py checks every route is covered by some matrix).
SWISS_ROUTES = frozenset(
    {"season-check-in", "season-round-pair", "season-round-swap", "season-round-publish", "season-round-time"}
)


def _swiss_call(route, cast, night_):
    """(path, body) of one Swiss night write, with the night brought to the state it needs."""
    base = f"/api/seasons/{night_.pk}"
    if route == "season-check-in":
        return f"{base}/check-in/", {"player": cast.guest.pk, "here": False}
    if route == "season-round-pair":
        return f"{base}/rounds/pair/", {}
    draft = night.round_pair(season=night_, paired_by=cast.owner)
    if route == "season-round-swap":
        (_, a, _), (_, c, _) = draft.pairing["pairings"]
        return f"{base}/rounds/swap/", {"one": a, "two": c}
    if route == "season-round-publish":
        return f"{base}/rounds/publish/", {}
    night.round_publish(season=night_, published_by=cast.owner)
    return f"{base}/rounds/time/", {}


@pytest.mark.parametrize("route", sorted(SWISS_ROUTES))
@pytest.mark.parametrize(
    ("role", "is_public", "status"),
    [
        (None, True, 403),
        ("outsider", True, 403),
        ("outsider", False, 404),
        ("player", True, 403),
        ("admin", True, 200),
        ("owner", False, 200),
    ],
)
def test_only_the_nights_organisers_write_to_it_through_the_api(route, role, is_public, status):
    cast = make_club(is_public=is_public)
    night_, _ = _checked_in_night(cast, count=5, round_minutes=30)
    path, body = _swiss_call(route, cast, night_)
    answer = api_client(getattr(cast, role) if role else None).post(path, body, format="json")
    assert answer.status_code == status, answer.content
    assert resolve(path).url_name == route


def test_the_organiser_gives_a_player_a_fixed_table_at_check_in_and_the_pairing_keeps_it(client):
    cast = make_club()
    night_, players = _checked_in_night(cast, count=4)
    late = clubs.member_add_guest(club=cast.club, name="Wheelchair Wendy", added_by=cast.owner).player
    client.force_login(cast.owner)
    url = reverse("league:night_check_in", args=[cast.club.slug, night_.pk])
    bad = client.post(url, {"player": late.pk, "here": "1", "fixed_table": "x"}, follow=True)
    assert "Fixed table: A whole number from 1 to 32767." in bad.content.decode()
    client.post(url, {"player": late.pk, "here": "1", "fixed_table": "3"})
    assert SwissEntry.objects.get(player=late).fixed_table == 3
    other = clubs.member_add_guest(club=cast.club, name="Otto", added_by=cast.owner).player
    night.check_in(season=night_, player=other, checked_in_by=cast.owner)
    draft = night.round_pair(season=night_, paired_by=cast.owner)
    assert any(table == 3 and late.pk in (one, two) for table, one, two in draft.pairing["pairings"])


def test_the_organiser_changes_a_checked_in_players_fixed_table_on_the_night_page_and_nobody_else_may(client):
    cast = make_club()
    night_, players = _checked_in_night(cast, count=6)
    pat = cast.player_of(cast.player)  # third of six by id: round 1 by rating would seat Pat at table 3
    base = [cast.club.slug, night_.pk]
    url = reverse("league:night_check_in", args=base)
    client.force_login(cast.owner)
    page = client.get(reverse("league:night", args=base)).content.decode()
    assert f'aria-label="Set the fixed table of {pat.name}"' in page
    answer = client.post(url, {"player": pat.pk, "here": "1", "fixed_table": "1"}, follow=True)
    assert f"{pat.name} is checked in, at table 1." in answer.content.decode()
    entry = SwissEntry.objects.get(player=pat)
    assert (entry.present, entry.fixed_table) == (True, 1)

    for user in (cast.player, cast.rival):  # Pat on their own phone, and another player
        client.force_login(user)
        assert "Set the fixed table" not in client.get(reverse("league:night", args=base)).content.decode()
        assert client.post(url, {"player": pat.pk, "here": "1", "fixed_table": "2"}).status_code == 403
    assert SwissEntry.objects.get(player=pat).fixed_table == 1
    own_phone = api_client(cast.player).post(
        f"/api/seasons/{night_.pk}/check-in/", {"player": pat.pk, "fixed_table": 2}, format="json"
    )
    assert own_phone.status_code == 403

    draft = night.round_pair(season=night_, paired_by=cast.owner)
    assert [table for table, one, two in draft.pairing["pairings"] if pat.pk in (one, two)] == [1]


def test_a_night_nobody_has_checked_in_to_yet_shows_empty_standings(client):
    cast = make_club()
    night_ = _night(cast)
    assert season_standings(night_).rows == []
    page = client.get(reverse("league:season", args=[cast.club.slug, night_.pk]))
    assert page.status_code == 200 and "Standings" in page.content.decode()
    assert APIClient().get(f"/api/seasons/{night_.pk}/standings/").json()["rows"] == []
    wall = client.get(reverse("league:wall_board", args=[cast.club.slug, night_.pk]))
    assert "No players in this season yet." in wall.content.decode()


def test_a_closed_timed_night_shows_no_clock_counting_down(client):
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4, round_minutes=30)
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    base = [cast.club.slug, night_.pk]
    assert "data-deadline" in client.get(reverse("league:night", args=base)).content.decode()
    _play_round(night_)
    league.season_close(season=night_, closed_by=cast.owner)
    assert "data-deadline" not in client.get(reverse("league:night", args=base)).content.decode()
    assert "data-deadline" not in client.get(reverse("league:wall_board", args=base)).content.decode()


def test_while_a_round_is_in_play_the_organiser_sees_why_the_next_waits_and_time_is_called_once(client):
    cast = make_club()
    night_, _ = _checked_in_night(cast, count=4, round_minutes=30)
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    client.force_login(cast.owner)
    base = [cast.club.slug, night_.pk]
    page = client.get(reverse("league:night", args=base)).content.decode()
    assert "Round 1 has 2 games still to be played and confirmed." in page
    assert "Pair round 2" not in page  # no button that can only be refused
    assert "Time (for the room)" in page
    league.fixture_start(fixture=Fixture.objects.filter(season=night_).first(), started_by=None)
    client.post(reverse("league:night_time", args=base))
    page = client.get(reverse("league:night", args=base)).content.decode()
    assert "Time has been called" in page and "Time (for the room)" not in page


def test_a_draft_pairing_is_shown_to_the_nights_organisers_only(client):
    """#38 item 4: an unpublished draft (its tables, the bye) is the organisers' to check, not the room's."""
    cast = make_club()
    night_, players = _checked_in_night(cast, count=5)
    base = [cast.club.slug, night_.pk]
    client.force_login(cast.owner)
    client.post(reverse("league:night_pair", args=base), {"first_round": "random"})
    assert "Round 1: pairing to check" in client.get(reverse("league:night", args=base)).content.decode()
    client.force_login(cast.admin)
    assert "Round 1: pairing to check" in client.get(reverse("league:night", args=base)).content.decode()
    for viewer in (cast.player, cast.outsider, None):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        page = client.get(reverse("league:night", args=base))
        assert page.status_code == 200
        text = page.content.decode()
        assert "pairing to check" not in text and "bye (1 match point)" not in text, viewer


# --- issue 39: the night page on the organiser's phone ------------------------------------------------------


def _last_night_and_tonight(cast):
    """Last night: five played round 1 (two tables and the bye), Otto checked in after it was published and
    played nothing. Tonight: Pat is here already."""
    last, players = _checked_in_night(cast, count=5)
    night.round_pair(season=last, paired_by=cast.owner)
    night.round_publish(season=last, published_by=cast.owner)
    otto = clubs.member_add_guest(club=cast.club, name="Otto", added_by=cast.owner).player
    night.check_in(season=last, player=otto, checked_in_by=cast.owner)
    tonight = league.season_create(
        club=cast.club, name="Next Friday", format=SeasonFormat.SWISS, players=[], created_by=cast.owner
    )
    pat = cast.player_of(cast.player)
    night.check_in(season=tonight, player=pat, checked_in_by=cast.owner)
    return tonight, players, pat


def test_check_in_everyone_who_played_last_night_checks_in_the_regulars_not_yet_here():
    cast = make_club()
    tonight, players, pat = _last_night_and_tonight(cast)
    arrived = night.check_in_last_night(season=tonight, checked_in_by=cast.admin)
    assert {player.pk for player in arrived} == {player.pk for player in players} - {pat.pk}  # bye included
    here = set(SwissEntry.objects.filter(season=tonight, present=True).values_list("player__name", flat=True))
    assert here == {player.name for player in players}  # Otto played nothing last night: not checked in
    assert set(tonight.players.all()) == set(players)
    assert night.check_in_last_night(season=tonight, checked_in_by=cast.admin) == []  # all here already


def test_only_organisers_check_in_last_nights_players_and_a_first_night_has_none(client):
    cast = make_club()
    tonight, _players, _pat = _last_night_and_tonight(cast)
    with pytest.raises(PermissionDenied):
        night.check_in_last_night(season=tonight, checked_in_by=cast.player)
    url = reverse("league:night_check_in_last", args=[cast.club.slug, tonight.pk])
    for user in (cast.player, cast.outsider):
        client.force_login(user)
        assert client.post(url).status_code in (403, 404)
        assert (
            "players from Friday night"
            not in client.get(reverse("league:night", args=[cast.club.slug, tonight.pk])).content.decode()
        )
    assert SwissEntry.objects.filter(season=tonight, present=True).count() == 1
    first = Season.objects.get(name="Friday night")
    with pytest.raises(ValidationError) as refused:
        night.check_in_last_night(season=first, checked_in_by=cast.owner)
    assert refused.value.message_dict == {"season": ["Thursday Gin has no earlier Swiss night."]}


def test_the_night_page_offers_last_nights_players_and_the_button_needs_its_csrf_token():
    from django.test import Client

    cast = make_club()
    tonight, players, _pat = _last_night_and_tonight(cast)
    client = Client(enforce_csrf_checks=True)
    client.force_login(cast.owner)
    page = client.get(reverse("league:night", args=[cast.club.slug, tonight.pk])).content.decode()
    assert "Check in the 4 players from Friday night" in page
    url = reverse("league:night_check_in_last", args=[cast.club.slug, tonight.pk])
    assert client.post(url).status_code == 403  # no CSRF token
    assert SwissEntry.objects.filter(season=tonight, present=True).count() == 1
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    answer = client.post(url, {"csrfmiddlewaretoken": token}, follow=True).content.decode()
    assert "4 players are checked in:" in answer
    assert "Check in the 4 players" not in answer
    assert SwissEntry.objects.filter(season=tonight, present=True).count() == 5


def test_the_night_page_finds_a_member_by_name_without_javascript_and_shows_the_round_in_play_first(client):
    cast = make_club()
    night_, players = _checked_in_night(cast, count=4, round_minutes=30)
    for number in range(10):
        clubs.member_add_guest(club=cast.club, name=f"Walk-in {number}", added_by=cast.owner)
    client.force_login(cast.owner)
    url = reverse("league:night", args=[cast.club.slug, night_.pk])
    page = client.get(url).content.decode()
    assert page.index("Pair round 1") < page.index('id="check-in"')  # no round in play: pairing first
    found = client.get(url, {"q": "walk-in 3"}).content.decode()
    assert re.findall(r'<li data-player="([^"]+)"', found) == ["Walk-in 3"]
    assert "Who is here (4)" in found  # the count is the night's, not the filter's
    assert "No member's name contains “zz”." in client.get(url, {"q": "zz"}).content.decode()
    night.round_pair(season=night_, paired_by=cast.owner)
    night.round_publish(season=night_, published_by=cast.owner)
    page = client.get(url).content.decode()
    assert page.index('id="night-rounds"') < page.index("pair-waits") < page.index('id="check-in"')
    assert page.index("Time (for the room)") < page.index('id="check-in"')
