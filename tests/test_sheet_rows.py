"""The scoresheet's hand rows, written as plain strings (scoring/scoresheet.py), read character for character
as the rows the template engine and format_html wrote: names escaped wherever they appear, the undercut's
words as HTML, Hollywood's scorer cut to four letters before escaping, the edit link only for an editor."""

from __future__ import annotations

import pytest
from django.utils import translation

from scoring import services
from scoring.scoresheet import forget_written, sheet_rows
from scoring.selectors import game_for_sheet, game_session
from tests.factories import PlayerFactory, make_game

pytestmark = pytest.mark.django_db


def rows_of(game, *, editable=True, hidden=0, language="en"):
    game = game_for_sheet(pk=game.pk)
    hands, session = game_session(game, game.rule_set)
    with translation.override(language):
        return [str(row) for row in sheet_rows(game, hands, session, editable=editable, hidden=hidden)]


def test_names_are_escaped_and_the_undercut_is_html():
    ann, bob = PlayerFactory(name="A<b>&\"x'y"), PlayerFactory(name="Bob & Co")
    knock = {"ending": "knock", "by": ann, "knocker_deadwood": 5, "defender_deadwood": 9}
    undercut = {"ending": "knock", "by": bob, "knocker_deadwood": 8, "defender_deadwood": 3}
    game = make_game(
        player_one=ann,
        player_two=bob,
        hands=[knock, undercut, {"ending": "dead"}, {"ending": "gin", "by": ann, "defender_deadwood": 7}],
    )
    url = f"/games/{game.pk}/hands/"
    assert rows_of(game) == [
        '<tr class="knock"><td class="num">1</td><td class="what">A&lt;b&gt;&amp;&quot;x&#x27;y knock'
        '<span class="meta">deadwood 5 v 9 · Bob &amp; Co dealt</span></td><td class="num pts">4</td>'
        '<td class="num run scored">4</td><td class="num run">0</td>'
        f'<td class="fix"><a href="{url}1/edit/" aria-label="Edit hand 1">Edit</a></td></tr>',
        '<tr class="undercut"><td class="num">2</td><td class="what">Bob &amp; Co knock, <strong>undercut</strong> '
        'by A&lt;b&gt;&amp;&quot;x&#x27;y<span class="meta">deadwood 8 v 3 · Bob &amp; Co dealt</span>'
        '</td><td class="num pts">30</td><td class="num run scored">34</td><td class="num run">0</td>'
        f'<td class="fix"><a href="{url}2/edit/" aria-label="Edit hand 2">Edit</a></td></tr>',
        '<tr class="dead"><td class="num">3</td><td class="what">Dead hand<span class="meta">Bob &amp; Co dealt'
        '</span></td><td class="num pts"></td><td class="num run">34</td><td class="num run">0</td>'
        f'<td class="fix"><a href="{url}3/edit/" aria-label="Edit hand 3">Edit</a></td></tr>',
        '<tr class="gin"><td class="num">4</td><td class="what">A&lt;b&gt;&amp;&quot;x&#x27;y gin'
        '<span class="meta">deadwood 0 v 7 · Bob &amp; Co dealt</span></td><td class="num pts">32</td>'
        '<td class="num run scored">66</td><td class="num run">0</td>'
        f'<td class="fix"><a href="{url}4/edit/" aria-label="Edit hand 4">Edit</a></td></tr>',
    ]


def test_a_spade_upcard_doubles_and_a_viewer_gets_no_edit_link():
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    knock = {"ending": "knock", "by": bob, "knocker_deadwood": 2, "defender_deadwood": 9, "upcard": "2S"}
    game = make_game(rules={"preset": "oklahoma"}, player_one=ann, player_two=bob, hands=[knock])
    assert rows_of(game, editable=False) == [
        '<tr class="knock"><td class="num">1</td><td class="what">Bob knock<span class="meta">deadwood 2 v 9 · '
        'up 2♠ · Bob dealt</span></td><td class="num pts">14 <span class="x2">×2</span></td>'
        '<td class="num run">0</td><td class="num run scored">14</td></tr>'
    ]


def test_hollywood_names_the_scorer_by_four_letters_cut_before_escaping():
    ann, bob = PlayerFactory(name="A&B<cdef"), PlayerFactory(name="Bob")
    game = make_game(
        rules={"preset": "hollywood"},
        player_one=ann,
        player_two=bob,
        hands=[{"ending": "gin", "by": ann, "defender_deadwood": 4}, {"ending": "dead"}],
    )
    run = '<td class="num run"><span class="run-who">A&amp;B&lt;</span> 29</td>'
    assert rows_of(game, editable=False) == [
        f'<tr class="gin"><td class="num">1</td><td class="what">A&amp;B&lt;cdef gin<span class="meta">'
        f'deadwood 0 v 4 · Bob dealt</span></td><td class="num pts">29</td>{run}'
        '<td class="num run"></td><td class="num run"></td></tr>',
        '<tr class="dead"><td class="num">2</td><td class="what">Dead hand<span class="meta">Bob dealt'
        '</span></td><td class="num pts"></td><td class="num run"></td><td class="num run"></td>'
        '<td class="num run"></td></tr>',
    ]


def test_rows_speak_the_page_language_and_skip_the_hidden_hands():
    ann, bob = PlayerFactory(name="Anna"), PlayerFactory(name="Ben")
    hands = [{"ending": "knock", "by": ann, "knocker_deadwood": 3, "defender_deadwood": 10}] * 3
    game = make_game(player_one=ann, player_two=bob, hands=hands)
    rows = rows_of(game, hidden=2, language="de")
    assert len(rows) == 1 and rows[0].startswith('<tr class="knock"><td class="num">3</td>')
    assert "Anna hat geklopft" in rows[0] and 'aria-label="Spiel 3 bearbeiten"' in rows[0]


def test_a_corrected_early_hand_rewrites_every_later_row_as_a_sheet_written_afresh():
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    knock = {"ending": "knock", "by": ann, "knocker_deadwood": 3, "defender_deadwood": 10}
    game = make_game(player_one=ann, player_two=bob, hands=[knock, {"ending": "dead"}, knock, knock])
    before = rows_of(game)  # kept: the chain of the sheet's rows
    hand = game.hands.get(number=1)
    services.hand_edit(hand=hand, ending="gin", by=bob.pk, defender_deadwood=20)
    after = rows_of(game)
    forget_written()
    assert after == rows_of(game)  # every later row's totals moved with the correction, none kept stale
    assert after[1:] != before[1:] and '<td class="num run scored">45</td>' in after[0]
    assert rows_of(game, hidden=3) == after[3:]  # the hidden hands' links lead to the shown rows' own
