"""The list of games (the home page's, a player's page's), written in Python (issue 40).

templates/scoring/_game_list.html wrote each game through up to five blocktranslates, a date filter and a URL:
~0.35 ms a row, the games list's largest cost. Here each row is written with the same words (gettext,
ngettext, pgettext with the same message ids, the values escaped as ``{{ }}`` escapes them) and the game's
address cut from one reverse() per script prefix. The HTML is character for character what the template
wrote (tests/test_game_list_html.py renders both). A game is anything with a Game's attributes: a Game
with its players loaded, or selectors.ListedGame.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import formats, timezone
from django.utils.dateformat import format as date_formatted
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, trans_real

from scoring.scoresheet import _blocktranslated, _shown_figure

# Each script prefix's (and URL configuration's) address of a game, split where a stand-in id stood.
_ID_STAND_IN = 918_273_645
_GAME_URLS: dict[tuple, tuple[str, str]] = {}


def _game_url() -> tuple[str, str]:
    key = (get_script_prefix(), get_urlconf())
    url = _GAME_URLS.get(key)
    if url is None:
        before, after = reverse("game", args=[_ID_STAND_IN]).split(str(_ID_STAND_IN))
        url = _GAME_URLS[key] = (before, after)
    return url


# A date format's letters that say more than the day (django.utils.dateformat's time and zone letters): a
# format with any of them is written for each game, one without once per day.
_MORE_THAN_THE_DAY = re.compile(r"(?<!\\)[aAefgGhHiOPrsTuUZcI]")
_DAYS_KEPT = 1000


@dataclass
class _Words:
    """The list's words in one language (a translation catalog), looked up once: gettext through Django's
    chain of catalogs was most of writing a row."""

    versus: str  # "%(one)s v %(two)s"
    side: str  # "%(one)s & %(two)s"
    side_wins: str
    won: str
    deals: str
    hollywood: str  # escaped
    level: str  # escaped
    no_games: str  # escaped
    date_format: str
    by_day: bool  # the date format says the day and nothing more
    hands: dict[int, str] = field(default_factory=dict)  # "in progress, %(counter)s hand(s)" by count
    boards: dict[int, str] = field(default_factory=dict)
    days: dict[datetime.date, str] = field(default_factory=dict)  # each day as written (by_day only)


_WORDS: WeakKeyDictionary = WeakKeyDictionary()


def _words() -> _Words:
    catalog = trans_real.catalog()
    words = _WORDS.get(catalog)
    if words is None:
        date_format = formats.get_format("DATE_FORMAT")
        words = _WORDS[catalog] = _Words(
            versus=_("%(one)s v %(two)s"),
            side=_("%(one)s & %(two)s"),
            side_wins=_("%(side)s win by %(margin)s"),
            won=_("%(name)s won by %(margin)s"),
            deals=_("%(name)s deals"),
            hollywood=escape(pgettext("gin scoring: three games at once", "Hollywood")),
            level=escape(pgettext("a game ended with equal scores", "level")),
            no_games=escape(_("No games yet.")),
            date_format=date_format,
            by_day=not _MORE_THAN_THE_DAY.search(str(date_format)),
        )
    return words


def _filled(words: str, fallback, **values) -> str:
    """``{% blocktranslate %}`` of ``words`` (already translated); ``fallback`` says them anew, for a
    translation that does not fit its values (the tag then writes them in English)."""
    shown = {name: _shown_figure(value) for name, value in values.items()}
    try:
        return words % shown
    except (KeyError, ValueError):
        return _blocktranslated(fallback, **values)


def _day(words: _Words, created_at) -> str:
    """``{{ created_at|date:"DATE_FORMAT" }}``: the day in the current time zone, as the language writes one."""
    try:
        local = timezone.localtime(created_at)
    except (ValueError, TypeError, AttributeError):  # as the date filter: nothing rather than an error
        return ""
    if not words.by_day:
        return escape(date_formatted(local, words.date_format))
    day = local.date()
    written = words.days.get(day)
    if written is None:
        if len(words.days) >= _DAYS_KEPT:
            words.days.clear()
        written = words.days[day] = escape(date_formatted(local, words.date_format))
    return written


def _in_progress(words: _Words, count: int, *, boards: bool) -> str:
    kept = words.boards if boards else words.hands
    said = kept.get(count)
    if said is None:
        if boards:
            said = ngettext("in progress, %(counter)s board", "in progress, %(counter)s boards", count)
        else:
            said = ngettext("in progress, %(counter)s hand", "in progress, %(counter)s hands", count)
        if type(count) is int:
            kept[count] = said

    def fallback():
        if boards:
            return ngettext("in progress, %(counter)s board", "in progress, %(counter)s boards", count)
        return ngettext("in progress, %(counter)s hand", "in progress, %(counter)s hands", count)

    return _filled(said, fallback, counter=count)


def _partnership(words: _Words, game) -> tuple[str, str]:
    """The title and the line under it of a partnership game: its two sides, named by their players."""
    side_one = SafeString(
        _filled(words.side, lambda: _("%(one)s & %(two)s"), one=game.player_one.name, two=game.player_three.name)
    )
    side_two = SafeString(
        _filled(words.side, lambda: _("%(one)s & %(two)s"), one=game.player_two.name, two=game.player_four.name)
    )
    title = _filled(words.versus, lambda: _("%(one)s v %(two)s"), one=side_one, two=side_two)
    if game.over:  # the winner is the winning side's first-seated player
        side = side_one if game.winner_id == game.player_one_id else side_two
        state = _filled(words.side_wins, lambda: _("%(side)s win by %(margin)s"), side=side, margin=game.margin)
    else:
        state = _in_progress(words, game.hand_count, boards=True)
    return title, state


def _two_players(words: _Words, game) -> tuple[str, str]:
    """The title and the line under it of a game of two (a Hollywood sitting says so)."""
    title = _filled(words.versus, lambda: _("%(one)s v %(two)s"), one=game.player_one.name, two=game.player_two.name)
    state = f"{words.hollywood} · " if game.rules.get("hollywood") else ""
    if game.over:
        winner = game.winner
        if winner:
            state += _filled(words.won, lambda: _("%(name)s won by %(margin)s"), name=winner.name, margin=game.margin)
        else:
            state += words.level
    else:
        state += _in_progress(words, game.hand_count, boards=False)
        dealer = game.next_dealer
        if dealer:
            state += ", " + _filled(words.deals, lambda: _("%(name)s deals"), name=dealer.name)
    return title, state


def game_list_html(games) -> SafeString:
    """The ``<ul class="game-list">`` of ``games``: each one's players, day and state, linked to its scoresheet."""
    words = _words()
    before, after = _game_url()
    rows = []
    for game in games:
        title, state = _partnership(words, game) if game.player_three_id else _two_players(words, game)
        blank = "\n    \n    " if game.player_three_id else ""  # where the template's two sides were named
        rows.append(
            f'\n  <li class="{"done" if game.over else "open"}">\n  {blank}'
            f'\n    <a href="{before}{_shown_figure(game.pk)}{after}"><strong>{title}</strong></a>'
            f'\n    <span class="meta">{_day(words, game.created_at)} · {state}</span>\n  \n  </li>\n'
        )
    if not rows:
        rows.append(f"\n  <li>{words.no_games}</li>\n")
    return mark_safe(f'<ul class="game-list">\n{"".join(rows)}\n</ul>\n')  # noqa: S308 - every value escaped above
