"""Hand history: filters (with field errors), paging, links to games, private clubs."""

import datetime
import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse
from django.utils import timezone

from scoring.league import services as league
from scoring.models import Hand, SeasonFormat
from scoring.stats.history import HandFilterForm, hand_history, page_of
from tests.league_setup import make_club, play
from tests.test_stats import worked_example

pytestmark = pytest.mark.django_db


@pytest.fixture
def abc():
    """Ann, Bob and Cy's games (see tests/test_stats.py)."""
    return worked_example()


ANON = AnonymousUser()


def numbers(hands):
    return sorted((hand.game_id, hand.number) for hand in hands)


def test_every_hand_of_the_player_newest_game_first(abc):
    hands = list(hand_history(viewer=ANON, player=abc["ann"]))
    assert len(hands) == 9
    assert (hands[0].game_id, hands[0].number) == (abc["g4"].pk, 1)
    assert [hand.game_id for hand in hands] == sorted((hand.game_id for hand in hands), reverse=True)


def test_filters_narrow_the_hands(abc):
    ann, cy = abc["ann"], abc["cy"]
    g1, g2, g3, g4 = abc["g1"].pk, abc["g2"].pk, abc["g3"].pk, abc["g4"].pk
    assert numbers(hand_history(viewer=ANON, player=ann, opponent=cy)) == [(g3, 1), (g3, 2), (g3, 3), (g4, 1)]
    assert numbers(hand_history(viewer=ANON, player=ann, result="undercut")) == [(g1, 2), (g3, 1)]
    assert numbers(hand_history(viewer=ANON, player=ann, points_min=80)) == sorted([(g1, 3), (g2, 2), (g3, 2)])
    assert numbers(hand_history(viewer=ANON, player=ann, points_min=80, points_max=90)) == [(g1, 3), (g3, 2)]
    assert numbers(hand_history(viewer=ANON, player=ann, result="dead")) == [(g2, 1)]
    # Dates: move G2's hands to last week.
    Hand.objects.filter(game=abc["g2"]).update(created_at=timezone.now() - datetime.timedelta(days=7))
    today = timezone.localdate()
    assert len(hand_history(viewer=ANON, player=ann, date_from=today)) == 7
    last_week = today - datetime.timedelta(days=7)
    assert numbers(hand_history(viewer=ANON, player=ann, date_from=last_week, date_to=last_week)) == [
        (g2, 1),
        (g2, 2),
    ]


def test_paging_fetches_one_more_row_to_know_a_next_page_exists(abc):
    hands = hand_history(viewer=ANON, player=abc["ann"])
    first, more = page_of(hands, 1, size=4)
    last, no_more = page_of(hands, 3, size=4)
    assert len(first) == 4 and more
    assert len(last) == 1 and not no_more


def test_the_page_filters_links_each_hand_to_its_game_and_pages(client, abc):
    url = reverse("stats:player_hands", args=[abc["ann"].pk])
    response = client.get(url, {"opponent": abc["cy"].pk, "ending": "knock"})
    assert response.status_code == 200
    text = response.content.decode()
    assert text.count('<td class="result">') == 2  # G3 hands 2 and 3
    assert reverse("game", args=[abc["g3"].pk]) in text
    assert "Older" not in text


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"points_min": "50", "points_max": "10"}, "points_max", "Points to must be at least points from."),
        ({"date_from": "2025-05-02", "date_to": "2025-05-01"}, "date_to", "To date must be on or after the from date."),
        ({"points_min": "lots"}, "points_min", "Enter a whole number."),
        ({"points_min": "-3"}, "points_min", "Ensure this value is greater than or equal to 0."),
        ({"date_from": "yesterday"}, "date_from", "Enter a valid date."),
        ({"ending": "fold"}, "ending", "Select a valid choice."),
    ],
)
def test_bad_filters_get_a_message_on_their_field(client, abc, data, field, message):
    form = HandFilterForm(data, player=abc["ann"], viewer=ANON)
    assert not form.is_valid()
    assert any(message in error for error in form.errors[field])
    response = client.get(reverse("stats:player_hands", args=[abc["ann"].pk]), data)
    assert response.status_code == 400
    assert f'id="id_{field}-error"' in response.content.decode()


