"""Hand history: every hand a player or a club has played, filtered and paged.

``HandFilterForm`` reads the filters from the query string (clear messages
naming the field); ``hand_history`` is the selector that owns the joins; the
views page it by fetching one row more than a page, so no COUNT over a
club's hundreds of thousands of hands is ever needed.
"""

from __future__ import annotations

import datetime

from django import forms
from django.db import connections, router
from django.db.models import BooleanField, Q, QuerySet, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Mod
from django.forms.models import ModelChoiceIterator
from django.forms.utils import flatatt
from django.utils import timezone
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.models import Club, Player
from scoring.models import Hand, Result, Season
from scoring.selectors import plays_q
from scoring.stats.selectors import member_club_ids, visible_games

PAGE_SIZE = 50


def on_board_q(player_id: int) -> Q:
    """Hands ``player_id`` played: any hand of a two-handed game, or, of a partnership game, the boards they
    sat at (docs/rules.md, "Partnership gin"): the 1st always on board 1, the 3rd on board 2; the 2nd and the
    4th on boards 1 and 2, swapped on even deals when opponents alternate (scoring.engine.partnership.board_pairs).
    Asked of hands with the alias ``parity`` (the deal's number modulo 2), as ``hand_history`` makes it."""
    swapped = Q(game__rules__partner_opponents="alternate", parity=0)
    return (
        Q(board__isnull=True)
        | Q(game__player_one_id=player_id, board=1)
        | Q(game__player_three_id=player_id, board=2)
        | (Q(game__player_two_id=player_id) & ((Q(board=1) & ~swapped) | (Q(board=2) & swapped)))
        | (Q(game__player_four_id=player_id) & ((Q(board=2) & ~swapped) | (Q(board=1) & swapped)))
    )


class QuickSelect(forms.Select):
    """A <select> whose options are written here rather than by one template each: the same HTML,
    in a fraction of the time a club's four hundred members take through the option template (and
    through the option dictionaries the template is given). Options without groups."""

    def render(self, name, value, attrs=None, renderer=None):
        chosen, attrs = self.format_value(value), self.build_attrs(self.attrs, attrs)
        options, has_selected = [], False
        for option_value, label in self.choices:
            shown = "" if option_value is None else str(option_value)
            selected = not has_selected and shown in chosen  # the first match only, as Django's optgroups
            has_selected |= selected
            options.append(
                f'<option value="{escape(shown)}"{" selected" if selected else ""}>{conditional_escape(label)}</option>'
            )
        return format_html('<select name="{}"{}>{}</select>', name, flatatt(attrs), mark_safe("".join(options)))  # noqa: S308


class RowChoiceIterator(ModelChoiceIterator):
    """A ModelChoiceField's choices read as ``(id, label)`` rows (the field's ``option_rows``), not as models:
    making a club's four hundred members as Players was most of a history page's filter form."""

    def __iter__(self):
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        yield from self.field.option_rows(self.queryset)


class RowChoiceField(forms.ModelChoiceField):
    """A ModelChoiceField offering ``option_rows(queryset)``: ``(id, label)`` for each choice, in order (a choice
    sent back is still looked up in the queryset)."""

    iterator = RowChoiceIterator
    widget = QuickSelect

    def __init__(self, *args, option_rows, **kwargs):
        super().__init__(*args, **kwargs)
        self.option_rows = option_rows


def _player_rows(players: QuerySet[Player]):
    return players.values_list("pk", "name")


def _season_rows(seasons: QuerySet[Season]):
    return ((pk, f"{club}: {name}") for pk, club, name in seasons.values_list("pk", "club__name", "name"))


class HandFilterForm(forms.Form):
    opponent = RowChoiceField(
        queryset=Player.objects.none(),
        required=False,
        label=gettext_lazy("Opponent"),
        empty_label=gettext_lazy("Anyone"),
        option_rows=_player_rows,
    )
    season = RowChoiceField(
        queryset=Season.objects.none(),
        required=False,
        label=gettext_lazy("Season"),
        empty_label=gettext_lazy("Any season"),
        option_rows=_season_rows,
    )
    ending = forms.ChoiceField(
        choices=[("", gettext_lazy("Any ending")), *Result.choices], required=False, label=gettext_lazy("Ending")
    )
    date_from = forms.DateField(
        required=False, label=gettext_lazy("From date"), widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        required=False, label=gettext_lazy("To date"), widget=forms.DateInput(attrs={"type": "date"})
    )
    points_min = forms.IntegerField(required=False, min_value=0, label=gettext_lazy("Points from"))
    points_max = forms.IntegerField(required=False, min_value=0, label=gettext_lazy("Points to"))

    def __init__(self, data=None, *, player: Player | None = None, club: Club | None = None, viewer=None):
        super().__init__(data)
        seasons = Season.objects.filter(Q(club__is_public=True) | Q(club_id__in=member_club_ids(viewer)))
        if club is not None:
            seasons = seasons.filter(club=club)
            opponents = Player.objects.filter(memberships__club=club)
            self.fields["opponent"].label = _("Player")
            self.fields["opponent"].empty_label = _("Any player")
        else:
            seasons = seasons.filter(players=player)
            met = visible_games(viewer).filter(plays_q(player.pk))
            opponents = Player.objects.filter(
                Q(pk__in=met.values("player_one_id"))
                | Q(pk__in=met.values("player_two_id"))
                | Q(pk__in=met.values("player_three_id"))
                | Q(pk__in=met.values("player_four_id"))
            ).exclude(pk=player.pk)
            self.fields["opponent"].label = _("Opponent")
        self.fields["opponent"].queryset = opponents.order_by("name")
        self.fields["season"].queryset = seasons.select_related("club").order_by("-created_at")

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_to"] < data["date_from"]:
            self.add_error("date_to", _("To date must be on or after the from date."))
        low, high = data.get("points_min"), data.get("points_max")
        if low is not None and high is not None and high < low:
            self.add_error("points_max", _("Points to must be at least points from."))
        return data

    def filters(self) -> dict:
        """The cleaned filters as keyword arguments of ``hand_history`` (call after is_valid)."""
        data = self.cleaned_data
        return {
            "opponent": data.get("opponent"),
            "season": data.get("season"),
            "result": data.get("ending") or None,
            "date_from": data.get("date_from"),
            "date_to": data.get("date_to"),
            "points_min": data.get("points_min"),
            "points_max": data.get("points_max"),
        }


