"""The scoresheet's body kept per game version and viewer's place (scoring/kept_sheet.py) is the page drawn whole, to
the byte: the first load (drawn and kept) and the next (from the kept text) are the page PART_CACHE_ENTRIES=0 draws,
for an editor, a viewer who may not edit, a league game's confirmer, in two languages; a save's answer is the sheet
with its notice. A change made elsewhere (a hand recorded through the services, a player renamed, a season closed)
shows on the next load."""

from __future__ import annotations

import re

import pytest
from django.template import engines
from django.template.base import Lexer, TokenType
from django.test import Client
from django.urls import reverse, set_script_prefix

from players.models import Player
from scoring import kept_sheet, services
from scoring.league import services as league
from tests.factories import PlayerFactory, UserFactory
from tests.league_setup import make_club, start_and_finish

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")([^"]+)"')
NONCE = re.compile(r' nonce="[^"]+"')
SAVE_KEY = re.compile(r'name="idempotency_key" value="([0-9a-f]{32})"')


def _normal(page: str) -> str:
    """The page with its CSRF token, script nonce and save key (new on every request) named, after checking the page
    carries one token throughout, as a page drawn whole does."""
    assert len({token for _, token in TOKEN.findall(page)}) <= 1
    page = NONCE.sub(' nonce="NONCE"', TOKEN.sub(r'\1TOKEN"', page))
    return SAVE_KEY.sub('name="idempotency_key" value="KEY"', page)


def _loads(client, settings, url: str, **headers) -> tuple[str, str, str]:
    """(drawn whole, drawn and kept, from the kept text) of ``url``."""
    settings.PART_CACHE_ENTRIES = 0
    whole = client.get(url, **headers)
    settings.PART_CACHE_ENTRIES = 2000
    kept, again = client.get(url, **headers), client.get(url, **headers)
    assert whole.status_code == kept.status_code == again.status_code == 200
    return tuple(_normal(page.content.decode()) for page in (whole, kept, again))


def _same_as_drawn_whole(client, settings, url: str, **headers) -> str:
    whole, kept, again = _loads(client, settings, url, **headers)
    assert kept == whole
    assert again == whole
    return whole


@pytest.fixture
def sitting():
    """A Hollywood sitting of eight hands under way (a name to escape, a spade upcard) and its keeper's client."""
    user = UserFactory(username="keeper")
    ann, bob = PlayerFactory(name='Ann <&> "O\'Hara"'), PlayerFactory(name="Bob")
    game = services.game_create(
        player_one=ann, player_two=bob, first_dealer=bob, rules={"preset": "hollywood"}, created_by=user
    )
    for number in range(8):
        services.hand_record(
            game=game,
            recorded_by=user,
            ending="knock",
            by=ann if number % 3 else bob,
            knocker_deadwood=1 + number % 5,
            defender_deadwood=20 + number,
            upcard="QS" if number == 2 else "",
        )
    client = Client()
    client.force_login(user)
    return game, client


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("query", ["", "?cards=1", "?hands=all"])
def test_the_kept_sheet_is_the_sheet_drawn_whole(sitting, settings, language, query):
    game, client = sitting
    client.cookies["django_language"] = language
    page = _same_as_drawn_whole(client, settings, reverse("game", args=[game.pk]) + query)
    assert 'id="record"' in page and "Ann &lt;&amp;&gt;" in page


def test_the_kept_sheet_of_a_viewer_who_may_not_edit_and_of_anyone(sitting, settings):
    game, keeper = sitting
    other = Client()
    other.force_login(UserFactory(username="onlooker"))
    url = reverse("game", args=[game.pk])
    for client in (other, Client()):
        page = _same_as_drawn_whole(client, settings, url)
        assert 'id="record"' not in page and "/edit/" not in page
    assert 'id="record"' in _same_as_drawn_whole(keeper, settings, url)  # the editor's own kept sheet