def test_private_club_hands_only_for_members(client):
    cast = make_club(name="Hidden Gin", is_public=False)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(
        club=cast.club, name="Winter", players=[pat, quinn], format=SeasonFormat.OPEN, created_by=cast.owner
    )
    play(league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.player), pat)
    assert len(hand_history(viewer=cast.rival, player=pat)) == 1
    assert len(hand_history(viewer=cast.outsider, player=pat)) == 0
    assert len(hand_history(viewer=ANON, club=cast.club)) == 0

    url = reverse("stats:club_hands", args=[cast.club.slug])
    assert client.get(url).status_code == 404
    client.force_login(cast.outsider)
    assert client.get(url).status_code == 404
    client.force_login(cast.rival)
    response = client.get(url)
    assert response.status_code == 200 and 'class="result"' in response.content.decode()
    client.force_login(cast.outsider)
    text = client.get(reverse("stats:player_hands", args=[pat.pk])).content.decode()
    assert "No hands match." in text


def test_club_history_filters_by_member(client):
    cast = make_club(name="Filter Gin")
    pat, quinn, gus = cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest
    season = league.season_create(
        club=cast.club, name="Open", players=[pat, quinn, gus], format=SeasonFormat.OPEN, created_by=cast.owner
    )
    play(league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.player), pat)
    play(league.open_game_start(season=season, player_one=quinn, player_two=gus, started_by=cast.player), gus)
    assert len(hand_history(viewer=ANON, club=cast.club)) == 2
    only_gus = hand_history(viewer=ANON, club=cast.club, opponent=gus)
    assert [hand.winner_id for hand in only_gus] == [gus.pk]
    response = client.get(reverse("stats:club_hands", args=[cast.club.slug]), {"opponent": gus.pk})
    assert response.content.decode().count('<td class="result">') == 1


@pytest.mark.parametrize("scope", ["player", "club"])
def test_the_filter_selects_are_written_as_django_writes_a_select(abc, scope):
    """The opponents' and seasons' <select>s, read as rows and written in Python (QuickSelect), are the
    HTML of Django's own Select over the same choices (but the white space between the tags): every option,
    the chosen one selected, names escaped."""
    from django import forms

    from players.models import Club, Membership, Player, Role

    Player.objects.filter(pk=abc["bob"].pk).update(name='Bob <b> & "Co"')
    club = make_club(name="History Club").club
    Membership.objects.bulk_create(
        [Membership(club=club, player=abc[name], role=Role.PLAYER) for name in ("ann", "bob")]
    )
    season = league.season_create(
        club=club, name="Spring & <Summer>", players=[abc["ann"], abc["bob"]], format=SeasonFormat.OPEN,
        created_by=club.created_by,
    )  # fmt: skip
    Club.objects.filter(pk=club.pk).update(is_public=True)
    kwargs = {"player": abc["ann"]} if scope == "player" else {"club": club}
    data = {"opponent": str(abc["bob"].pk), "season": str(season.pk)}
    form = HandFilterForm(data, viewer=ANON, **kwargs)
    assert form.is_valid(), form.errors
    for name in ("opponent", "season"):
        field = form.fields[name]
        stock = forms.ModelChoiceField(queryset=field.queryset, required=False, empty_label=field.empty_label)
        if name == "season":
            stock.label_from_instance = lambda season: f"{season.club.name}: {season.name}"
        written = str(form[name])
        attrs = form[name].build_widget_attrs({"id": form[name].auto_id})
        assert written == re.sub(r">\s+<", "><", stock.widget.render(name, form[name].value(), attrs=attrs))
        assert written.count("<option") == field.queryset.count() + 1 and written.count(" selected") == 1
    assert "Bob &lt;b&gt; &amp; &quot;Co&quot;" in str(form["opponent"])
    assert "History Club: Spring &amp; &lt;Summer&gt;" in str(form["season"])


