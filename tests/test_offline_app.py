"""The installable app's server side (issue 14): manifest, service worker, waiting page, and
keeping another phone's version of a hand in the audit trail."""

from __future__ import annotations

import re

import pytest

from scoring.models import FactChange, Hand
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db


def test_the_service_worker_is_served_from_the_root_uncached_with_the_shell_to_keep(client):
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert "no-cache" in answer["Cache-Control"]
    body = answer.content.decode()
    assert body.startswith("self.GINLEAGUE = ")
    assert "/static/js/engine.js" in body and "/static/css/site.css" in body and '"/waiting/"' in body
    csp = answer["Content-Security-Policy"]
    assert "worker-src 'self'" in csp and "script-src 'self'" in csp and "unsafe" not in csp


def test_every_page_links_the_manifest_and_the_badge(client):
    UserFactory(username="ann")  # past first-run setup
    page = client.get("/login/").content.decode()
    assert 'rel="manifest" href="/manifest.webmanifest"' in page
    assert 'id="net-badge"' in page
    manifest = client.get("/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    assert manifest.json()["display"] == "standalone"


HTMX_SCRIPT = re.compile(r'<script[^>]* src="[^"]*htmx[^"]*"')


def site_script(page: str) -> str:
    return re.search(r'<script src="[^"]*/js/site\.js"[^>]*>', page).group(0)


def test_the_offline_app_and_htmx_come_only_where_they_have_a_use_and_the_offline_app_after_the_load_event(client):
    """Issue 40: no module tag in any page: the site script loads the offline app after the load event, where it
    has a use: signed in (data-user), the waiting page (data-offline-page), which lists what the phone holds
    whoever is signed in, and (decided in the browser) a phone that still remembers someone. htmx only signed in."""
    user = UserFactory(username="ann")
    for address in ("/login/", "/players/"):
        page = client.get(address).content.decode()
        tag = site_script(page)
        assert 'data-user=""' in tag and "data-offline-page" not in tag, address
        assert 'type="module"' not in page and not HTMX_SCRIPT.search(page), address
    waiting = client.get("/waiting/").content.decode()
    assert "data-offline-page" in site_script(waiting) and not HTMX_SCRIPT.search(waiting)

    client.force_login(user)
    page = client.get("/players/").content.decode()
    tag = site_script(page)
    assert 'data-offline-app="/static/js/offline/main.js"' in tag and 'data-user="ann"' in tag
    assert 'data-engine="/static/js/engine.js"' in tag and 'data-sw="/sw.js"' in tag
    assert HTMX_SCRIPT.search(page) and 'type="module"' not in page


def test_the_waiting_page_says_what_it_lists(client):
    answer = client.get("/waiting/")
    assert answer.status_code == 200
    assert "Waiting to be sent" in answer.content.decode()


def _game_with_one_hand(user):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann,
        player_two=bob,
        created_by=user,
        hands=[{"ending": "knock", "by": ann.pk, "knocker_deadwood": 4, "defender_deadwood": 14}],
    )
    return game, ann, bob


def test_setting_aside_another_phones_version_keeps_it_in_the_audit_trail_and_changes_no_figure(client):
    user = UserFactory(username="ann")
    game, ann, bob = _game_with_one_hand(user)
    hand = Hand.objects.get(game=game)
    client.force_login(user)
    answer = client.post(
        f"/api/games/{game.pk}/hands/{hand.pk}/set-aside/",
        {"ending": "gin", "by": bob.pk, "defender_deadwood": 6},
        content_type="application/json",
        headers={"Idempotency-Key": "phone-b-hand-1"},
    )
    assert answer.status_code == 201, answer.content
    assert answer.json()["game"]["hand_count"] == 1
    line = FactChange.objects.get(game=game)
    assert (line.action, line.hand_number, line.before, line.after) == (
        "version_set_aside",
        1,
        "Knock by Ann deadwood 4 against 14",
        "Gin by Bob against 6",
    )
    hand.refresh_from_db()
    assert (hand.ending, hand.points) == ("knock", 10)


def test_setting_aside_refuses_a_stranger_and_a_player_not_in_the_game(client):
    owner = UserFactory(username="ann")
    game, ann, bob = _game_with_one_hand(owner)
    hand = Hand.objects.get(game=game)
    client.force_login(UserFactory(username="eve"))
    url = f"/api/games/{game.pk}/hands/{hand.pk}/set-aside/"
    assert client.post(url, {"ending": "gin", "by": bob.pk}, content_type="application/json").status_code == 403
    client.force_login(owner)
    answer = client.post(url, {"ending": "gin", "by": PlayerFactory().pk}, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["field"] == "by"
    assert not FactChange.objects.exists()