def _of_games(ids: list[int]) -> Q:
    """Hands of the games ``ids``. On PostgreSQL the ids are one array (``= ANY``): a list of several hundred
    placeholders, each compiled by the ORM and then written into the statement by psycopg, was ~10 ms of CPU on
    every history page of a player with a few hundred games."""
    connection = connections[router.db_for_read(Hand)]
    if connection.vendor != "postgresql":
        return Q(game_id__in=ids)
    quote = connection.ops.quote_name
    column = f"{quote(Hand._meta.db_table)}.{quote(Hand._meta.get_field('game').column)}"
    any_of = f"{column} = ANY(%s::bigint[])"  # the model's own column, quoted; the ids a parameter
    return Q(RawSQL(any_of, (ids,), output_field=BooleanField()))  # noqa: S611


def _start_of(day: datetime.date) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def hand_history(
    *,
    viewer,
    player: Player | None = None,
    club: Club | None = None,
    opponent: Player | None = None,
    season: Season | None = None,
    result: str | None = None,
    date_from: datetime.date | None = None,
    date_to: datetime.date | None = None,
    points_min: int | None = None,
    points_max: int | None = None,
) -> QuerySet[Hand]:
    """Hands of ``player``'s games (or of ``club``'s seasons) the viewer may see, newest game first.

    With a club, ``opponent`` narrows to one member's games; with a player, to
    the games against that opponent. Private clubs' hands only for their members.
    A player's partnership games give the boards they played (against ``opponent``: the boards the two
    faced each other on).
    """
    if player is not None:
        games = visible_games(viewer).filter(plays_q(player.pk))
        if club is not None:
            games = games.filter(season__club=club)
        if opponent is not None:
            games = games.filter(plays_q(opponent.pk))
        if season is not None:
            games = games.filter(season=season)
        # A player's games are a few hundred ids: read them first, so the database picks the hands
        # by game (an index) instead of walking a club's whole hand table newest first.
        found = list(games.values_list("pk", "player_three_id"))
        hands = Hand.objects.filter(_of_games([pk for pk, _partner in found]))
        if any(partner is not None for _pk, partner in found):  # partnership games: the player's own boards
            hands = hands.alias(parity=Mod("number", Value(2))).filter(on_board_q(player.pk))
            if opponent is not None:
                hands = hands.filter(on_board_q(opponent.pk))
    elif club is not None:
        # The club's hands through the joins the page reads anyway (game, season): no subquery of
        # games for the planner to weigh. A private club's hands only for its members.
        hands = Hand.objects.filter(game__season__club=club)
        if not club.is_public:
            hands = hands.filter(game__season__club_id__in=member_club_ids(viewer))
        if opponent is not None:
            hands = hands.filter(Q(game__player_one=opponent) | Q(game__player_two=opponent))
        if season is not None:
            hands = hands.filter(game__season=season)
    else:
        hands = Hand.objects.filter(game__in=visible_games(viewer).values("pk"))
    if result:
        hands = hands.filter(result=result)
    if date_from:
        hands = hands.filter(created_at__gte=_start_of(date_from))
    if date_to:
        hands = hands.filter(created_at__lt=_start_of(date_to + datetime.timedelta(days=1)))
    if points_min is not None:
        hands = hands.filter(points__gte=points_min)
    if points_max is not None:
        hands = hands.filter(points__lte=points_max)
    return hands.select_related(
        "game", "game__player_one", "game__player_two", "game__season", "by", "winner", "dealer"
    ).order_by("-game_id", "-number", "-board")


def page_of(hands: QuerySet[Hand], page: int, size: int = PAGE_SIZE) -> tuple[list[Hand], bool]:
    """One page (1-based) and whether another follows: one query (a second when it holds partnership
    boards, for their games' partners), no COUNT.

    The hand's dealer, knocker and winner are always among its game's players: they are
    taken from the game's (joined) players instead of three more joins, which cost PostgreSQL's
    planner more than the page itself does at club scale.
    """
    start = (max(1, page) - 1) * size
    rows = list(
        hands.select_related(None).select_related("game", "game__player_one", "game__player_two", "game__season")[
            start : start + size + 1
        ]
    )
    # A partnership board's players beyond the game's first two: one read for the page.
    partner_ids = {pk for hand in rows if hand.game.is_partnership for pk in hand.game.player_ids[2:]}
    partners = Player.objects.in_bulk(partner_ids) if partner_ids else {}
    for hand in rows:
        players = {hand.game.player_one_id: hand.game.player_one, hand.game.player_two_id: hand.game.player_two}
        if hand.game.is_partnership:
            hand.game.player_three = partners[hand.game.player_three_id]
            hand.game.player_four = partners[hand.game.player_four_id]
            players.update({pk: partners[pk] for pk in hand.game.player_ids[2:]})
        for name in ("dealer", "by", "winner"):
            player_id = getattr(hand, f"{name}_id")
            if player_id in players:
                setattr(hand, name, players[player_id])
    return rows[:size], len(rows) > size
