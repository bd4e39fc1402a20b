"""The scoresheet as a player reads it: rows and boards from the engine's result.

Presentation only: every number comes from ``scoring.engine.score`` (via
``selectors.game_session``); this module arranges them for the templates.
"""

from __future__ import annotations

import dataclasses
import html
import itertools
import json
import operator
import threading
from collections.abc import Callable

from django.conf import settings
from django.core.signals import setting_changed
from django.urls import get_script_prefix, reverse
from django.utils import translation
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, npgettext, override, pgettext

from ginleague import numbers
from ginleague.forms import _shown
from scoring.audit import ENDING_WORDS
from scoring.engine.card_facts import best_play_note
from scoring.engine.cards import SUIT_SYMBOLS
from scoring.engine.rules import RuleSet
from scoring.engine.score import HandResult, SessionResult, running_totals
from scoring.models import ROW_ENDINGS, Game, Hand
from scoring.selectors import PartnershipSheet, SheetDeal
from scoring.templatetags.hand_cards import hand_cards_html


def hand_row_words() -> dict:
    """How a row of the hands table reads, in the active language.

    The sheet drawn here and the sheet the phone draws offline (static/js/offline/sheet.js, which reads
    these from the page: `hand_words` as JSON) say a hand the same way. Each is a template: {by},
    {winner}, {dealer} are names; {ending} a word of `endings`; the rest figures.
    """
    return {
        "went_out": _("{by} {ending}"),
        # HTML: only the names are filled in.
        "undercut": _("{by} knock, <strong>undercut</strong> by {winner}"),
        "dead": _("Dead hand"),
        "knock_deadwood": _("deadwood {knocker} v {defender}"),
        "gin_deadwood": _("deadwood 0 v {defender}"),
        "upcard": _("up {upcard}"),
        "dealt": _("{dealer} dealt"),
        "joiner": " · ",
        "endings": {
            **{ending: str(words) for ending, words in ROW_ENDINGS.items()},
            "dead": str(ENDING_WORDS["dead"]).lower(),
        },
        "suits": SUIT_SYMBOLS,
    }


def hand_row_words_json() -> str:
    """``hand_row_words()`` for the offline app (static/js/offline/sheet.js), in a data attribute (the pages
    allow no inline script, JSON included)."""
    return _written(("hand words", translation.get_language()), lambda: json.dumps(hand_row_words()))


# A hand's row of the offline copy: the facts it holds, fetched in C (a partnership game's rows add the deal and board).
_OFFLINE_FACTS = ("id", "ending", "by_id", "knocker_deadwood", "defender_deadwood", "upcard")
_offline_facts = operator.attrgetter(*_OFFLINE_FACTS)
_offline_board_facts = operator.attrgetter(*_OFFLINE_FACTS, "number", "board")


def offline_copy_json(game: Game, hands: list[Hand], *, editable: bool) -> str:
    """The game's facts as the phone keeps them to score offline (static/js/offline/kept.js), in a data attribute
    of the sheet: every page that draws the sheet (a load, a save's answer, the live stream's) hands the
    phone its true copy at once. ``updated_at`` is the copy's version: a page the phone kept for offline
    use is older than what it has seen since, and never replaces it. Hands are ``[id, ending, by,
    knocker_deadwood, defender_deadwood, upcard]`` in order (a 1000-hand game stays a few kilobytes); a partnership
    game's rows add ``number, board`` (the deal and the board) and the copy names its third and fourth players.
    Each hand's row is written as JSON once for the facts it holds (a save's answer writes the new hand's, instead
    of every hand's list built and encoded again).
    """

    def ref(player) -> dict:
        return {"id": player.pk, "name": player.name}

    partnership = game.player_three_id is not None
    seated = game_quartet(game) if partnership else (game.player_one, game.player_two)
    players = {player.pk: player for player in seated}
    head = _COMPACT_JSON.encode(
        {
            "id": game.pk,
            "updated_at": game.updated_at.isoformat() if game.updated_at else None,
            "player_one": ref(game.player_one),
            "player_two": ref(game.player_two),
            **({"player_three": ref(game.player_three), "player_four": ref(game.player_four)} if partnership else {}),
            "first_dealer": ref(players[game.first_dealer_id]),
            "rules": game.rules,
            "time_called_after": game.time_called_after,
            "league_status": game.league_status,
            "can_edit": editable,
        }
    )
    # A partnership game's hands are boards: each row adds its deal number and board (static/js/offline/boards.js).
    facts = map(_offline_board_facts if partnership else _offline_facts, hands)
    get = _WRITTEN.get
    rows = ",".join([get(("offline hand", row)) or _offline_hand_json(row) for row in facts])
    return f'{head[:-1]},"hands":[{rows}]}}'  # the hands last, as one dict written whole had them


