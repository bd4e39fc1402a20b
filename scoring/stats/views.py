"""Player profiles, hand history, a game's progress chart, and the CSV/JSON exports.

Thin views: the figures come from scoring.stats.selectors and scoring.stats.history
(selectors with a fixed number of queries), the charts from scoring.engine.charts.
Private clubs' games and hands are only shown to their members.
"""

from __future__ import annotations

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from ginleague import numbers
from players.models import Club, Player
from scoring import permissions
from scoring.audit import game_names, outcome_words
from scoring.engine.charts import Series, line_chart
from scoring.game_list_html import game_list_html
from scoring.league.standings import season_standings
from scoring.models import Game
from scoring.selectors import game_list, partnership_game, partnership_sheet, plays_q
from scoring.stats import exports
from scoring.stats.history import HandFilterForm, hand_history, page_of
from scoring.stats.history_html import hand_rows_html
from scoring.stats.profile_html import head_to_head_html
from scoring.stats.selectors import (
    game_progress,
    partnership_stats,
    player_ratings,
    player_stats,
    recent_games,
    visible_games,
)


def _rating_chart(rating) -> str:
    points = [(0, 1500.0)] + [(index, point.rating) for index, point in enumerate(rating.history, start=1)]
    return mark_safe(  # noqa: S308 - line_chart escapes every text it writes
        line_chart(
            [Series(_("Rating in %(club)s") % {"club": rating.club.name}, points)],
            title=_("Rating history in %(club)s") % {"club": rating.club.name},
            x_label=_("Confirmed games"),
            y_label=_("Elo rating"),
            y_from_zero=False,
        )
    )


def profile(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    stats = player_stats(player, viewer=request.user)
    ratings = player_ratings(player, viewer=request.user)
    charts = [(rating, _rating_chart(rating)) for rating in ratings]
    return render(
        request,
        "stats/profile.html",
        {
            "player": player,
            "stats": stats,
            "head_to_head": head_to_head_html(stats.head_to_head),
            "ratings": charts,
            "recent": recent_games(player, viewer=request.user),
            "partnership": partnership_stats(player, viewer=request.user),
        },
    )


def _history(request, *, player: Player | None = None, club: Club | None = None):
    form = HandFilterForm(request.GET or None, player=player, club=club, viewer=request.user)
    hands, has_next, page = [], False, 1
    if not form.is_bound or form.is_valid():
        filters = form.filters() if form.is_bound else {}
        page = numbers.whole_or_none(request.GET.get("page", "1"), low=1) or 1
        hands, has_next = page_of(hand_history(viewer=request.user, player=player, club=club, **filters), page)
    return render(
        request,
        "stats/history.html",
        {
            "form": form,
            "player": player,
            "club": club,
            "hands": hands,
            "hand_rows": hand_rows_html(hands),
            "page": page,
            "has_next": has_next,
            "has_previous": page > 1,
        },
        status=400 if form.is_bound and form.errors else 200,
    )


def player_history(request, pk: int):
    return _history(request, player=get_object_or_404(Player, pk=pk))


def club_history(request, slug: str):
    return _history(request, club=permissions.visible_club(request.user, slug))


def game_progress_view(request, pk: int):
    game = get_object_or_404(  # a partnership game's progress is its sheet's deals (no chart of two players)
        visible_games(request.user)
        .filter(player_three__isnull=True)
        .select_related("player_one", "player_two", "season", "season__club"),
        pk=pk,
    )
    names = {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}
    charts = []
    for progress in game_progress(game):
        series = [Series(names[player], list(enumerate(totals))) for player, totals in progress.totals.items()]
        if game.is_hollywood:
            title = _("Game %(number)s: running hand points") % {"number": progress.number}
        else:
            title = _("Running hand points")
        x_label = pgettext("chart axis: the hands of a game, by number", "Hand")
        chart = line_chart(series, title=title, x_label=x_label, y_label=_("Points"))
        charts.append(mark_safe(chart))  # noqa: S308 - line_chart escapes every text it writes
    return render(request, "stats/progress.html", {"game": game, "charts": charts})


# --- exports -----------------------------------------------------------------------------------------


def game_print(request, pk: int):
    """A partnership game's sheet for paper and the club's notice board: every deal with its two boards
    (who played whom, who dealt, what happened), the deal's result and each side's running total. A game
    of two prints from its own scoresheet: it is sent there."""
    try:
        game = partnership_game(pk=pk)
    except Game.DoesNotExist:
        raise Http404(_("No game with this id.")) from None
    if not permissions.can_view_game(request.user, game):  # a private club's game: as if there were none
        raise Http404(_("No game with this id."))
    if not game.is_partnership:
        return redirect("game", pk=game.pk)
    sheet = partnership_sheet(game)
    names = game_names(game)
    totals = {side.first.pk: 0 for side in sheet.sides}
    rows = []
    for deal in sheet.deals:
        if deal.winner is not None:
            totals[deal.winner.first.pk] += deal.points
        boards = [
            (
                board,
                outcome_words(board.hand.result, names.get(board.hand.winner_id), board.hand.points)
                if board.hand is not None
                else "",
            )
            for board in deal.boards
        ]
        rows.append((deal, boards, dict(totals)))
    return render(
        request,
        "stats/game_print.html",
        {"game": game, "sheet": sheet, "rows": rows, "printed_on": timezone.localdate()},
    )


def _csv(lines, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _json(chunks, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(chunks, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def standings_csv(request, slug: str, pk: int):
    season = permissions.visible_season(request.user, slug, pk)
    rows = exports.standings_rows(season_standings(season))
    return _csv(exports.csv_lines(exports.STANDINGS_COLUMNS, rows), f"{slugify(season.name)}-standings.csv")


def _hands_csv(request, *, player=None, club=None, name: str):
    form = HandFilterForm(request.GET or None, player=player, club=club, viewer=request.user)
    if form.is_bound and not form.is_valid():
        return _history(request, player=player, club=club)  # the page, with the fields' errors
    filters = form.filters() if form.is_bound else {}
    hands = hand_history(viewer=request.user, player=player, club=club, **filters)
    return _csv(exports.csv_lines(exports.HAND_COLUMNS, exports.hand_rows(hands)), f"{slugify(name)}-hands.csv")


def player_hands_csv(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    return _hands_csv(request, player=player, name=player.name)


def club_hands_csv(request, slug: str):
    club = permissions.visible_club(request.user, slug)
    return _hands_csv(request, club=club, name=club.name)


def season_games_json(request, slug: str, pk: int):
    season = permissions.visible_season(request.user, slug, pk)
    games = Game.objects.filter(season=season)
    return _json(exports.game_records_json(games), f"{slugify(season.name)}-games.json")


def club_games_json(request, slug: str):
    club = permissions.visible_club(request.user, slug)
    games = Game.objects.filter(season__club=club)
    return _json(exports.game_records_json(games), f"{club.slug}-games.json")


def player_games_json(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    games = visible_games(request.user).filter(plays_q(player.pk))  # partnership games too
    return _json(exports.game_records_json(games), f"{slugify(player.name)}-games.json")


def player_detail(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    games = list(game_list(player=player, viewer=request.user)[:100])
    hands = list(hand_history(viewer=request.user, player=player)[:100])  # the one player-hands selector
    context = {"player": player, "games": games, "games_html": game_list_html(games), "hands": hands}
    return render(request, "players/player_detail.html", context)
