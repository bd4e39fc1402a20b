"""The hand history's rows, written in Python (issue 40).

templates/stats/history.html wrote each of a page's fifty hands through up to four blocktranslates, an include,
two URLs and a date filter: most of a history page's time at 100,000 games. Here each row is the template's
text, character for character (tests/test_history.py keeps the loop as the reference, in every language): the
same words (gettext with the same message ids, each looked up once a page), the values escaped as ``{{ }}``
escapes them, the addresses cut from one reverse() each.
"""

from __future__ import annotations

from django.template.defaultfilters import date as date_filter
from django.utils import timezone
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import override

from scoring.scoresheet import _shown_figure, paths_of


class _Words:
    """A blocktranslate's message, looked up once: filled with each row's values (shown as ``{{ }}`` shows them),
    in English when the translation does not fit them, as the tag does."""

    def __init__(self, lookup):
        self.lookup, self.text = lookup, lookup()

    def __call__(self, **values) -> str:
        shown = {name: _shown_figure(value) for name, value in values.items()}
        try:
            return self.text % shown
        except (KeyError, ValueError):
            with override(None):
                return self.lookup() % shown


def hand_rows_html(hands) -> SafeString:
    """The rows of the history's table of ``hands`` (``page_of``'s: their games' players and seasons loaded)."""
    versus = _Words(lambda: _("%(one)s v %(two)s"))
    boards = _Words(lambda: _("%(one)s & %(three)s v %(two)s & %(four)s, board %(board)s"))
    result_to = _Words(lambda: _('%(result)s to <a href="%(winner_url)s">%(name)s</a>'))
    went_out = _Words(lambda: _('<a href="%(by_url)s">%(name)s</a> %(ending)s'))
    undercut = _Words(lambda: _('<a href="%(by_url)s">%(name)s</a> %(ending)s, undercut by %(winner)s'))
    dead = conditional_escape(_("Dead hand"))
    game_path, player_path = paths_of("game"), paths_of("stats:player")
    rows = []
    for hand in hands:
        game = hand.game
        if hand.board:
            names = boards(
                one=game.player_one.name, two=game.player_two.name, three=game.player_three.name,
                four=game.player_four.name, board=hand.board,
            )  # fmt: skip
        else:
            names = versus(one=game.player_one.name, two=game.player_two.name)
        season = f' <span class="help">{_shown_figure(game.season.name)}</span>' if game.season else ""
        if hand.ending == "dead":
            words = dead
        elif hand.result == "undercut":
            words = undercut(by_url=player_path(hand.by_id), name=hand.by.name, ending=hand.row_ending,
                             winner=hand.winner.name)  # fmt: skip
        else:
            words = went_out(by_url=player_path(hand.by_id), name=hand.by.name, ending=hand.row_ending)
        result = hand.get_result_display()
        if hand.winner:
            result = result_to(result=result, winner_url=player_path(hand.winner_id), name=hand.winner.name)
        else:
            result = conditional_escape(result)
        day = conditional_escape(date_filter(timezone.template_localtime(hand.created_at), "SHORT_DATE_FORMAT"))
        rows.append(
            f'\n  <tr>\n    <td><a href="{game_path(hand.game_id)}">{names}</a>{season}</td>\n'
            f"    <td>{day}</td>\n"
            f'    <td class="num">{_shown_figure(hand.number)}</td>\n'
            f"    <td>\n{words}\n</td>\n"
            f'    <td class="result">{result}</td>\n'
            f'    <td class="num">{_shown_figure(hand.points)}</td>\n  </tr>\n  '
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value above is escaped or a number
