"""A season's standings rows, written in Python (issue 40).

templates/league/season_detail.html's loop wrote each player's row through eleven ``{% translate %}`` labels,
a ``{% url %}`` and fourteen ``{{ }}``: at 400 players, most of the season page's first view after a result
changes (the standings are rendered again then, ~200 ms of it at 100,000 games). Here each row is the loop's
text, character for character (tests/test_standings_html.py keeps the loop as the reference, in every
language): the labels translated and escaped once per render, the name and words escaped as ``{{ }}``
escapes them, the figures as the loop wrote them under ``{% localize off %}``, the average margin through
the same ``floatformat``, the player's address cut from one reverse().
"""

from __future__ import annotations

from django.template.defaultfilters import floatformat
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from scoring.scoresheet import paths_of


def standings_rows_html(rows, *, swiss: bool) -> SafeString:
    """The rows of the standings table (``standings.Row``s, ranked), as the season page's loop wrote them;
    ``swiss``: a Swiss night's, with match points and Buchholz."""
    labels = {
        name: conditional_escape(words)
        for name, words in (
            ("match_points", _("Match points")),
            ("buchholz", _("Buchholz")),
            ("played", _("Played")),
            ("won", _("Won")),
            ("lost", _("Lost")),
            ("net", pgettext("abbreviation: net points", "Net")),
            ("avg_margin", _("Average margin")),
            ("hands_won", _("Hands won")),
            ("gins", pgettext("column: gin hands", "Gins")),
            ("undercuts_given", _("Undercuts given")),
            ("undercuts_received", _("Undercuts received")),
            ("decided", _("Decided by")),
        )
    }
    player_path = paths_of("stats:player")
    decided_words: dict[tuple[bool, str], str] = {}  # a handful of criteria: each looked up once a render
    lines = []
    for row in rows:
        name = conditional_escape(row.name)
        decided = decided_words.get((row.level_with_next, row.ahead_by))
        if decided is None:
            decided = decided_words[row.level_with_next, row.ahead_by] = conditional_escape(row.ahead_by_words)
        swiss_cells = (
            f'<td class="num match-points" data-label="{labels["match_points"]}">{row.match_points}</td>\n'
            f'        <td class="num buchholz" data-label="{labels["buchholz"]}">{row.buchholz}</td>'
            if swiss
            else ""
        )
        lines.append(
            f'\n      <tr data-player="{name}">\n'
            f'        <td class="num pos">{"=" if row.tied else ""}{row.position}</td>\n'
            f'        <th scope="row"><a href="{player_path(row.player_id)}">{name}</a></th>\n'
            f"        {swiss_cells}\n"
            f'        <td class="num" data-label="{labels["played"]}">{row.played}</td>\n'
            f'        <td class="num won" data-label="{labels["won"]}">{row.won}</td>\n'
            f'        <td class="num" data-label="{labels["lost"]}">{row.lost}</td>\n'
            f'        <td class="num net" data-label="{labels["net"]}">{row.net}</td>\n'
            f'        <td class="num" data-label="{labels["avg_margin"]}">{floatformat(row.avg_margin, 1)}</td>\n'
            f'        <td class="num" data-label="{labels["hands_won"]}">{row.hands_won}</td>\n'
            f'        <td class="num" data-label="{labels["gins"]}">{row.gins}</td>\n'
            f'        <td class="num" data-label="{labels["undercuts_given"]}">{row.undercuts_given}</td>\n'
            f'        <td class="num" data-label="{labels["undercuts_received"]}">{row.undercuts_received}</td>\n'
            f'        <td class="decided" data-label="{labels["decided"]}">{decided}</td>\n'
            f"      </tr>\n    "
        )
    return mark_safe("".join(lines))  # noqa: S308 - every text above is escaped, every figure a number