# The history's rows as templates/stats/history.html wrote them before issue 40: the reference of
# scoring/stats/history_html.py, which writes them in Python.
HISTORY_LOOP = """{% load i18n %}{% for hand in hands %}
  <tr>
    <td><a href="{% url 'game' hand.game_id %}">{% if hand.board %}{% blocktranslate with one=hand.game.player_one.name two=hand.game.player_two.name three=hand.game.player_three.name four=hand.game.player_four.name board=hand.board %}{{ one }} & {{ three }} v {{ two }} & {{ four }}, board {{ board }}{% endblocktranslate %}{% else %}{% blocktranslate with one=hand.game.player_one.name two=hand.game.player_two.name %}{{ one }} v {{ two }}{% endblocktranslate %}{% endif %}</a>{% if hand.game.season %} <span class="help">{{ hand.game.season.name }}</span>{% endif %}</td>
    <td>{{ hand.created_at|date:"SHORT_DATE_FORMAT" }}</td>
    <td class="num">{{ hand.number }}</td>
    <td>{% include "stats/_hand_words.html" %}</td>
    <td class="result">{% if hand.winner %}{% url 'stats:player' hand.winner_id as winner_url %}{% blocktranslate with result=hand.get_result_display name=hand.winner.name %}{{ result }} to <a href="{{ winner_url }}">{{ name }}</a>{% endblocktranslate %}{% else %}{{ hand.get_result_display }}{% endif %}</td>
    <td class="num">{{ hand.points }}</td>
  </tr>
  {% endfor %}"""  # noqa: E501 - the template as it was


def test_the_rows_are_written_as_the_template_wrote_them_in_every_language(abc):
    """Knocks, undercuts, gins, a dead hand, a league game's season, a partnership game's boards; names that
    need escaping."""
    from django.conf import settings
    from django.template import engines
    from django.utils import translation

    from players.models import Player
    from scoring import services
    from scoring.stats.history_html import hand_rows_html
    from tests.factories import PlayerFactory, make_game

    ann, bob = abc["ann"], abc["bob"]
    Player.objects.filter(pk=bob.pk).update(name='Bob <b> & "Co"')
    make_game(player_one=ann, player_two=bob, hands=[{"ending": "dead"}, {"ending": "knock", "by": bob.pk,
              "knocker_deadwood": 3, "defender_deadwood": 9}])  # fmt: skip
    cast = make_club(name="Rows & <Club>")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(
        club=cast.club, name="Spring <&> 'Summer'", players=[pat, quinn], format=SeasonFormat.OPEN,
        created_by=cast.owner,
    )  # fmt: skip
    play(league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=None), pat)
    cat, dan = PlayerFactory(name="Cat"), PlayerFactory(name="Dan <i>")
    four = services.game_create(player_one=ann, player_two=bob, player_three=cat, player_four=dan,
                                first_dealer=bob, rules={"preset": "partnership"})  # fmt: skip
    services.board_record(game=four, board=1, ending="gin", by=ann, defender_deadwood=20)
    services.board_record(game=four, board=2, ending="dead")
    pages = [page_of(hand_history(viewer=ANON, player=player), 1)[0] for player in (ann, pat, dan)]
    pages.append(page_of(hand_history(viewer=ANON, club=cast.club), 1)[0])
    assert {hand.ending for hands in pages for hand in hands} >= {"knock", "gin", "dead"}
    assert any(hand.result == "undercut" for hand in pages[0]) and any(hand.board for hand in pages[2])
    for language in [code for code, _name in settings.LANGUAGES]:
        with translation.override(language):
            for hands in pages:
                reference = engines["django"].from_string(HISTORY_LOOP).render({"hands": hands})
                assert hand_rows_html(hands) == reference, language
