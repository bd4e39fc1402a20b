"""A profile's head-to-head rows, written in Python (issue 40).

A member of a 400-player club has met nearly everyone: templates/stats/profile.html's loop wrote those rows
through six ``{{ }}`` each, about a third of the page's time at 100,000 games. Here each row is the loop's
text, character for character (tests/test_stats.py compares them): the name escaped and the figures shown
as ``{{ }}`` shows them, the opponent's address cut from one reverse().
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe

from scoring.scoresheet import _shown_figure, paths_of


def head_to_head_html(rows) -> SafeString:
    """The rows of the head-to-head table (``HeadToHead``s), as the profile's loop over them wrote them."""
    profile_path = paths_of("stats:profile")
    lines = []
    for row in rows:
        name, path = _shown_figure(row.opponent), profile_path(row.opponent_id)
        played, won, lost, net = (_shown_figure(figure) for figure in (row.played, row.won, row.lost, row.net))
        lines.append(
            f'\n  <tr data-opponent="{name}"><th scope="row"><a href="{path}">{name}</a></th>\n'
            f'    <td class="num">{played}</td><td class="num won">{won}</td><td class="num lost">{lost}</td>'
            f'<td class="num net">{net}</td></tr>\n  '
        )
    return mark_safe("".join(lines))  # noqa: S308 - every value above is escaped or a number