_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))


def _offline_hand_json(facts: tuple) -> str:
    """One hand's row of the offline copy (``_offline_facts``: an upcard left blank is null), kept by its facts."""
    hand_id, ending, by, knocker_deadwood, defender_deadwood, upcard, *board = facts
    row = _COMPACT_JSON.encode([hand_id, ending, by, knocker_deadwood, defender_deadwood, upcard or None, *board])
    _keep(("offline hand", facts), row)
    return row


def upcard_text(upcard: str) -> str:
    return f"{upcard[:-1]}{SUIT_SYMBOLS.get(upcard[-1:], '')}" if upcard else ""


def describe_result(result: HandResult, names: dict, *, hollywood: bool = False) -> str:
    """A hand's outcome in words, e.g. "Undercut! Bob scores 27."."""
    if result.result == "dead":
        return _("Dead hand: nobody scores; %(dealer)s deals again.") % {"dealer": names[result.dealer]}
    facts = {"winner": names[result.winner], "points": result.points}
    lead = {
        "knock": _("%(winner)s knocks and scores %(points)s"),
        "undercut": _("Undercut! %(winner)s scores %(points)s"),
        "gin": _("Gin! %(winner)s scores %(points)s"),
        "big_gin": _("Big gin! %(winner)s scores %(points)s"),
    }[result.result] % facts
    extra = _(" (doubled: spade upcard)") if result.doubled else ""
    if hollywood:
        games = _(" and ").join(map(str, result.games))
        extra += ngettext(", in game %(games)s", ", in games %(games)s", len(result.games)) % {"games": games}
    return f"{lead}{extra}."


# How many hands the scoresheet shows at first: the latest ones (a sitting this long is rare, and the
# whole sheet, up to engine.score.MAX_HANDS rows, is one link away).
SHEET_HANDS_SHOWN = 100


def hands_hidden(count: int, *, show_all: bool) -> int:
    """How many of a sheet's first hands the scoresheet leaves out (0: it shows every hand)."""
    return 0 if show_all else max(count - SHEET_HANDS_SHOWN, 0)


# What the sheet wrote before, by exactly what it shows: rows (``sheet_rows``: a save appends one hand and the sheet it
# answers with writes one new row, not every row again), boards, results, heads and rules, and the row words. Each key
# holds the language and everything its text is written from. Bounded: the oldest third goes when full.
_WRITTEN: dict[tuple, object] = {}
WRITTEN_KEPT = 20_000
_written_lock = threading.Lock()


def forget_written(**kwargs) -> None:
    """Write everything anew from now on (a setting changed, or a test put in other translations)."""
    with _written_lock:
        _WRITTEN.clear()


setting_changed.connect(forget_written, dispatch_uid="scoresheet_written")


