"""A whole Swiss night in browsers (issue 28): an organiser on the night page, three players' phones
(390x844) scoring their games on their scoresheets, and the wall screen in a fourth context following
every published round and confirmed result through its stream, never reloaded.

Nine players, four rounds: Flo arrives late (checked in before round 2, the first round with a bye),
Ed drops out after round 2, a swap is made (and undone) before round 3 is published, and round 3 is
the timed round the organiser calls Time on. The games no phone plays are played and every result is
confirmed through the services (the organiser's and the players' pages for those are tested
elsewhere). Served by uvicorn, since the wall's stream needs ASGI (tests/browser/test_wall.py).
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from players import clubs
from players.models import Player
from scoring import services
from scoring.league import night as night_services
from scoring.league import services as league
from scoring.league.standings import season_standings
from scoring.models import Fixture, Game, Season
from tests.browser.conftest import LAPTOP, screenshot, sign_in
from tests.browser.test_kitchen import enter_hand, save_hand
from tests.browser.test_wall import asgi_server  # noqa: F401 (asgi_server: a fixture)
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE_390 = {"width": 390, "height": 844}
PHONES = ("pat", "quinn", "rae")  # players with an account, each scoring on their own phone
GUESTS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")
LATE, LEAVER = "Flo", "Ed"


# The hands of each table, won by the player ranked higher (the fixture's home): a gin against 80
# (25 + 80 ends a standard game at once), or in the timed round a knock, 4 against 20 (16 points).
def gin_on_the_page(fixture):
    return [{"ending": "Gin", "by": fixture.home.name, "defender": 80}]


def gin_by_the_services(fixture):
    return [{"ending": "gin", "by": fixture.home, "defender_deadwood": 80}]


def knock_on_the_page(fixture):
    return [{"ending": "Knock", "by": fixture.home.name, "knocker": 4, "defender": 20}]


def knock_by_the_services(fixture):
    return [{"ending": "knock", "by": fixture.home, "knocker_deadwood": 4, "defender_deadwood": 20}]


def shot(page, name: str) -> None:
    screenshot(page, f"swiss-night-live-{name}")


def phone_scores(phone, night_url: str, fixture: Fixture, hands) -> None:
    """The phone starts its table's game from the night page and records ``hands`` on the scoresheet."""
    phone.goto(night_url)
    phone.get_by_role("button", name=f"Start {fixture.home.name} v {fixture.away.name}", exact=True).click()
    phone.wait_for_url(re.compile(r"/games/\d+/$"))
    for number, hand in enumerate(hands, 1):
        enter_hand(phone, **hand)
        save_hand(phone, number)


def served(fixture: Fixture, hands) -> Game:
    """A table no phone plays: started and scored through the services."""
    game = league.fixture_start(fixture=fixture, started_by=None)
    for hand in hands:
        services.hand_record(game=game, recorded_by=None, **hand)
    return Game.objects.get(pk=game.pk)


def play_round(season, number: int, phones: dict, night_url: str, *, hands, served_hands, recorded: dict):
    """Every table of round ``number``: a phone among its players scores it on the page (the first phone
    that has scored least so far), the others through the services."""
    fixtures = Fixture.objects.filter(season=season, round=number).select_related("home", "away").order_by("table")
    for fixture in fixtures:
        at_table = [name for name in (fixture.home.name, fixture.away.name) if name in phones]
        if at_table:
            scorer = min(at_table, key=lambda name: recorded[name])
            phone_scores(phones[scorer], night_url, fixture, hands(fixture))
            recorded[scorer] += 1
        else:
            served(fixture, served_hands(fixture))
    return list(fixtures)


def confirm_round(season, number: int, director) -> None:
    for game in Game.objects.filter(season=season, fixture__round=number, over=True):
        league.game_confirm(game=game, confirmed_by=director)


def wall_follows_standings(wall, season) -> None:
    """The wall's standings are the selector's, in its order, with each line's match points."""
    rows = season_standings(Season.objects.get(pk=season.pk)).rows
    expect(wall.locator("table.wall-table tbody tr th")).to_have_text([row.name for row in rows])
    expect(wall.locator("table.wall-table td.match-points")).to_have_text([str(row.match_points) for row in rows])


def publish(org, wall, number: int, tables: int) -> None:
    org.get_by_role("button", name=f"Publish round {number}").click()
    expect(org.locator(".messages")).to_contain_text(f"Round {number} is published")
    expect(wall.locator("#wall-round-title")).to_have_text(f"Round {number}")
    expect(wall.locator(".wall-tables li[data-table]")).to_have_count(tables)


