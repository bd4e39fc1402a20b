"""Query-string filters for the API's lists (django-filter)."""

from django import forms
from django.db.models import Q
from django.utils.translation import gettext as _
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from players.models import Club, Membership, Player, Role
from scoring.engine.rules import PRESETS
from scoring.models import Fixture, Game, LeagueStatus, Season, SeasonFormat
from scoring.selectors import plays_q


class StrictBooleanField(forms.Field):
    """true or false (1 or 0); anything else is an error rather than "no filter"."""

    values = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value):
        if value in (None, ""):
            return None
        try:
            return self.values[str(value).lower()]
        except KeyError:
            raise forms.ValidationError(_("Use true or false.")) from None


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(filters.BooleanFilter):
    field_class = StrictBooleanField

    def __init__(self, *args, **kwargs):
        kwargs["widget"] = forms.TextInput  # not DRF's BooleanWidget, which turns unknown text into "no filter"
        super().__init__(*args, **kwargs)


MAX_ID = 2**63 - 1  # a database id; larger numbers cannot even be sent to SQLite


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(filters.NumberFilter):
    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class StrictFilterSet(filters.FilterSet):
    """A parameter given with no value (``?over=``) is an error, not a silent "no filter"."""

    def is_valid(self):
        valid = super().is_valid()
        for name in self.filters:
            if name in self.data and self.data.get(name) == "":
                self.form.add_error(name, _("Give a value, or leave the parameter out."))
                valid = False
        return valid


class PlayerFilter(StrictFilterSet):
    name = filters.CharFilter(field_name="name", lookup_expr="icontains", help_text="Part of the name, any case.")

    class Meta:
        model = Player
        fields = ["name"]


class GameFilter(StrictFilterSet):
    player = IdFilter(method="filter_player", help_text="Games in which this player (id) sat.")
    over = StrictBooleanFilter(field_name="over", help_text="true: finished games; false: games in progress.")
    preset = filters.ChoiceFilter(choices=[(name, name) for name in PRESETS], field_name="preset")
    created_after = filters.DateFilter(field_name="created_at", lookup_expr="date__gte", help_text="YYYY-MM-DD")
    created_before = filters.DateFilter(field_name="created_at", lookup_expr="date__lte", help_text="YYYY-MM-DD")
    season = IdFilter(field_name="season_id", help_text="League games of this season (id).")
    league_status = filters.ChoiceFilter(
        choices=LeagueStatus.choices, field_name="league_status", help_text="League games in this state."
    )

    class Meta:
        model = Game
        fields = ["player", "over", "preset", "created_after", "created_before", "season", "league_status"]

    def filter_player(self, queryset, name, value):
        return queryset.filter(plays_q(value))  # a partnership game's four players too


# ---------------------------------------------------------------------------
# League


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": 32767})
class RoundFilter(filters.NumberFilter):
    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 32767)
        super().__init__(*args, **kwargs)


class ClubFilter(StrictFilterSet):
    name = filters.CharFilter(field_name="name", lookup_expr="icontains", help_text="Part of the name, any case.")
    is_public = StrictBooleanFilter(field_name="is_public", help_text="true: public clubs; false: private ones.")

    class Meta:
        model = Club
        fields = ["name", "is_public"]


class MemberFilter(StrictFilterSet):
    role = filters.ChoiceFilter(choices=Role.choices, field_name="role")

    class Meta:
        model = Membership
        fields = ["role"]


class SeasonFilter(StrictFilterSet):
    club = IdFilter(field_name="club_id", help_text="Seasons of this club (id).")
    # Not "format": DRF reads ?format= as the response format (json, api).
    season_format = filters.ChoiceFilter(
        choices=SeasonFormat.choices, field_name="format", help_text="Seasons of this format."
    )

    class Meta:
        model = Season
        fields = ["club", "season_format"]


class FixtureFilter(StrictFilterSet):
    season = IdFilter(field_name="season_id", help_text="Fixtures of this season (id).")
    played = StrictBooleanFilter(
        field_name="game",
        lookup_expr="isnull",
        exclude=True,
        help_text="true: the game has been started; false: not yet.",
    )
    player = IdFilter(method="filter_player", help_text="Fixtures in which this player (id) plays, home or away.")
    round = RoundFilter(field_name="round", help_text="One round.")

    class Meta:
        model = Fixture
        fields = ["season", "played", "player", "round"]

    def filter_player(self, queryset, name, value):
        return queryset.filter(Q(home_id=value) | Q(away_id=value))
