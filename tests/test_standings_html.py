"""The season page's standings rows, written in Python (scoring/league/standings_html.py), are the text the
template's loop wrote, in every language."""

import pytest
from django.conf import settings
from django.template import engines
from django.utils import translation

from scoring.league.standings import Row, rank
from scoring.league.standings_html import standings_rows_html

# The standings' rows as templates/league/season_detail.html wrote them before issue 40: the reference of
# scoring/league/standings_html.py, which writes them in Python.
STANDINGS_LOOP = """{% load i18n l10n %}{% localize off %}{% for row in standings.rows %}
      <tr data-player="{{ row.name }}">
        <td class="num pos">{% if row.tied %}={% endif %}{{ row.position }}</td>
        <th scope="row"><a href="{% url 'stats:player' row.player_id %}">{{ row.name }}</a></th>
        {% if season.format == "swiss" %}<td class="num match-points" data-label="{% translate "Match points" %}">{{ row.match_points }}</td>
        <td class="num buchholz" data-label="{% translate "Buchholz" %}">{{ row.buchholz }}</td>{% endif %}
        <td class="num" data-label="{% translate "Played" %}">{{ row.played }}</td>
        <td class="num won" data-label="{% translate "Won" %}">{{ row.won }}</td>
        <td class="num" data-label="{% translate "Lost" %}">{{ row.lost }}</td>
        <td class="num net" data-label="{% translate "Net" context "abbreviation: net points" %}">{{ row.net }}</td>
        <td class="num" data-label="{% translate "Average margin" %}">{{ row.avg_margin|floatformat:1 }}</td>
        <td class="num" data-label="{% translate "Hands won" %}">{{ row.hands_won }}</td>
        <td class="num" data-label="{% translate "Gins" context "column: gin hands" %}">{{ row.gins }}</td>
        <td class="num" data-label="{% translate "Undercuts given" %}">{{ row.undercuts_given }}</td>
        <td class="num" data-label="{% translate "Undercuts received" %}">{{ row.undercuts_received }}</td>
        <td class="decided" data-label="{% translate "Decided by" %}">{{ row.ahead_by_words }}</td>
      </tr>
    {% endfor %}{% endlocalize %}"""  # noqa: E501 - the template as it was


def ranked_rows():
    """Players ahead on wins, on net points, on head-to-head, two level, and one who never played; averages
    that round half up and below zero; names that need escaping; figures in the thousands."""
    rows = [
        Row(1, 'Ann <b> & "Co"', played=4, won=3, lost=1, net=250, hands_won=30, gins=4),
        Row(2, "Bob O'Neil", played=4, won=2, lost=2, net=10, hands_won=21, undercuts_given=1),
        Row(3, "Cy", played=4, won=2, lost=2, net=-10, undercuts_received=2),
        Row(4, "Di", played=40, won=1, lost=39, net=-1, hands_won=1234),
        Row(5, "Ed", played=40, won=1, lost=39, net=-1, hands_won=1234),
        Row(6, "Flo"),
        Row(7, "Gus", played=8, won=0, lost=8, net=-2020, match_points=3, buchholz=12),
    ]
    for row in rows:
        row.match_points = row.match_points or row.won
        row.buchholz = row.buchholz or row.won * 2
    return rank(rows, ["wins", "net"])


@pytest.mark.parametrize("swiss", [False, True])
def test_the_rows_are_written_as_the_template_wrote_them_in_every_language(swiss):
    rows = ranked_rows()
    assert [row.ahead_by for row in rows][:2] == ["wins", "net"] and any(row.level_with_next for row in rows)
    standings = {"rows": rows}
    season = {"format": "swiss" if swiss else "single"}
    for language in [code for code, _name in settings.LANGUAGES]:
        with translation.override(language):
            reference = engines["django"].from_string(STANDINGS_LOOP).render({"standings": standings, "season": season})
            assert standings_rows_html(rows, swiss=swiss) == reference, language
    assert 'data-player="Ann &lt;b&gt; &amp; &quot;Co&quot;"' in reference and "O&#x27;Neil" in reference
    assert ">=4<" in reference  # Di and Ed share fourth place
