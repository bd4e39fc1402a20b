"""A German phone scores a league game, offline for a hand, and a Spanish wall screen follows it (issue 31).

Every step is read as the player sees it: German words present, the English ones of the same page
absent (the players' typed names aside), and German dates and decimal commas. The wall is a real
ASGI server's (its live updates are Server-Sent Events), shared by both browsers.
"""

from __future__ import annotations

import datetime
import re

import pytest
from playwright.sync_api import expect

from players import clubs
from scoring.league import services as league
from scoring.models import Game, Hand, SeasonFormat
from tests.browser.conftest import LAPTOP, PASSWORD
from tests.browser.test_offline import ready
from tests.browser.test_wall import asgi_server  # noqa: F401 (a fixture)
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_390 = {"width": 390, "height": 844}
# English words of these pages that a translated page must not show (as whole words, case as written;
# the players here are named pat and quinn, the club and season in German, so none of them matches).
ENGLISH = [
    "Knock", "knocks", "knocked", "Undercut", "undercut", "Deadwood", "deadwood", "New game", "Sign out",
    "hand", "hands", "Hand \\d", "deals", "dealt", "waiting", "Save", "Saved", "Edit", "Undo", "Preview",
    "Players", "Season", "Standings", "Rules", "Language", "beat", "needs", "changes", "sent", "League",
    "Live", "Reload", "Playing now", "Latest results", "Won", "points", "the", "and", "of",
]  # fmt: skip
ENGLISH_WORD = re.compile(r"\b(" + "|".join(ENGLISH) + r")\b")


def shows_only(page, *words: str) -> str:
    """The page shows each of ``words`` and none of the English ones; returns its visible text."""
    for word in words:
        expect(page.locator("body")).to_contain_text(word)
    text = page.inner_text("body")
    english = sorted({match.group(0) for match in ENGLISH_WORD.finditer(text)})
    assert not english, f"English on {page.url}: {english}"
    return text


def tap(page, field: str, value: str) -> None:
    """Tap the big radio button for ``value`` of the hand form's ``field``: by value, so that the words
    checked are the page's own and a page in English fails on them, not on a button not found."""
    page.locator(f"label.pick:has(input[name='{field}'][value='{value}'])").click()


def deadwood(page, knocker: int | None, defender: int) -> None:
    if knocker is not None:
        page.locator("input[name=knocker_deadwood]").fill(str(knocker))
    page.locator("input[name=defender_deadwood]").fill(str(defender))
    page.locator("input[name=defender_deadwood]").press("Tab")  # leaving the box updates the preview