def test_a_finished_game_and_the_htmx_sheet(settings):
    user = UserFactory(username="keeper")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = services.game_create(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    while not game.over:
        services.hand_record(game=game, recorded_by=user, ending="gin", by=ann, defender_deadwood=40)
        game.refresh_from_db()
    client = Client()
    client.force_login(user)
    url = reverse("game", args=[game.pk])
    assert "Play again" in _same_as_drawn_whole(client, settings, url)
    assert 'id="sheet"' in _same_as_drawn_whole(client, settings, url, HTTP_HX_REQUEST="true")


def test_a_saves_answer_is_the_sheet_with_its_notice(sitting, settings):
    game, client = sitting
    saved = client.post(
        reverse("hand_submit", args=[game.pk]),
        {"ending": "gin", "by": game.player_two_id, "defender_deadwood": 7, "action": "save", "expected_number": 9},
        HTTP_HX_REQUEST="true",
    )
    answer = _normal(saved.content.decode())
    notice = '<p class="notice" role="status">Hand 9 saved: Bob gin 32.</p>'
    assert notice in answer
    settings.PART_CACHE_ENTRIES = 0
    whole = _normal(client.get(reverse("game", args=[game.pk])).content.decode())
    sheet = whole[whole.index('<div id="sheet"') : whole.index('\n<div id="hand-words"')]
    assert answer.replace(notice, "") == f'\n<div id="messages" hx-swap-oob="true"></div>\n\n{sheet}'
    assert f"</p>\n  </div>\n  {notice}\n" in answer  # where game.html writes it: after the sheet's head


def test_a_league_games_kept_sheet_for_each_viewer(settings):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn, cast.guest])
    fixture = season.fixtures.get(home__in=[pat, quinn], away__in=[pat, quinn])
    game = start_and_finish(fixture, pat, started_by=cast.player)
    url = reverse("game", args=[game.pk])
    pages = {}
    for name, user in (("rival", cast.rival), ("player", cast.player), ("outsider", cast.outsider)):
        client = Client()
        client.force_login(user)
        pages[name] = _same_as_drawn_whole(client, settings, url)
    assert "Confirm the result" in pages["rival"]
    assert "Confirm the result" not in pages["player"] and "Confirm the result" not in pages["outsider"]
    league.game_confirm(game=game, confirmed_by=cast.rival)
    client = Client()
    client.force_login(cast.outsider)
    assert "Season closed" not in client.get(url).content.decode()
    # Closing the season moves no game's version, nor anything of the outsider's place: the key holds it.
    league.season_close(season=season, closed_by=cast.owner)
    assert "Season closed" in client.get(url).content.decode()


def test_a_change_made_elsewhere_shows_on_the_next_load(sitting):
    game, client = sitting
    url = reverse("game", args=[game.pk])
    assert "Hand 9" in client.get(url).content.decode()
    # Another process records a hand: the game's version moves, the kept sheet is not shown again.
    services.hand_record(game=game, recorded_by=None, ending="gin", by=game.player_one_id, defender_deadwood=3)
    page = client.get(url).content.decode()
    assert "Hand 10" in page and "Hand 9<" not in page
    # A rename moves no game's version: the names are part of the key.
    Player.objects.filter(pk=game.player_two_id).update(name="Robert")
    page = client.get(url).content.decode()
    assert "Robert" in page and ">Bob<" not in page


def _fresh(client, url: str) -> str:
    """``url`` with nothing written before: no kept sheet, no row or board kept."""
    from django.core.cache import caches

    from scoring.scoresheet import forget_written

    caches["parts"].clear()
    forget_written()
    return _normal(client.get(url).content.decode())


@pytest.mark.parametrize("language", ["en", "de"])
def test_rows_and_boards_written_before_are_what_the_sheet_writes_anew(sitting, language):
    game, client = sitting
    client.cookies["django_language"] = language
    url = reverse("game", args=[game.pk])
    client.get(url)  # every row, board and head written and kept
    # Hand 3 corrected: it and every later row's running totals move, and the boards with them.
    hand = game.hands.get(number=3)
    services.hand_edit(hand=hand, ending="gin", by=game.player_one_id, defender_deadwood=30)
    after_correction = _normal(client.get(url).content.decode())
    assert after_correction == _fresh(client, url)
    # A rename: every row naming the player says the new name.
    client.get(url)
    Player.objects.filter(pk=game.player_two_id).update(name="Robert")
    renamed = _normal(client.get(url).content.decode())
    assert renamed == _fresh(client, url)
    assert "Bob" not in renamed


