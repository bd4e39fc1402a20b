"""How each shipped language says a hand, a date and a count (issue 37, item 5): the hand rows follow the
glossaries ("Anna hat geklopft", "Ana cerró", "Anna a frappé", "Ana bateu"), Brazilian dates keep month
names in lower case, "0 caixas" is plural, and "x" is Brazilian Portuguese's one word for versus."""

from __future__ import annotations

import datetime
import html
import json
import re

import pytest
from django.test import Client
from django.utils import formats, translation

from scoring.audit import hand_summary
from scoring.scoresheet import hand_row_words
from tests.factories import PlayerFactory, UserFactory, make_game

# Rows of the scoresheet (and of the player's page) for: Ann knocks, Bob goes gin, Ann is undercut by Bob.
ROWS = {
    "en": ("Ann knock", "Bob gin", "Ann knock, undercut by Bob"),
    "de": ("Ann hat geklopft", "Bob hat Gin gemacht", "Ann hat geklopft, von Bob unterboten"),
    "es": ("Ann cerró", "Bob hizo gin", "Ann cerró, contracierre de Bob"),
    "fr": ("Ann a frappé", "Bob a fait gin", "Ann a frappé, contre de Bob"),
    "pt-br": ("Ann bateu", "Bob bateu de gin", "Ann bateu, contra-batida de Bob"),
}


def _texts(page: str, pattern: str) -> list[str]:
    return [
        re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", text))).strip()
        for text in re.findall(pattern, page, re.S)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("language", list(ROWS))
def test_hand_rows_follow_the_glossary_on_the_sheet_offline_and_on_the_players_page(language):
    knock, gin, undercut = ROWS[language]
    ann_account = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    game = make_game(
        created_by=ann_account,
        player_one=ann,
        player_two=bob,
        hands=[
            {"ending": "knock", "by": ann, "knocker_deadwood": 5, "defender_deadwood": 20},
            {"ending": "gin", "by": bob, "defender_deadwood": 10},
            {"ending": "knock", "by": ann, "knocker_deadwood": 8, "defender_deadwood": 6},
        ],
    )
    client = Client(headers={"accept-language": language})
    client.force_login(ann_account)
    sheet = client.get(f"/games/{game.pk}/").content.decode()
    rows = _texts(sheet, r'<td class="what">(.*?)</td>')
    assert [row for row in rows if row.startswith(undercut)], rows
    assert [row for row in rows if row.startswith(gin)], rows
    assert [row for row in rows if row.startswith(knock) and not row.startswith(undercut)], rows
    # The offline sheet says them with the same words (it reads these from the page).
    with translation.override(language):
        words = hand_row_words()
    offline = [words["went_out"].format(by="Bob", ending=words["endings"]["gin"])]
    assert offline == [gin] and json.dumps(words["endings"]["knock"]) in html.unescape(sheet)
    player = _texts(client.get(f"/players/{ann.pk}/").content.decode(), r"<td>\s*(<a href=\"/players/\d+/\">.*?)</td>")
    assert knock in player and undercut in player, player


def test_brazilian_dates_keep_month_names_in_lower_case():
    day = datetime.date(2026, 11, 27)
    with translation.override("pt-br"):
        assert formats.date_format(day) == "27 de novembro de 2026"
        assert formats.date_format(datetime.date(2026, 3, 5), "YEAR_MONTH_FORMAT") == "março de 2026"
    with translation.override("de"):
        assert formats.date_format(day) == "27. November 2026"
    with translation.override("es"):
        assert formats.date_format(day) == "27 de noviembre de 2026"


@pytest.mark.django_db
def test_a_brazilian_board_with_no_boxes_says_0_caixas(client):
    game = make_game()
    page = client.get(f"/games/{game.pk}/", headers={"accept-language": "pt-br"}).content.decode()
    assert "0 caixas" in page and "0 caixa<" not in page and "0 caixa " not in page


def test_brazilian_portuguese_says_versus_as_x_in_a_hands_facts():
    words = {"ending": "Batida", "by": "Ann", "knocker_deadwood": "3", "defender_deadwood": "20", "upcard": ""}
    with translation.override("pt-br"):
        summary = hand_summary(words)
    assert " x 20" in summary and "contra" not in summary, summary


@pytest.mark.django_db
def test_a_history_time_carries_its_instant_and_says_its_zone_without_javascript():
    account = UserFactory(username="ann")
    game = make_game(created_by=account, hands=[{"ending": "dead"}])
    from scoring import services

    services.hand_remove_last(game=game, removed_by=account, reason="Entered twice")
    entry = game.fact_changes.get()
    client = Client(headers={"accept-language": "pt-br"})
    page = client.get(f"/games/{game.pk}/history/").content.decode()
    instant = entry.at.astimezone(datetime.UTC)
    shown = re.search(r'<time datetime="([^"]+)" data-local>([^<]+)</time>', page)
    assert shown, page
    assert datetime.datetime.fromisoformat(shown[1]) == instant.replace(microsecond=0)
    assert shown[2] == f"{formats_date(instant)} UTC"


def formats_date(instant: datetime.datetime) -> str:
    with translation.override("pt-br"):
        return f"{formats.date_format(instant, 'DATE_FORMAT')} {formats.time_format(instant, 'TIME_FORMAT')}"
