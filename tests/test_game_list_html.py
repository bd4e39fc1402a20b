"""The list of games, written in Python (scoring/game_list_html.py), reads character for character as the
template engine wrote it: templates/scoring/_game_list.html as it was before issue 40 is kept here as the
reference. The home page's own games (read as rows), all games (models) and a player's page, with games of two
open, Hollywood, won, level, and partnership games open and won by either side, names that need escaping, a list
with nothing in it, in every language of the site."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.template import engines
from django.urls import reverse
from django.utils import translation

from players.models import Player
from scoring import services
from scoring.models import Game
from scoring.selectors import game_list
from tests.factories import PlayerFactory, UserFactory, make_game

pytestmark = pytest.mark.django_db

REFERENCE = """{% load i18n %}<ul class="game-list">
{% for game in games %}
  <li class="{% if game.over %}done{% else %}open{% endif %}">
  {% if game.player_three_id %}{# partnership gin: two sides, named by their players; winner is the side's first-seated player #}
    {% blocktranslate with one=game.player_one.name two=game.player_three.name asvar side_one %}{{ one }} & {{ two }}{% endblocktranslate %}
    {% blocktranslate with one=game.player_two.name two=game.player_four.name asvar side_two %}{{ one }} & {{ two }}{% endblocktranslate %}
    <a href="{% url 'game' game.pk %}"><strong>{% blocktranslate with one=side_one two=side_two %}{{ one }} v {{ two }}{% endblocktranslate %}</strong></a>
    <span class="meta">{{ game.created_at|date:"DATE_FORMAT" }} · {% if game.over %}{% if game.winner_id == game.player_one_id %}{% blocktranslate with side=side_one margin=game.margin %}{{ side }} win by {{ margin }}{% endblocktranslate %}{% else %}{% blocktranslate with side=side_two margin=game.margin %}{{ side }} win by {{ margin }}{% endblocktranslate %}{% endif %}{% else %}{% blocktranslate count counter=game.hand_count trimmed %}in progress, {{ counter }} board{% plural %}in progress, {{ counter }} boards{% endblocktranslate %}{% endif %}</span>
  {% else %}
    <a href="{% url 'game' game.pk %}"><strong>{% blocktranslate with one=game.player_one.name two=game.player_two.name %}{{ one }} v {{ two }}{% endblocktranslate %}</strong></a>
    <span class="meta">{{ game.created_at|date:"DATE_FORMAT" }} · {% if game.rules.hollywood %}{% translate "Hollywood" context "gin scoring: three games at once" %} · {% endif %}{% if game.over %}{% if game.winner %}{% blocktranslate with name=game.winner.name margin=game.margin %}{{ name }} won by {{ margin }}{% endblocktranslate %}{% else %}{% translate "level" context "a game ended with equal scores" %}{% endif %}{% else %}{% blocktranslate count counter=game.hand_count trimmed %}in progress, {{ counter }} hand{% plural %}in progress, {{ counter }} hands{% endblocktranslate %}{% if game.next_dealer %}, {% blocktranslate with name=game.next_dealer.name %}{{ name }} deals{% endblocktranslate %}{% endif %}{% endif %}</span>
  {% endif %}
  </li>
{% empty %}
  <li>{% translate "No games yet." %}</li>
{% endfor %}
</ul>
"""  # noqa: E501 - the template as it was
LANGUAGES = [code for code, _name in settings.LANGUAGES]


def the_list(page) -> str:
    html = page.content.decode()
    start = html.index('<ul class="game-list">')
    return html[start : html.index("</ul>", start) + len("</ul>\n")]


def as_the_template_wrote_it(games, language: str) -> str:
    with translation.override(language):
        return engines["django"].from_string(REFERENCE).render({"games": games})


@pytest.fixture
def games_of_every_kind():
    """A signed-in member's games: each state a list tells apart, players whose names need escaping."""
    user = UserFactory(username="member")
    me = PlayerFactory(name="O'Brien & <b>Me</b>")
    Player.objects.filter(pk=me.pk).update(user=user)
    bob, cat, dan = PlayerFactory(name='Bob "the hand"'), PlayerFactory(name="Cat"), PlayerFactory(name="Dan")
    knock = {"ending": "knock", "knocker_deadwood": 2, "defender_deadwood": 20}
    make_game(player_one=me, player_two=bob, created_by=user, hands=[{**knock, "by": me}])  # open, one hand
    make_game(player_one=bob, player_two=me, rules={"preset": "hollywood"})  # open, no hand: nobody has dealt
    won = make_game(player_one=me, player_two=cat, created_by=user)
    Game.objects.filter(pk=won.pk).update(over=True, winner=cat, margin=123, hand_count=7, next_dealer=None)
    level = make_game(player_one=dan, player_two=me, rules={"preset": "hollywood"})
    Game.objects.filter(pk=level.pk).update(over=True, winner=None, margin=0, hand_count=12)
    partnerships = [
        services.game_create(
            player_one=one, player_two=two, player_three=three, player_four=four, first_dealer=two,
            rules={"preset": "partnership"}, created_by=user,
        )
        for one, two, three, four in ((me, bob, cat, dan), (bob, me, dan, cat), (cat, dan, me, bob))
    ]  # fmt: skip
    Game.objects.filter(pk=partnerships[1].pk).update(over=True, winner=bob, margin=40)  # side one won
    Game.objects.filter(pk=partnerships[2].pk).update(over=True, winner=dan, margin=9, hand_count=1)  # side two
    # Days that differ by time zone and language: the first game near midnight, another a month back.
    first = Game.objects.order_by("pk").first()
    midnight = datetime.datetime(2026, 3, 1, 23, 59, 30, tzinfo=datetime.UTC)
    Game.objects.filter(pk=first.pk).update(created_at=midnight)
    Game.objects.filter(pk=won.pk).update(created_at=midnight - datetime.timedelta(days=31))
    return user, me


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lists_are_what_the_template_wrote(client, games_of_every_kind, language):
    user, me = games_of_every_kind
    client.force_login(user)
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    own = client.get(reverse("home"), **headers)
    every = client.get(reverse("home") + "?show=all", **headers)
    player = client.get(reverse("stats:player", args=[me.pk]), **headers)
    assert own.status_code == every.status_code == player.status_code == 200
    assert the_list(own).count("<li") == 7
    expected_own = as_the_template_wrote_it(list(game_list(viewer=user, of_user=user)[:50]), language)
    assert the_list(own) == expected_own
    assert the_list(every) == as_the_template_wrote_it(list(game_list(viewer=user)[:50]), language)
    assert the_list(player) == as_the_template_wrote_it(player.context["games"], language)


@pytest.mark.parametrize("language", ["en-gb", "de"])
def test_an_empty_list_is_what_the_template_wrote(client, language):
    client.force_login(UserFactory(username="newcomer"))
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE=language)
    assert the_list(page) == as_the_template_wrote_it([], language)
    assert "<li>" in the_list(page)