def _keep(key: tuple, text: object) -> None:
    with _written_lock:
        if len(_WRITTEN) >= WRITTEN_KEPT:
            for old in list(itertools.islice(_WRITTEN, WRITTEN_KEPT // 3)):
                del _WRITTEN[old]
        _WRITTEN[key] = text


def written[Text](key: tuple, write: Callable[[], Text]) -> Text:
    """``write()``'s text, written once for ``key`` (all ``write`` reads but the language and address prefix, which
    are added to it)."""
    return _written((translation.get_language(), get_script_prefix(), *key), write)


def _written[Text](key: tuple, write: Callable[[], Text]) -> Text:
    """``write()``'s text, written once for ``key`` (which names the language and all ``write`` reads)."""
    text = _WRITTEN.get(key)
    if text is None:
        text = write()
        _keep(key, text)
    return text


# The links of a game's scoresheet (templates/scoring/game.html), by what ``sheet_urls`` calls them.
_SHEET_LINKS = (
    ("player_one", "stats:player", "player_one_id"),
    ("player_two", "stats:player", "player_two_id"),
    ("time", "game_time", "pk"),
    ("record", "hand_submit", "pk"),
    ("again", "play_again", "pk"),
    ("sheet", "game", "pk"),
    ("undo", "hand_undo", "pk"),
    ("history", "game_history", "pk"),
)


def sheet_urls(game: Game) -> dict[str, str]:
    """The scoresheet's links, reversed once per game and its two players (and address prefix; a change of the
    URLs' settings writes them anew): reversing them was a tenth of drawing the sheet's body, which every save's
    answer does."""
    ids = tuple(getattr(game, attribute) for _name, _url, attribute in _SHEET_LINKS)

    def write() -> str:
        links = zip(_SHEET_LINKS, ids, strict=True)
        return "\n".join(reverse(url, args=[value]) for (_name, url, _attribute), value in links)

    links = written(("sheet links", *ids), write).split("\n")
    return {name: link for (name, _url, _attribute), link in zip(_SHEET_LINKS, links, strict=True)}


# A row's facts and result as its key holds them: every field the row can read, fetched in C (a row's key was built
# field by field, the result hashed by its dataclass's Python __hash__).
_row_facts = operator.attrgetter("number", "ending", "by_id", "knocker_deadwood", "defender_deadwood", "upcard")
_result_fields = operator.attrgetter(*(result_field.name for result_field in dataclasses.fields(HandResult)))
# Each link of a sheet's chain of rows (``sheet_rows``) gets a number of its own, never given again in this process.
_links = itertools.count()


def sheet_rows(game: Game, hands: list[Hand], session: SessionResult, *, editable: bool, hidden: int = 0) -> list[str]:
    """One HTML row per hand after the first ``hidden``: who, what, deadwood, points and the running totals.

    Written as plain strings, not through the template engine nor ``format_html`` (a 60-hand sheet cost
    ~10 ms, then ~4 ms that way): each name and each sentence is escaped once per sheet, numbers need no
    escaping, and the row reads character for character as before (tests/test_sheet_rows.py).

    Rows written before are kept as a chain: the sheet (game, players' names, language, address prefix, number of
    games, whether it may be edited) has a link number, and each hand's row is kept under the link before it, the
    hand's facts and its result, with a link number of its own. A number stands for one sheet and one run of hands'
    facts and results, so for the running totals after them: the key of a row names all it shows without the
    totals being worked out (a save's answer finds 60 rows and writes the new one, instead of adding up and keying
    each row's totals again). A hand entered card by card has its link but its row is written anew each time.
    """
    players = (game.player_one, game.player_two)
    hollywood = len(session.games) > 1
    sheet = (
        "sheet rows",
        translation.get_language(),
        get_script_prefix(),
        game.pk,
        editable,
        len(session.games),  # a row has a running-total cell per game
        *((player.pk, player.name) for player in players),
    )
    link = _written(sheet, lambda: next(_links))
    write = totals = None
    rows = []
    for index, (hand, result) in enumerate(zip(hands, session.hands, strict=True)):
        key = (link, _row_facts(hand), not hand.cards, _result_fields(result))
        kept = _WRITTEN.get(key)
        if kept is None:
            kept = (next(_links), None)
            _keep(key, kept)
        link, row = kept
        if hand.number <= hidden:  # the totals run on from the hidden hands all the same
            continue
        if row is None:
            totals = totals or running_totals(session)
            write = write or _row_writer(game, players, hollywood=hollywood, editable=editable)
            row = write(hand, result, totals[index])
            if not hand.cards:
                _keep(key, (link, row))
        rows.append(row)
    return rows


def _row_writer(game: Game, players: tuple, *, hollywood: bool, editable: bool):
    """What writes one row of ``sheet_rows``: the sheet's words and names escaped once."""
    plain_names = {player.pk: player.name for player in players}
    names = {player.pk: escape(player.name) for player in players}
    # Hollywood's run cells name the scorer by the first four letters of the name (cut before escaping).
    short_names = {player.pk: escape(player.name[:4]) for player in players}
    words = hand_row_words()
    endings = {ending: escape(word) for ending, word in words["endings"].items()}
    went_out, undercut = escape(words["went_out"]), words["undercut"]  # the undercut's words are HTML
    dead, knock_deadwood, gin_deadwood = escape(words["dead"]), words["knock_deadwood"], words["gin_deadwood"]
    upcard_words, dealt, joiner = words["upcard"], words["dealt"], words["joiner"]
    cards_summary = escape(_("Cards"))
    edit_prefix = escape(reverse("hand_submit", args=[game.pk]))  # .../hands/ ; + "<number>/edit/"
    edit_label, edit_words = escape(_("Edit hand %(number)s")), escape(_("Edit"))

    def write(hand: Hand, result: HandResult, totals) -> str:
        winner = result.winner
        if hollywood:  # one column per game: the new total of whoever scored in it
            run = "".join(
                f'<td class="num run"><span class="run-who">{short_names[winner]}</span> {game_totals[winner]}</td>'
                if game_number in result.games
                else '<td class="num run"></td>'
                for game_number, game_totals in enumerate(totals, start=1)
            )
        else:  # one column per player: each player's running total on every row; the scorer's stands out
            run = "".join(
                f'<td class="num run{" scored" if winner == player.pk else ""}">{game_totals[player.pk]}</td>'
                for game_totals in totals
                for player in players
            )
        if hand.ending == "dead":
            what = dead
        elif result.result == "undercut":
            what = undercut.format(by=names[hand.by_id], winner=names[winner])
        else:  # the sentence was escaped with its placeholders; the names are already escaped
            what = went_out.format(by=names[hand.by_id], ending=endings[hand.ending])
        meta = []
        if hand.ending == "knock":
            meta.append(knock_deadwood.format(knocker=hand.knocker_deadwood, defender=hand.defender_deadwood))
        elif hand.ending != "dead":
            meta.append(gin_deadwood.format(defender=hand.defender_deadwood))
        if hand.upcard:
            meta.append(upcard_words.format(upcard=upcard_text(hand.upcard)))
        meta.append(dealt.format(dealer=plain_names[result.dealer]))
        if hand.cards:  # legal play that was not the best: said quietly, so players can learn from it
            note = best_play_note(hand.cards, hand.ending, hand.knocker_deadwood, hand.defender_deadwood)
            if note:
                meta.append(note)
            # Entered card by card: the melds, lay-offs and deadwood, worked out now.
            cards = conditional_escape(hand_cards_html(hand, *players))
            what = f'{what}<details class="cards-of-hand"><summary>{cards_summary}</summary>{cards}</details>'
        meta_text = html.escape(joiner.join(meta))  # the plain words and names, escaped together (as escape() does)
        if result.result == "dead":  # only a dead hand scores nothing to show; a win worth 0 shows its 0
            points = ""
        else:
            points = f'{result.points} <span class="x2">×2</span>' if result.doubled else result.points
        number = hand.number
        fix = (
            f'<td class="fix"><a href="{edit_prefix}{number}/edit/" aria-label="{edit_label % {"number": number}}">'
            f"{edit_words}</a></td>"
            if editable
            else ""
        )
        return mark_safe(  # noqa: S308 - every text in the row was escaped above; numbers need none
            f'<tr class="{result.result}"><td class="num">{number}</td><td class="what">{what}'
            f'<span class="meta">{meta_text}</span></td><td class="num pts">{points}</td>{run}{fix}</tr>'
        )

    return write


def sheet_boards(game: Game, session: SessionResult) -> list[dict]:
    """Each game's board: points, boxes, points needed and, once over, the bonus breakdown."""
    players = (game.player_one, game.player_two)
    names = {player.pk: player.name for player in players}
    boards = []
    for result in session.games:
        breakdown = []
        if result.over:
            by_label: dict[str, dict] = {}
            for line in result.breakdown:
                by_label.setdefault(line.label, {})[line.player] = line.amount
            breakdown = [
                {"label": label, "amounts": [amounts.get(player.pk, "") for player in players]}
                for label, amounts in by_label.items()
            ]
        boards.append(
            {
                "number": result.number,
                "over": result.over,
                "winner": names.get(result.winner, ""),
                "margin": result.margin,
                "closed_by_hand": result.closed_by_hand,
                "players": [
                    {
                        "name": player.name,
                        "points": result.hand_points[player.pk],
                        "boxes": result.boxes[player.pk],
                        "needed": result.points_needed(player.pk),
                        "final": result.final[player.pk] if result.final else None,
                    }
                    for player in players
                ],
                "breakdown": breakdown,
            }
        )
    return boards


# --- the scoresheet's boards, results and hands table, written as plain strings ---------------------------------
# As the rows (sheet_rows): a Hollywood sheet's three boards, their results and the table's heads were a hundred
# template nodes of the page. Each piece writes, character for character, what game.html wrote with {% translate %}
# (the words escaped) and {% blocktranslate %} (the words as translated, each {{ value }} in them escaped): tests pin
# the page's HTML (tests/test_sheet_rows.py).


def paths_of(name: str):
    """``pk -> path`` of a URL taking one whole number, from one ``reverse``: a profile links each opponent (a
    club's every member, at scale), and reversing each address was a tenth of that page's time."""
    marker = str(numbers.BIGINT)
    head, tail = reverse(name, args=[marker]).split(marker)
    return lambda pk: f"{head}{int(pk)}{tail}"


def _shown_figure(value) -> str:
    """``{{ value }}`` of a figure or a name: a whole number and a plain string written at once (the number as Django
    localizes one without a thousands separator, the string escaped), anything else as ``{{ }}`` shows it."""
    kind = type(value)
    if kind is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    if kind is str:
        return html.escape(value)
    return _shown(value)


def shown_value(value) -> str:
    """``{{ value }}`` of any value: safe HTML as it is, a figure or a name as ``{{ }}`` shows it."""
    return _shown_figure(value)


def _blocktranslated(words, **values) -> str:
    """``{% blocktranslate %}`` of ``words`` (a gettext call, so that a translation that does not fit its values falls
    back to English, as the tag does), with ``values`` shown as ``{{ }}`` shows them."""
    shown = {name: _shown_figure(value) for name, value in values.items()}
    try:
        return words() % shown
    except (KeyError, ValueError):
        with override(None):
            return words() % shown


def board_pieces_html(boards: list[dict], players, *, hollywood: bool) -> tuple[str, str, str]:
    """The boards' three pieces of the sheet (``sheet_boards``): the scoreboards, the closed games' results and the
    hands table's running-total heads, written once for what they show (one key for the three: the boards' repr,
    each piece's key before, was a tenth of drawing a save's answer)."""
    # The boards are names and numbers: their repr is all they show (the results' and heads' names are in it too).
    key = ("boards", translation.get_language(), hollywood, *(player.name for player in players), repr(boards))
    return _written(
        key,
        lambda: (
            _boards_html(boards, hollywood=hollywood),
            _results_html(boards, players, hollywood=hollywood),
            _run_heads_html(boards, players, hollywood=hollywood),
        ),
    )


def _boards_html(boards: list[dict], *, hollywood: bool) -> str:
    """The scoreboards: each game's points, boxes and what each player needs, or its final score."""
    parts = [f'<div class="boards boards-{len(boards)}">\n  ']
    score = escape(_("Score"))
    closed = escape(pgettext("one of Hollywood's three games, finished", "closed"))
    for board in boards:
        number, over = board["number"], board["over"]
        game_words = _blocktranslated(lambda: _("Game %(number)s"), number=number) if hollywood else ""
        label = game_words if hollywood else score
        parts.append(f'\n    <section class="board{" closed" if over else ""}" aria-label="{label}">\n      ')
        if hollywood:
            parts.append(f"<h2>{game_words}{f' <span class="closed-mark">{closed}</span>' if over else ''}</h2>")
        parts.append("\n      ")
        for player in board["players"]:
            if over:
                figure = player["final"]
                sub = _blocktranslated(lambda: _("%(points)s in hands"), points=player["points"])
            else:
                figure = player["points"]
                sub = _blocktranslated(lambda: _("needs %(needed)s"), needed=player["needed"])
            boxes = player["boxes"]
            box_words = _blocktranslated(
                lambda boxes=boxes: npgettext("gin scoring: a won hand", "%(counter)s box", "%(counter)s boxes", boxes),
                counter=boxes,
            )
            parts.append(
                '\n      <div class="line">\n'
                f'        <span class="who">{_shown_figure(player["name"])}</span>\n'
                f'        <span class="pts">{_shown_figure(figure)}</span>\n'
                f'        <span class="sub">{sub} · {box_words}</span>\n'
                "      </div>\n      "
            )
        parts.append("\n      ")
        if over and hollywood:
            won = _blocktranslated(
                lambda: _("%(name)s won by %(margin)s"), name=board["winner"], margin=board["margin"]
            )
            parts.append(f'<p class="won">{won}</p>')
        parts.append("\n    </section>\n  ")
    parts.append("\n  </div>")
    return mark_safe("".join(parts))  # noqa: S308 - every text was escaped above


def _results_html(boards: list[dict], players, *, hollywood: bool) -> str:
    """Each closed game's result: how its final score adds up (the bonus breakdown), its final score and margin."""
    parts = []
    heads = "".join(f'<th scope="col">{_shown_figure(player.name)}</th>' for player in players)
    part_words, final_words, margin_words = (
        escape(_("Part of the score")),
        escape(_("Final score")),
        escape(_("Margin")),
    )
    for board in boards:
        if not board["over"]:
            continue
        number = board["number"]
        if hollywood:
            label = _blocktranslated(lambda: _("Game %(number)s result"), number=number)
            caption = _blocktranslated(lambda: _("Game %(number)s: how the final score adds up"), number=number)
        else:
            label, caption = escape(_("Result")), escape(_("how the final score adds up"))
        lines = "".join(
            f'<tr><th scope="row">{_shown_figure(line["label"])}</th>'
            + "".join(f'<td class="num">{_shown_figure(amount)}</td>' for amount in line["amounts"])
            + "</tr>"
            for line in board["breakdown"]
        )
        finals = "".join(f'<td class="num">{_shown_figure(player["final"])}</td>' for player in board["players"])
        parts.append(
            f'\n  <section class="game-over" aria-label="{label}">\n'
            '    <table class="breakdown">\n'
            f"      <caption>{caption}</caption>\n"
            f'      <thead><tr><th scope="col"><span class="vh">{part_words}</span></th>{heads}</tr></thead>\n'
            f"      <tbody>\n      {lines}\n      </tbody>\n"
            "      <tfoot>\n"
            f'        <tr class="final"><th scope="row">{final_words}</th>{finals}</tr>\n'
            f'        <tr><th scope="row">{margin_words}</th>'
            f'<td class="num" colspan="2">{_shown_figure(board["margin"])}</td></tr>\n'
            "      </tfoot>\n    </table>\n  </section>\n  "
        )
    return mark_safe("".join(parts))  # noqa: S308 - every text was escaped above


def _run_heads_html(boards: list[dict], players, *, hollywood: bool) -> str:
    """The hands table's running-total column heads: one per game (Hollywood), else one per player."""
    if not hollywood:
        return mark_safe(  # noqa: S308 - the names are escaped
            "".join(f'<th scope="col" class="num run">{_shown_figure(player.name)}</th>' for player in players)
        )
    heads = []
    for board in boards:
        number, over = board["number"], board["over"]
        short = _blocktranslated(lambda: _("G%(number)s"), number=number)
        if over:
            long = _blocktranslated(lambda: _("game %(number)s, closed"), number=number)
        else:
            long = _blocktranslated(lambda: _("game %(number)s"), number=number)
        heads.append(
            f'<th scope="col" class="num run g{_shown_figure(number)}{" closed" if over else ""}">'
            f"{short}{' ✓' if over else ''}"
            f'<span class="vh"> ({long})</span></th>'
        )
    return mark_safe("".join(heads))  # noqa: S308 - every text was escaped above


def rows_html(rows: list[str]) -> str:
    """The hands table's rows (``sheet_rows``) as the page lays them out, one a line."""
    if not rows:
        return mark_safe("")
    # One join in C (a string written per row was most of this): "\n      " before each row and "\n    " after it.
    return mark_safe("\n      " + "\n    \n      ".join(rows) + "\n    ")  # noqa: S308 - each row is safe HTML


def all_rules_html(rules: RuleSet) -> str:
    """Every rule of ``rules`` (``RuleSet.describe()``) as a description list's items, written once per language."""
    return _written(("rules", translation.get_language(), rules), lambda: rules_html(rules.describe()))


def rules_html(all_rules: list[tuple[str, str]]) -> str:
    """Every rule of the game (``RuleSet.describe()``) as the items of a description list."""
    return mark_safe(  # noqa: S308 - the words are escaped
        "".join(
            f"<div><dt>{_shown_figure(label)}</dt><dd>{_shown_figure(value)}</dd></div>" for label, value in all_rules
        )
    )


# --- partnership gin: four players, two sides, two boards a deal (docs/rules.md, "Partnership gin") -----


def side_name(names: dict, side) -> str:
    """A side as the sheet names it, in the reader's language: its two players ("Ann & Cat"); ``side`` is the
    pair of player ids."""
    return _("%(one)s & %(two)s") % {"one": names[side[0]], "two": names[side[1]]}


def game_quartet(game: Game) -> tuple:
    """A partnership game's four players in record order (sides: the 1st & 3rd v the 2nd & 4th)."""
    return (game.player_one, game.player_two, game.player_three, game.player_four)


def _board_words(hand: Hand, names: dict) -> tuple[str, str]:
    """(what happened, the figures) of one stored board, in the words of a row of the hands table."""
    words = hand_row_words()
    if hand.ending == "dead":
        what = words["dead"]
    elif hand.result == "undercut":
        # The undercut's words are HTML (its <strong>): only the names are filled in, each escaped.
        names_escaped = {"by": escape(names[hand.by_id]), "winner": escape(names[hand.winner_id])}
        what = mark_safe(words["undercut"].format(**names_escaped))  # noqa: S308 - the names were escaped
    else:
        what = words["went_out"].format(by=names[hand.by_id], ending=words["endings"][hand.ending])
    meta = []
    if hand.ending == "knock":
        meta.append(words["knock_deadwood"].format(knocker=hand.knocker_deadwood, defender=hand.defender_deadwood))
    elif hand.ending != "dead":
        meta.append(words["gin_deadwood"].format(defender=hand.defender_deadwood))
    if hand.upcard:
        meta.append(words["upcard"].format(upcard=upcard_text(hand.upcard)))
    meta.append(words["dealt"].format(dealer=names[hand.dealer_id]))
    return what, words["joiner"].join(meta)


def deal_result_words(deal: SheetDeal, names: dict) -> str:
    """What a settled deal gave: the side that won it and by how much, or a tied deal."""
    if not deal.settled:
        return ""
    if deal.winner is None:
        return _("Tied deal: nobody scores.")
    return _("%(side)s win the deal by %(points)s.") % {
        "side": side_name(names, [player.pk for player in deal.winner.players]),
        "points": deal.points,
    }


def partnership_view(sheet: PartnershipSheet, *, editable: bool) -> dict:
    """What the sheet of a partnership game shows, from ``selectors.partnership_sheet`` (the engine's figures):
    each side's total, boxes and what it still needs; the deal being played (who plays whom and who deals on
    each board, what is recorded); every settled deal with both boards and its result, newest first."""
    game = sheet.game
    names = {player.pk: player.name for player in game_quartet(game)}

    def named(side) -> str:
        return side_name(names, [player.pk for player in side.players]) if side else ""

    sides = [
        {
            "name": named(side),
            "points": side.points,
            "boxes": side.boxes,
            "needed": side.needs,
            "final": sheet.final[side.first.pk] if sheet.final else None,
        }
        for side in sheet.sides
    ]
    breakdown = []
    if sheet.over:
        by_label: dict[str, dict] = {}
        for line in sheet.result.game.breakdown:
            by_label.setdefault(line.label, {})[line.player] = line.amount
        breakdown = [
            {"label": label, "amounts": [amounts.get(side, "") for side in sheet.result.sides]}
            for label, amounts in by_label.items()
        ]
    edit_prefix = reverse("hand_submit", args=[game.pk])
    firsts = [side.first.pk for side in sheet.sides]
    totals = dict.fromkeys(firsts, 0)
    deals = []
    for deal in sheet.deals:
        if deal.winner is not None:
            totals[deal.winner.first.pk] += deal.points
        boards = []
        for board in deal.boards:
            entry = {
                "board": board.board,
                "pair": [player.name for player in board.players],
                "players": board.players,
                "dealer": board.dealer.name,
                "recorded": board.hand is not None,
            }
            if board.hand is not None:
                hand = board.hand
                what, meta = _board_words(hand, names)
                entry.update(
                    what=what,
                    meta=meta,
                    winner=names.get(hand.winner_id, ""),
                    points=hand.points if hand.result != "dead" else "",
                    doubled=hand.doubled,
                    edit_url=f"{edit_prefix}{deal.number}/edit/?board={board.board}" if editable else "",
                )
            boards.append(entry)
        deals.append(
            {
                "number": deal.number,
                "dealer": named(deal.dealer),
                "boards": boards,
                "settled": deal.settled,
                "result": deal_result_words(deal, names),
                "totals": [totals[first] for first in firsts],
            }
        )
    settled = [deal for deal in deals if deal["settled"]]
    return {
        "sides": sides,
        "over": sheet.over,
        "winner": named(sheet.winner),
        "margin": sheet.margin,
        "breakdown": breakdown,
        "open_deal": deals[-1] if sheet.open_deal is not None else None,
        "last_settled": settled[-1] if settled else None,
        "deals": settled[::-1],
        "next_dealer": named(sheet.next_dealer),
    }