def test_a_german_phone_scores_a_league_game_offline_and_back_while_a_spanish_wall_follows(
    new_page,
    asgi_server,  # noqa: F811
):
    base = asgi_server
    director = UserFactory(username="director")
    club = clubs.club_create(name="Freitagsrunde", owner=director, is_public=True)
    for username in ("pat", "quinn"):
        invitation = clubs.invitation_create(club=club, created_by=director)
        clubs.invitation_accept(invitation=invitation, user=UserFactory(username=username))
    pat, quinn = (clubs.player_of(type(director).objects.get(username=name)) for name in ("pat", "quinn"))
    season = league.season_create(
        club=club,
        name="Herbstliga",
        players=[pat, quinn],
        format=SeasonFormat.SINGLE,
        starts_on=datetime.date(2026, 11, 2),
        ends_on=datetime.date(2026, 12, 23),
        created_by=director,
    )
    season_url = f"{base}/clubs/{club.slug}/seasons/{season.pk}/"

    # The wall screen in Spanish, opened before the game starts and never reloaded.
    wall = new_page(viewport=LAPTOP, locale="es-ES")
    wall.goto(f"{season_url}wall/")
    expect(wall.locator("#wall-status")).to_have_text(re.compile("^En directo"))
    wall.evaluate("window.wallNotReloaded = true")
    shows_only(
        wall, "Clasificación", "Jugador", "Jugando ahora", "No hay ninguna partida en juego.", "Últimos resultados"
    )

    # The German phone signs in through the form, Django's own words translated too.
    phone = new_page(viewport=PHONE_390, locale="de-DE")
    phone.goto(f"{base}/login/")
    expect(phone.locator("html")).to_have_attribute("lang", "de")
    shows_only(phone, "Benutzername", "Passwort", "Noch kein Konto?")
    phone.get_by_label("Benutzername").fill("pat")
    phone.get_by_label("Passwort").fill(PASSWORD)
    phone.get_by_role("button", name="Anmelden").click()
    phone.wait_for_url(lambda url: "/login/" not in url)
    shows_only(phone, "Neue Partie", "Abmelden", "Deine Partien")

    # The season page: its dates in German, and a fixture to start.
    phone.goto(season_url)
    shows_only(phone, "2. November 2026 bis 23. Dezember 2026", "Tabelle", "Deine Begegnungen")
    phone.locator("ul.fixtures.mine").get_by_role(
        "button", name=re.compile(r"^(pat gegen quinn|quinn gegen pat) starten$")
    ).click()
    phone.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get(fixture__season=season)
    shows_only(
        phone,
        "Wie das Spiel endete",
        "Wer hat beendet",
        "Restpunkte des Klopfers",
        "Restpunkte des Gegenspielers",
        "Spiel speichern",
        "Noch keine Spiele.",
        "braucht noch 100",
    )
    expect(wall.locator(f"li[data-game='{game.pk}'] .points")).to_have_text("0\u20130")

    # Hand 1: pat knocks with 8, quinn has 4: quinn undercuts.
    tap(phone, "ending", "knock")
    tap(phone, "by", str(pat.pk))
    deadwood(phone, 8, 4)
    phone.get_by_role("button", name="Spiel speichern").click()
    expect(phone.locator(".notice")).to_contain_text("Spiel 1 gespeichert: quinn unterbietet (29).")
    rows = phone.locator("table.hands tbody tr")
    expect(rows.nth(0).locator("td.what")).to_contain_text("pat hat geklopft, von quinn unterboten")
    shows_only(phone, "Restpunkte 8 gegen 4", "braucht noch 71", "Bearbeiten", "Spiel 1 rückgängig machen")
    expect(wall.locator(f"li[data-game='{game.pk}'] .points")).to_have_text("0\u201329")
    expect(wall.locator(f"li[data-game='{game.pk}'] .hands")).to_have_text("1 mano jugada")

    # Hand 2: quinn goes gin against pat's 20.
    tap(phone, "ending", "gin")
    tap(phone, "by", str(quinn.pk))
    deadwood(phone, None, 20)
    phone.get_by_role("button", name="Spiel speichern").click()
    expect(phone.locator(".notice")).to_contain_text("Spiel 2 gespeichert")
    expect(rows.nth(1).locator("td.what")).to_contain_text("quinn hat Gin gemacht")
    shows_only(phone, "quinn macht Gin (45)", "braucht noch 26", "Restpunkte 0 gegen 20")

    # The phone keeps what it needs offline, then loses the network and scores hand 3: pat knocks 3 v 10.
    phone.reload()
    ready(phone)
    phone.evaluate("navigator.serviceWorker.ready.then(() => true)")
    phone.reload()
    ready(phone)
    phone.context.set_offline(True)
    expect(phone.locator("#net-badge")).to_have_text("Offline")
    tap(phone, "ending", "knock")
    tap(phone, "by", str(pat.pk))
    deadwood(phone, 3, 10)
    phone.get_by_role("button", name="Spiel speichern").click()
    expect(phone.locator("table.hands tbody tr.unsent")).to_have_count(1)
    expect(phone.locator("#net-badge")).to_have_text("Offline · 1 wartend")
    expect(rows.nth(2).locator("td.what")).to_contain_text("pat hat geklopft")
    shows_only(phone, "1 Änderung noch nicht gesendet", "sobald das Netz wieder da ist", "braucht noch 93")
    assert Hand.objects.filter(game=game).count() == 2

    # The network is back: the hand is sent, once, and the wall hears of it.
    phone.context.set_offline(False)
    expect(phone.locator("#net-badge")).to_have_text("Online")
    expect(phone.locator("table.hands tbody tr.unsent")).to_have_count(0)
    expect(phone.locator(".offline-note.status")).to_be_hidden()
    shows_only(phone, "Restpunkte 3 gegen 10", "Spiel 3 rückgängig machen")
    assert Hand.objects.filter(game=game).count() == 3
    expect(wall.locator(f"li[data-game='{game.pk}'] .points")).to_have_text("7\u201374")
    expect(wall.locator(f"li[data-game='{game.pk}'] .hands")).to_have_text("3 manos jugadas")
    shows_only(wall, "Jugando ahora", "pat vs. quinn", "3 manos jugadas")

    # Hand 4: quinn goes gin against 90, and the game is over: the result line in German, on the wall in Spanish.
    tap(phone, "ending", "gin")
    tap(phone, "by", str(quinn.pk))
    deadwood(phone, None, 90)
    phone.get_by_role("button", name="Spiel speichern").click()
    expect(phone.locator(".notice")).to_contain_text("Spiel 4 gespeichert: quinn macht Gin (115).")
    shows_only(phone, "Partie vorbei", "quinn gewinnt mit 332 Punkten Vorsprung", "Endstand", "Partiebonus")
    expect(wall.locator(".wall-games.recent")).to_contain_text("quinn ganó a pat por 332")
    shows_only(wall, "Últimos resultados", "No hay ninguna partida en juego.")

    # The director confirms it: the wall's standings count it, and the season page shows its average
    # margin with a decimal comma.
    league.game_confirm(game=Game.objects.get(pk=game.pk), confirmed_by=director)
    expect(wall.locator("tr[data-player='quinn'] td.won")).to_have_text("1")
    expect(wall.locator("table.wall-table tbody tr").first).to_have_attribute("data-player", "quinn")
    shows_only(wall, "Clasificación", "Resultados confirmados")
    assert wall.evaluate("window.wallNotReloaded") is True
    phone.goto(season_url)
    expect(phone.locator("table tbody tr", has_text="quinn").first).to_contain_text("332,0")
    shows_only(phone, "quinn hat mit 332 Punkten Vorsprung gewonnen", "2. November 2026 bis 23. Dezember 2026")
    wall.goto("about:blank")  # the browser ends its event stream before the server stops
