"""The scoresheet's boards, results, table heads and rules, written as plain strings (scoring/scoresheet.py), read
character for character as game.html's template wrote them: a two-handed game played to its end (its scoreboard,
how its final score adds up, the players' columns, every rule) and a Hollywood sitting under way (three boards,
a column per game). Names are escaped wherever they appear."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

STANDARD_BOARD = (
    '<div class="boards boards-1">\n'
    "  \n"
    '    <section class="board closed" aria-label="Score">\n'
    "      \n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Ann &lt;&amp;&gt; &quot;O&#x27;Hara&quot;</span>\n'
    '        <span class="pts">280</span>\n'
    '        <span class="sub">130 in hands · 2 boxes</span>\n'
    "      </div>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Bob</span>\n'
    '        <span class="pts">90</span>\n'
    '        <span class="sub">65 in hands · 1 box</span>\n'
    "      </div>\n"
    "      \n"
    "      \n"
    "    </section>\n"
    "  \n"
    "  </div>"
)
STANDARD_RESULT = (
    "\n"
    '  <section class="game-over" aria-label="Result">\n'
    '    <table class="breakdown">\n'
    "      <caption>how the final score adds up</caption>\n"
    '      <thead><tr><th scope="col"><span class="vh">Part of the score</span></th><th scope="col">'
    'Ann &lt;&amp;&gt; &quot;O&#x27;Hara&quot;</th><th scope="col">Bob</th></tr></thead>\n'
    "      <tbody>\n"
    '      <tr><th scope="row">Hand points</th><td class="num">130</td><td class="num">65</td></tr><tr>'
    '<th scope="row">Boxes: 2 × 25</th><td class="num">50</td><td class="num"></td></tr><tr><th scope="row">'
    'Boxes: 1 × 25</th><td class="num"></td><td class="num">25</td></tr><tr><th scope="row">Game bonus</th>'
    '<td class="num">100</td><td class="num"></td></tr>\n'
    "      </tbody>\n"
    "      <tfoot>\n"
    '        <tr class="final"><th scope="row">Final score</th><td class="num">280</td><td class="num">90</td>'
    "</tr>\n"
    '        <tr><th scope="row">Margin</th><td class="num" colspan="2">190</td></tr>\n'
    "      </tfoot>\n"
    "    </table>\n"
    "  </section>\n"
    "  \n"
    "  \n"
    "  \n"
    ""
)
STANDARD_HEADS = (
    '<th scope="col" class="num">Pts</th>\n'
    '        <th scope="col" class="num run">Ann &lt;&amp;&gt; &quot;O&#x27;Hara&quot;</th>'
    '<th scope="col" class="num run">Bob</th>\n'
    '        <th scope="col" class="fix"><span class="vh">Correct</span></th>\n'
    "      "
)
STANDARD_RULES = (
    '<details class="all-rules"><summary>All rules of this game</summary>\n'
    "    <dl><div><dt>Knock limit</dt><dd>10</dd></div><div><dt>Gin bonus</dt><dd>25</dd></div><div><dt>"
    "Big gin bonus</dt><dd>31</dd></div><div><dt>Undercut bonus</dt><dd>25</dd></div><div><dt>"
    "A tie is an undercut</dt><dd>yes</dd></div><div><dt>Game to</dt><dd>100</dd></div><div><dt>Game bonus</dt>"
    "<dd>100</dd></div><div><dt>Game bonus when time is called</dt><dd>100</dd></div><div><dt>"
    "Box bonus (per hand won)</dt><dd>25</dd></div><div><dt>Line bonus for a big win</dt><dd>off</dd></div>"
    "<div><dt>Big win means winning by at least</dt><dd>50</dd></div><div><dt>Shutout</dt><dd>"
    "adds the shutout bonus</dd></div><div><dt>Shutout bonus</dt><dd>100</dd></div><div><dt>"
    "Oklahoma (upcard sets the knock limit)</dt><dd>no</dd></div><div><dt>Oklahoma ace upcard</dt><dd>"
    "gin only</dd></div><div><dt>Spade upcard doubles the hand</dt><dd>no</dd></div><div><dt>"
    "Spade-doubled hand counts two boxes</dt><dd>no</dd></div><div><dt>Hollywood (three games at once)</dt><dd>"
    "no</dd></div><div><dt>Next dealer</dt><dd>loser of the hand</dd></div></dl>\n"
    "  "
)
HOLLYWOOD_BOARDS = (
    '<div class="boards boards-3">\n'
    "  \n"
    '    <section class="board" aria-label="Game 1">\n'
    "      <h2>Game 1</h2>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Ann &lt;&amp;&gt; &quot;O&#x27;Hara&quot;</span>\n'
    '        <span class="pts">0</span>\n'
    '        <span class="sub">needs 100 · 0 boxes</span>\n'
    "      </div>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Bob</span>\n'
    '        <span class="pts">82</span>\n'
    '        <span class="sub">needs 18 · 3 boxes</span>\n'
    "      </div>\n"
    "      \n"
    "      \n"
    "    </section>\n"
    "  \n"
    '    <section class="board" aria-label="Game 2">\n'
    "      <h2>Game 2</h2>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Ann &lt;&amp;&gt; &quot;O&#x27;Hara&quot;</span>\n'
    '        <span class="pts">0</span>\n'
    '        <span class="sub">needs 100 · 0 boxes</span>\n'
    "      </div>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Bob</span>\n'
    '        <span class="pts">54</span>\n'
    '        <span class="sub">needs 46 · 2 boxes</span>\n'
    "      </div>\n"
    "      \n"
    "      \n"
    "    </section>\n"
    "  \n"
    '    <section class="board" aria-label="Game 3">\n'
    "      <h2>Game 3</h2>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Ann &lt;&amp;&gt; &quot;O&#x27;Hara&quot;</span>\n'
    '        <span class="pts">0</span>\n'
    '        <span class="sub">needs 100 · 0 boxes</span>\n'
    "      </div>\n"
    "      \n"
    '      <div class="line">\n'
    '        <span class="who">Bob</span>\n'
    '        <span class="pts">28</span>\n'
    '        <span class="sub">needs 72 · 1 box</span>\n'
    "      </div>\n"
    "      \n"
    "      \n"
    "    </section>\n"
    "  \n"
    "  </div>"
)
HOLLYWOOD_HEADS = (
    '<th scope="col" class="num">Pts</th>\n'
    '        <th scope="col" class="num run g1">G1<span class="vh"> (game 1)</span></th>'
    '<th scope="col" class="num run g2">G2<span class="vh"> (game 2)</span></th>'
    '<th scope="col" class="num run g3">G3<span class="vh"> (game 3)</span></th>\n'
    "        \n"
    '        <th scope="col" class="fix"><span class="vh">Correct</span></th>\n'
    "      "
)


@pytest.fixture
def table():
    from scoring import services

    user = UserFactory(username="keeper")
    ann, bob = PlayerFactory(name='Ann <&> "O\'Hara"'), PlayerFactory(name="Bob")
    client = Client()
    client.force_login(user)

    def game(preset):
        return services.game_create(
            player_one=ann, player_two=bob, first_dealer=bob, rules={"preset": preset}, created_by=user
        )

    return user, ann, bob, client, game


def test_a_finished_two_handed_game(table):
    from scoring import services

    user, ann, bob, client, new_game = table
    game = new_game("standard")
    number = 0
    while not game.over:
        services.hand_record(
            game=game, recorded_by=user, ending="gin", by=ann if number % 3 else bob, defender_deadwood=40
        )
        game.refresh_from_db()
        number += 1
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    for part in (STANDARD_BOARD, STANDARD_RESULT, STANDARD_HEADS, STANDARD_RULES):
        assert part in page


def test_a_hollywood_sitting_under_way(table):
    from scoring import services

    user, ann, bob, client, new_game = table
    game = new_game("hollywood")
    for number in range(3):
        services.hand_record(
            game=game,
            recorded_by=user,
            ending="knock",
            by=ann if number % 2 else bob,
            knocker_deadwood=2,
            defender_deadwood=1 if number == 1 else 30,
        )
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    for part in (HOLLYWOOD_BOARDS, HOLLYWOOD_HEADS):
        assert part in page