def test_the_blank_forms_fields_follow_the_entry_and_the_hand_expected(sitting, settings):
    game, client = sitting
    url = reverse("game", args=[game.pk])
    settings.PART_CACHE_ENTRIES = 0
    whole = {query: _normal(client.get(url + query).content.decode()) for query in ("", "?cards=1")}
    settings.PART_CACHE_ENTRIES = 2000  # kept from here on (a setting changed forgets what was written)
    for query in ("", "?cards=1", ""):  # typed, then card by card, then typed again: each its own fields
        assert _normal(client.get(url + query).content.decode()) == whole[query]
    services.hand_record(game=game, recorded_by=None, ending="gin", by=game.player_one_id, defender_deadwood=3)
    assert 'name="expected_number" value="10"' in client.get(url).content.decode()


def test_the_sheets_links_follow_the_game_its_players_and_the_address_prefix(sitting):
    """The sheet's links are reversed once per game and players (scoresheet.sheet_urls): another game, a game whose
    player changed, and the site served under another address prefix each link to their own pages."""
    game, client = sitting
    cy = PlayerFactory(name="Cy")
    other = services.game_create(
        player_one=cy, player_two=game.player_one, first_dealer=cy, rules={}, created_by=game.created_by
    )
    services.hand_record(game=other, recorded_by=None, ending="gin", by=cy, defender_deadwood=3)

    def links(game, prefix: str = "") -> list[str]:
        return [
            f'href="{prefix}{reverse("stats:player", args=[game.player_one_id])}"',
            f'href="{prefix}{reverse("stats:player", args=[game.player_two_id])}"',
            f'action="{prefix}{reverse("hand_submit", args=[game.pk])}"',
            f'hx-post="{prefix}{reverse("hand_submit", args=[game.pk])}"',
            f'action="{prefix}{reverse("hand_undo", args=[game.pk])}"',
            f'href="{prefix}{reverse("game_history", args=[game.pk])}"',
        ]

    expected = {(each.pk, prefix): links(each, prefix) for each in (game, other) for prefix in ("", "/gin")}
    try:
        for prefix in ("", "/gin", ""):
            set_script_prefix(prefix + "/")  # as a server does for a site served under that address
            for each in (game, other):
                page = client.get(f"/games/{each.pk}/").content.decode()
                assert [link for link in expected[each.pk, prefix] if link not in page] == [], (each, prefix)
    finally:
        set_script_prefix("/")
    dee = PlayerFactory(name="Dee")
    Game = type(game)
    Game.objects.filter(pk=other.pk).update(player_two=dee)
    other.refresh_from_db()
    page = client.get(reverse("game", args=[other.pk])).content.decode()
    assert all(link in page for link in links(other)) and reverse("stats:player", args=[dee.pk]) in page


def test_a_saves_answer_with_a_message_waiting_shows_it_as_the_template_writes_it(sitting, settings, rf):
    """A save's htmx answer around a kept body is written from a frame kept per language
    (views._htmx_sheet_frame) when no message waits; with one waiting (left by a page that redirected) it is the
    template's, showing the message once, whether the sheet is kept or drawn whole."""
    from django.contrib.messages import constants
    from django.contrib.messages.storage.base import Message
    from django.contrib.messages.storage.cookie import CookieStorage

    game, client = sitting
    url = reverse("hand_submit", args=[game.pk])
    waiting = CookieStorage(rf.get("/"))._encode([Message(constants.SUCCESS, 'Time called <"soon">')])
    shown = (
        '\n<div id="messages" hx-swap-oob="true"><ul class="messages" role="status">'
        '<li class="success">Time called &lt;&quot;soon&quot;&gt;</li></ul></div>\n\n<div id="sheet"'
    )
    number = 9
    for entries in (2000, 0):
        settings.PART_CACHE_ENTRIES = entries
        for message in (True, False):
            if message:
                client.cookies["messages"] = waiting
            hand = {"ending": "knock", "by": game.player_one_id, "knocker_deadwood": 2, "defender_deadwood": 9}
            answer = client.post(
                url, {**hand, "action": "save", "expected_number": number}, HTTP_HX_REQUEST="true"
            ).content.decode()
            assert f"Hand {number} saved" in answer
            expected = shown if message else '\n<div id="messages" hx-swap-oob="true"></div>\n\n<div id="sheet"'
            assert answer.startswith(expected) and answer.endswith("</div>\n"), (entries, message)
            number += 1