def test_an_organiser_three_phones_and_the_wall_run_a_nine_player_night(new_page, asgi_server):  # noqa: F811
    base = asgi_server
    director = UserFactory(username="director")
    club = clubs.club_create(name="Friday Gin", owner=director, is_public=True)
    for username in PHONES:
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=UserFactory(username=username))
    for name in GUESTS:
        clubs.member_add_guest(club=club, name=name, added_by=director)

    # 1. Open the night: a new season, format Swiss night, four rounds of 30 minutes.
    org = new_page(viewport=LAPTOP)
    sign_in(org, base, "director")
    org.goto(base + reverse("league:season_new", args=[club.slug]))
    org.get_by_label("Season name").fill("Friday night")
    org.get_by_label("Format").select_option("swiss")
    org.get_by_label("Rounds tonight").fill("4")
    org.get_by_label("Round length (minutes)").fill("30")
    for box in org.locator("input[name=players]").all():  # ticked would be checked in: whoever turns up
        box.uncheck()
    org.get_by_role("button", name="Create season").click()
    expect(org.locator(".messages")).to_contain_text("Friday night is ready.")
    org.get_by_role("link", name="The night: check-in and rounds").click()
    season = Season.objects.get(name="Friday night")
    assert (season.format, season.swiss_rounds, season.round_minutes) == ("swiss", 4, 30)
    night_url = base + reverse("league:night", args=[club.slug, season.pk])
    expect(org.locator("#check-in-title")).to_have_text("Who is here (0)")
    assert season.ranking == ["match_points", "buchholz", "net", "head_to_head", "gins"]
    shot(org, "1-opened")

    wall = new_page(viewport=LAPTOP)
    wall.goto(base + reverse("league:wall", args=[club.slug, season.pk]))
    expect(wall.locator("#wall-status")).to_have_text("Live")
    wall.evaluate("window.nightWallNotReloaded = true")

    # 2. Check-in: Pat from their phone, the organiser everyone else but the late arrival.
    phones = {}
    for username in PHONES:
        phones[username] = new_page(viewport=PHONE_390)
        sign_in(phones[username], base, username)
    phones["pat"].goto(night_url)
    phones["pat"].get_by_role("button", name="I'm here: check me in").click()
    expect(phones["pat"].locator(".messages")).to_contain_text("pat is checked in")
    for name in ("quinn", "rae", *(guest for guest in GUESTS if guest != LATE)):
        org.get_by_role("button", name=f"Check in {name}", exact=True).click()
        expect(org.locator(".messages")).to_contain_text(f"{name} is checked in")
    expect(org.locator("#check-in-title")).to_have_text("Who is here (8)")
    shot(org, "2-checked-in")

    # 3. Round 1, by rating: eight players, four tables, no bye.
    org.get_by_label("Round 1").select_option("rating")
    org.get_by_role("button", name="Pair round 1").click()
    expect(org.locator("#draft-title")).to_have_text("Round 1: pairing to check")
    expect(org.locator("#draft tr[data-table]")).to_have_count(4)
    shot(org, "3-round-1-draft")
    publish(org, wall, 1, tables=4)

    # 4. Play: the phones score their tables (a gin by the player ranked higher: the game is over at once).
    recorded = dict.fromkeys(PHONES, 0)

    def play(number, hands, served_hands):
        return play_round(season, number, phones, night_url, hands=hands, served_hands=served_hands,
                          recorded=recorded)  # fmt: skip

    play(1, gin_on_the_page, gin_by_the_services)
    confirm_round(season, 1, director)
    # 5. Standings after every result, on the wall without a reload.
    wall_follows_standings(wall, season)

    # Round 2: the late arrival checks in first; nine players, so a bye.
    org.goto(night_url)
    org.get_by_role("button", name=f"Check in {LATE}", exact=True).click()
    expect(org.locator("#check-in-title")).to_have_text("Who is here (9)")
    org.get_by_role("button", name="Pair round 2").click()
    expect(org.locator("#draft tr.bye")).to_contain_text("bye (1 match point)")
    shot(org, "3-round-2-draft-with-the-late-arrival-and-a-bye")
    publish(org, wall, 2, tables=4)
    expect(wall.locator(".wall-tables .bye")).to_have_count(1)
    play(2, gin_on_the_page, gin_by_the_services)
    confirm_round(season, 2, director)
    wall_follows_standings(wall, season)

    # Ed has to leave: checked out after round 2, his games stay.
    org.goto(night_url)
    org.get_by_role("button", name=f"Check out {LEAVER}", exact=True).click()
    expect(org.locator(f'li[data-player="{LEAVER}"]')).to_contain_text("dropped out after round 2")
    expect(org.locator("#check-in-title")).to_have_text("Who is here (8)")
    shot(org, "2-drop-out-after-round-2")

    # Round 3: a swap before publishing; the page says when it makes a rematch (then it is undone).
    org.get_by_role("button", name="Pair round 3").click()
    expect(org.locator("#draft tr[data-table]")).to_have_count(4)
    one, two, rematch = _a_swap(season)
    org.get_by_label("Swap").select_option(label=one.name)
    org.get_by_label("with").select_option(label=two.name)
    org.get_by_role("button", name="Swap", exact=True).click()
    if rematch:
        expect(org.locator(".messages")).to_contain_text(f"{one.name} and {two.name} swapped: this creates a rematch")
        expect(org.locator("#draft")).to_contain_text("rematch: they have met tonight")
        shot(org, "3-round-3-swap-makes-a-rematch")
        org.get_by_label("Swap").select_option(label=one.name)
        org.get_by_label("with").select_option(label=two.name)
        org.get_by_role("button", name="Swap", exact=True).click()
    expect(org.locator(".messages")).to_contain_text(f"{one.name} and {two.name} swapped.")
    expect(org.locator("#draft")).not_to_contain_text("rematch")
    shot(org, "3-round-3-swapped")
    publish(org, wall, 3, tables=4)
    assert not Fixture.objects.filter(season=season, round=3).filter(home__name=LEAVER).exists()
    assert not Fixture.objects.filter(season=season, round=3).filter(away__name=LEAVER).exists()

    # The timed round: each table plays a hand (a knock, 4 against 20: 16 to the player ranked higher),
    # then the organiser calls Time; the hand in progress (a second knock) is every game's last.
    fixtures = play(3, knock_on_the_page, knock_by_the_services)
    expect(wall.locator(".wall-playing li[data-game] .hands")).to_have_text(["1 hand played"] * 4)
    expect(wall.locator(".wall-round .round-clock .clock-left")).to_contain_text("left")  # counting down
    shot(wall, "6-wall-during-the-timed-round-3")
    org.goto(night_url)
    expect(org.locator("#night-rounds .round-clock .clock-left").first).to_contain_text("left")
    shot(org, "4-round-3-in-play-with-its-clock")
    org.get_by_role("button", name="Time (for the room)").click()
    expect(org.locator(".messages")).to_contain_text("Time called on 4 games")
    expect(org.locator("#night-rounds .round-clock").first).to_contain_text("Time has been called")
    shot(org, "4-round-3-time-called")
    for fixture in fixtures:
        game = Game.objects.get(fixture=fixture)
        phone = next((phones[name] for name in PHONES if name in (fixture.home.name, fixture.away.name)), None)
        if phone is None:
            services.hand_record(game=game, recorded_by=None, **knock_by_the_services(fixture)[0])
            continue
        phone.goto(f"{base}/games/{game.pk}/")
        expect(phone.locator(".time-called")).to_contain_text("hand 2 is the last")
        if fixture == fixtures[0]:
            shot(phone, "4-a-phone-after-time-was-called")
        enter_hand(phone, **knock_on_the_page(fixture)[0])
        save_hand(phone, 2)
    for fixture in fixtures:  # 32-0 after two knocks: over by time, won by the player ahead
        game = Game.objects.get(fixture=fixture)
        assert (game.over, game.winner_id, game.time_called_after) == (True, fixture.home_id, 1)
    confirm_round(season, 3, director)
    wall_follows_standings(wall, season)

    # Round 4, then the night is closed.
    org.goto(night_url)
    org.get_by_role("button", name="Pair round 4").click()
    publish(org, wall, 4, tables=4)
    play(4, gin_on_the_page, gin_by_the_services)
    confirm_round(season, 4, director)
    wall_follows_standings(wall, season)
    assert all(recorded[name] >= 1 for name in PHONES), recorded  # every phone scored a game on its page
    org.goto(base + reverse("league:season", args=[club.slug, season.pk]))
    expect(org.locator("#standings")).to_contain_text("on match points")
    shot(org, "5-standings")

    # 7. Close the night: the champion, the final standings and the printable sheet.
    org.goto(night_url)
    org.get_by_role("link", name="Close the night").click()
    org.get_by_role("button", name="Close Friday night").click()
    season.refresh_from_db()
    assert season.is_closed
    org.goto(night_url)
    champion = season_standings(season).rows[0].name
    expect(org.locator(".season-closed")).to_contain_text(f"Champion: {champion}")
    shot(org, "7-closed")
    org.goto(base + reverse("league:season_print", args=[club.slug, season.pk]))
    expect(org.locator("body")).to_contain_text("Friday night: round 4")
    shot(org, "7-printable-sheet")

    assert wall.evaluate("window.nightWallNotReloaded") is True  # every change came through the stream
    shot(wall, "6-wall-final")
    for page in (org, wall, *phones.values()):
        page.goto("about:blank")  # the browser ends its event streams before the server stops


def _a_swap(season):
    """Two players of the draft at different tables, preferring a swap that would make a rematch (so the
    page's warning is seen): (one, two, whether it makes a rematch)."""
    draft = season.swiss_rounds_played.get(published=False)
    seated = [(one, two) for _, one, two in draft.pairing["pairings"]]
    candidates = [(a, c) for i, (a, _) in enumerate(seated) for (c, _) in seated[i + 1 :]]
    candidates += [(b, d) for i, (_, b) in enumerate(seated) for (_, d) in seated[i + 1 :]]
    by_id = Player.objects.in_bulk([player for pair in seated for player in pair])
    for a, c in candidates:
        if night_services.swap_creates_rematch(season=season, one=by_id[a], two=by_id[c]):
            return by_id[a], by_id[c], True
    a, c = candidates[0]
    return by_id[a], by_id[c], False
