"""Every shipped language reads well on a 390 px phone (issue 37, item 5): the scoresheet (a Hollywood
sitting with a finished board), a game's history, a season's standings and its printable sheet scroll
nothing sideways, and no table keeps a column out of sight in a box that scrolls."""

from __future__ import annotations

import pytest

from players import clubs
from scoring import services
from scoring.league import services as league
from tests.browser.conftest import screenshot, sign_in
from tests.factories import UserFactory, make_game
from tests.league_setup import start_and_finish

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_390 = {"width": 390, "height": 844}
LANGUAGES = {"en": "en-GB", "de": "de-DE", "es": "es-ES", "fr": "fr-FR", "pt-br": "pt-BR"}
# What sticks out: every element whose right edge is past the screen, or a box whose content is wider than it
# (a table scrolling in its box); what is hidden on purpose for screen readers (1 px, clipped) aside.
OUT_OF_SIGHT = """() => [...document.querySelectorAll("main *")]
  .filter((e) => e.getBoundingClientRect().right > 390.5 || e.scrollWidth > e.clientWidth + 1)
  .filter((e) => getComputedStyle(e).display !== "inline")
  .filter((e) => {
    for (let at = e; at; at = at.parentElement) { if (at.getBoundingClientRect().width <= 1) { return false; } }
    return true;
  })
  .map((e) => `${e.tagName}.${e.className}: ${e.textContent.trim().slice(0, 40)}`)"""


@pytest.fixture
def cast():
    """A season of four (one result confirmed, one provisional) and a Hollywood sitting of two of them
    with its first two games closed and a correction with a comment in its history."""
    director = UserFactory(username="director")
    club = clubs.club_create(name="Thursday Gin", owner=director, is_public=True)
    names = ("Annabelle", "Bartholomew", "Cyrille", "Dorothea")
    players = [clubs.member_add_guest(club=club, name=name, added_by=director).player for name in names]
    spring = league.season_create(club=club, name="Spring", players=players)
    fixtures = list(spring.fixtures.order_by("round", "pk"))
    start_and_finish(fixtures[0], fixtures[0].home, started_by=director, confirm_by=director)
    start_and_finish(fixtures[1], fixtures[1].away, started_by=director)
    one, two = players[0], players[1]
    gin = {"ending": "gin", "by": one, "defender_deadwood": 90}
    hollywood = make_game(
        rules={"preset": "hollywood"}, player_one=one, player_two=two, created_by=director, hands=[gin, gin]
    )
    services.hand_edit(
        hand=hollywood.hands.get(number=1),
        ending="gin",
        by=one,
        defender_deadwood=85,
        edited_by=director,
        reason="Typed 90 for 85 by mistake at the table",
    )
    return club, spring, hollywood


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_page_fits_a_390_px_phone(new_page, live_server, cast, language):
    club, spring, hollywood = cast
    page = new_page(viewport=PHONE_390, locale=LANGUAGES[language])
    sign_in(page, live_server.url, "director")
    widths, hidden = {}, {}
    for name, path in (
        ("sheet", f"/games/{hollywood.pk}/"),
        ("history", f"/games/{hollywood.pk}/history/"),
        ("season", f"/clubs/{club.slug}/seasons/{spring.pk}/"),
        ("print", f"/clubs/{club.slug}/seasons/{spring.pk}/print/"),
    ):
        page.goto(live_server.url + path)
        screenshot(page, f"{name}-{language}")
        widths[name] = page.evaluate("document.documentElement.scrollWidth")
        hidden[name] = page.evaluate(OUT_OF_SIGHT)
    assert all(width <= 390 for width in widths.values()), widths
    assert not any(hidden.values()), hidden
    # Hollywood's closed badge ("ABGESCHLOSSEN") sits inside its board, whole.
    page.goto(f"{live_server.url}/games/{hollywood.pk}/")
    badges = page.evaluate("""() => [...document.querySelectorAll(".board .closed-mark")].map((mark) => {
      const board = mark.closest(".board").getBoundingClientRect(), box = mark.getBoundingClientRect();
      return box.left >= board.left && box.right <= board.right && mark.scrollWidth <= mark.clientWidth + 1;
    })""")
    assert badges == [True, True], badges
    # Every column of the history is on screen: who changed what, before, after and why.
    page.goto(f"{live_server.url}/games/{hollywood.pk}/history/")
    cells = page.locator("table.audit tbody td")
    assert cells.count() == 6
    for index in range(6):
        box = cells.nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (index, box)
    assert "Typed 90 for 85 by mistake at the table" in cells.nth(5).inner_text()


@pytest.mark.parametrize(("language", "zone"), [("pt-br", "America/Sao_Paulo"), ("de", "Asia/Kolkata")])
def test_history_times_are_in_the_viewers_time_zone(new_page, live_server, cast, language, zone):
    import datetime
    from zoneinfo import ZoneInfo

    _, _, hollywood = cast
    at = hollywood.fact_changes.get().at
    page = new_page(viewport=PHONE_390, locale=LANGUAGES[language], timezone_id=zone)
    page.goto(f"{live_server.url}/games/{hollywood.pk}/history/")
    shown = page.locator("table.audit time").inner_text()
    here = at.astimezone(ZoneInfo(zone))
    assert here.strftime("%H:%M") in shown and str(here.year) in shown, shown
    assert at.astimezone(datetime.UTC).strftime("%H:%M") not in shown and "UTC" not in shown, shown
    screenshot(page, f"history-{language}-{zone.replace('/', '-')}")