def _answer_is_drawn_whole(client, settings, game, facts: dict, number: int) -> None:
    """A hand saved through the page: its answer, drawn from the kept frame, is the sheet drawn whole and its notice."""
    saved = client.post(
        reverse("hand_submit", args=[game.pk]),
        {**facts, "action": "save", "expected_number": number},
        HTTP_HX_REQUEST="true",
    )
    assert saved.status_code == 200
    answer = _normal(saved.content.decode())
    notice = re.search(r'<p class="notice" role="status">[^<]+</p>', answer).group()
    settings.PART_CACHE_ENTRIES = 0
    whole = _normal(client.get(reverse("game", args=[game.pk])).content.decode())
    settings.PART_CACHE_ENTRIES = 2000
    sheet = whole[whole.index('<div id="sheet"') : whole.index('\n<div id="hand-words"')]
    assert answer.replace(notice, "", 1) == f'\n<div id="messages" hx-swap-oob="true"></div>\n\n{sheet}'


@pytest.mark.parametrize("language", ["en", "de", "pt-br"])
def test_saves_answered_from_one_frame_are_each_the_sheet_drawn_whole(settings, language):
    """The body's frame is drawn once per shape and filled with each version's figures (kept_sheet.framed): every
    answer, as the totals, the dealer, the hand expected, a time call's note and the game's end move, is the sheet
    the template draws whole."""
    user = UserFactory(username="keeper")
    ann, bob = PlayerFactory(name="Ann & <Co>"), PlayerFactory(name='Bob "B"')
    game = services.game_create(player_one=ann, player_two=bob, first_dealer=bob, created_by=user)
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    knock = {"ending": "knock", "knocker_deadwood": 2, "defender_deadwood": 9}
    for number in range(1, 4):  # the first from a frame drawn anew, the next from the same frame
        _answer_is_drawn_whole(client, settings, game, {**knock, "by": ann.pk if number % 2 else bob.pk}, number)
    services.game_call_time(game=game.pk, called_by=user)
    _answer_is_drawn_whole(client, settings, game, {"ending": "gin", "by": ann.pk, "defender_deadwood": 60}, 4)
    game.refresh_from_db()
    assert game.over


# How the sheet's templates may use a value of kept_sheet.HOLES: shown as it is, asked whether it is empty, or handed
# to a translation as it is. The frame is drawn once per shape with a mark in each hole's place, so any other use (a
# filter, a comparison, a loop, a plural chosen by it) would be drawn once and shown stale for later versions.
_SHOWN = re.compile(r"(?P<name>\w+)")
_ASKED = re.compile(r"(?:if|elif)\s+(?P<condition>.+)")
_HANDED = re.compile(r"blocktranslate\s+with\s+(?P<values>(?:\w+=\w+\s*)+)")


def _hole_uses(template_name: str, seen: set[str]) -> list[str]:
    """Each use of a hole in ``template_name`` and the templates it includes that is not one of the three above."""
    if template_name in seen:
        return []
    seen.add(template_name)
    source, _origin = engines["django"].engine.find_template(template_name)
    wrong = []
    for token in Lexer(source.source).tokenize():
        if token.token_type not in (TokenType.VAR, TokenType.BLOCK):
            continue
        if included := re.fullmatch(r'include\s+"([^"]+)".*', token.contents):
            wrong += _hole_uses(included.group(1), seen)
        words = re.sub(r'"[^"]*"|\'[^\']*\'', "", token.contents)  # a literal's words name nothing
        if not {word.split(".")[0] for word in re.findall(r"[\w.]+", words)} & set(kept_sheet.HOLES):
            continue
        shown = token.token_type == TokenType.VAR and _SHOWN.fullmatch(token.contents)
        asked = token.token_type == TokenType.BLOCK and _ASKED.fullmatch(token.contents)
        handed = token.token_type == TokenType.BLOCK and _HANDED.fullmatch(token.contents)
        if shown or handed:
            continue
        if asked and all(
            word in {"and", "or", "not"} or re.fullmatch(r"\w+", word) and word not in {"in", "is"}
            for word in asked["condition"].split()
        ):
            continue
        wrong.append(f"{template_name}:{token.lineno}: {token.contents}")
    return wrong


def test_the_sheets_templates_show_the_frames_holes_only_as_they_are():
    assert _hole_uses("scoring/game.html", set()) == []
