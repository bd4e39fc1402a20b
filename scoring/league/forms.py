"""Forms of the club and league pages: they only parse input; the services decide."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import connections
from django.utils.functional import lazy
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from players.models import Player, Role
from scoring.engine.overrides import parse_override_lines
from scoring.engine.rules import FIELD_LABELS, PARTNERSHIP_RULES, PRESET_LABELS, TWO_PLAYER_PRESETS, RuleError
from scoring.league.standings import DEFAULT_RANKING, RANKING_CRITERIA
from scoring.models import Season, SeasonFormat


class ClubForm(forms.Form):
    name = forms.CharField(max_length=100, label=gettext_lazy("Club name"))
    is_public = forms.BooleanField(
        required=False, initial=True, label=gettext_lazy("Public (anyone may see the club and its standings)")
    )


class GuestForm(forms.Form):
    name = forms.CharField(max_length=60, label=gettext_lazy("Player's name"))


ROLE_CHOICES = [(Role.PLAYER, gettext_lazy("Player")), (Role.ADMIN, gettext_lazy("Admin"))]


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=ROLE_CHOICES)


class InvitationForm(forms.Form):
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial=Role.PLAYER, label=gettext_lazy("Role"))
    player = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        required=False,
        empty_label=gettext_lazy("A new member"),
        label=gettext_lazy("Claims the record of"),
        help_text=gettext_lazy("Choose a guest to let them take over their games and results with their own account."),
    )
    email = forms.EmailField(
        required=False,
        label=gettext_lazy("E-mail it to"),
        help_text=gettext_lazy("Optional: the link is e-mailed to this address too."),
    )

    def __init__(self, *args, guests=None, **kwargs):
        super().__init__(*args, **kwargs)
        if guests is not None:
            self.fields["player"].queryset = guests


RANKING_CHOICES = list(RANKING_CRITERIA.items())


def _rule_changes_help() -> SafeString:
    """How to write a rule change, and the rules the box knows: each name as it is typed (the same in
    every language, so set as code) with its label in the reader's language."""
    names = format_html_join(
        ", ",
        "<code>{}</code> ({})",
        ((name, _(str(label))) for name, label in FIELD_LABELS.items() if name not in PARTNERSHIP_RULES),
    )
    return format_html("{}{}", _("One per line, e.g. target = 150 or line_bonus = off. Rules: "), names)


def _best_of(count: int) -> str:
    return _("Best of %(count)s") % {"count": count}


_rule_changes_help_lazy = lazy(_rule_changes_help, SafeString)
_best_of_lazy = lazy(_best_of, str)


class RankingForm(forms.Form):
    ranking_1 = forms.ChoiceField(choices=RANKING_CHOICES, initial=DEFAULT_RANKING[0], label=gettext_lazy("Rank by"))
    ranking_2 = forms.ChoiceField(
        choices=[("", gettext_lazy("(nothing)")), *RANKING_CHOICES],
        required=False,
        initial=DEFAULT_RANKING[1],
        label=gettext_lazy("Then by"),
    )
    ranking_3 = forms.ChoiceField(
        choices=[("", gettext_lazy("(nothing)")), *RANKING_CHOICES],
        required=False,
        initial=DEFAULT_RANKING[2],
        label=gettext_lazy("Then by"),
    )

    def ranking(self) -> list[str]:
        return [self.cleaned_data[name] for name in ("ranking_1", "ranking_2", "ranking_3") if self.cleaned_data[name]]


class PlayersField(forms.ModelMultipleChoiceField):
    """Players ticked, by id. An id no id column can hold is refused as any unknown choice is: on SQLite the
    ORM's ``pk__in`` look-up sent it to the driver, which raised OverflowError (a crash page)."""

    def _check_values(self, value):
        pk = self.queryset.model._meta.pk
        low, high = connections[self.queryset.db].ops.integer_field_range(pk.get_internal_type())
        for choice in value:
            try:
                number = int(str(choice).strip())
            except ValueError:
                continue  # not a number at all: the field's own check refuses it
            if not low <= number <= high:
                raise ValidationError(
                    self.error_messages["invalid_choice"], code="invalid_choice", params={"value": choice}
                )
        return super()._check_values(value)


class SeasonForm(RankingForm):
    name = forms.CharField(max_length=100, label=gettext_lazy("Season name"))
    format = forms.ChoiceField(choices=SeasonFormat.choices, initial=SeasonFormat.SINGLE, label=gettext_lazy("Format"))
    preset = forms.ChoiceField(
        choices=[(key, gettext_lazy(PRESET_LABELS[key])) for key in TWO_PLAYER_PRESETS],
        initial="standard",
        label=gettext_lazy("Rules"),
    )
    overrides = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label=gettext_lazy("Rule changes"),
        help_text=_rule_changes_help_lazy(),
    )
    starts_on = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}), label=gettext_lazy("Starts on")
    )
    ends_on = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}), label=gettext_lazy("Ends on")
    )
    players = PlayersField(
        queryset=Player.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("Players"),
        required=False,
        help_text=gettext_lazy("A Swiss night: the players ticked are checked in; the rest check in on the night."),
    )
    best_of = forms.TypedChoiceField(
        choices=[(n, _best_of_lazy(n) if n > 1 else gettext_lazy("One game")) for n in (1, 3, 5, 7)],
        coerce=int,
        required=False,
        empty_value=1,
        initial=1,
        label=gettext_lazy("Knockout ties"),
        help_text=gettext_lazy(
            "A knockout cup or playoffs: each tie is one game to the target, or the best of several."
        ),
    )
    playoff_size = forms.IntegerField(
        required=False,
        min_value=2,
        label=gettext_lazy("Players into the playoffs"),
        help_text=gettext_lazy("Round robin + playoffs: the top this many of the final standings play a knockout."),
    )
    seeded_from = forms.ModelChoiceField(
        queryset=Season.objects.none(),
        required=False,
        empty_label=gettext_lazy("By the club's ratings"),
        label=gettext_lazy("Seed the cup"),
        help_text=gettext_lazy(
            "A knockout cup is seeded by the club's ratings, or by a closed season's final standings."
        ),
    )
    swiss_rounds = forms.IntegerField(
        required=False,
        min_value=1,
        label=gettext_lazy("Rounds tonight"),
        help_text=gettext_lazy("A Swiss night: how many rounds; leave empty to play as many as you start."),
    )
    round_minutes = forms.IntegerField(
        required=False,
        min_value=1,
        label=gettext_lazy("Round length (minutes)"),
        help_text=gettext_lazy(
            "A Swiss night: leave empty to play each game to the target, or give minutes for a timed round."
        ),
    )
    points_per_win = forms.TypedChoiceField(
        choices=[(1, gettext_lazy("1 (win 1, loss 0)")), (3, gettext_lazy("3 (win 3, loss 0)"))],
        coerce=int,
        initial=1,
        required=False,
        empty_value=1,  # not given (a season of another format): the usual 1
        label=gettext_lazy("Match points for a win"),
        help_text=gettext_lazy("A Swiss night: what a win (and a bye) is worth in its standings."),
    )
    field_order = [
        "name",
        "format",
        "preset",
        "overrides",
        "starts_on",
        "ends_on",
        "players",
        "best_of",
        "playoff_size",
        "seeded_from",
        "swiss_rounds",
        "round_minutes",
        "points_per_win",
    ]

    def __init__(self, *args, members=None, closed_seasons=None, **kwargs):
        super().__init__(*args, **kwargs)
        if members is not None:
            self.fields["players"].queryset = members
            if not self.is_bound:
                self.initial["players"] = list(members)
        if closed_seasons is not None:
            self.fields["seeded_from"].queryset = closed_seasons

    def ranking(self) -> list[str] | None:
        """The criteria chosen; a Swiss night left at the form's defaults (games won, net points,
        head-to-head: a round robin's) gets the night's own tie-breakers (None: Buchholz first)."""
        chosen = super().ranking()
        if self.cleaned_data.get("format") == SeasonFormat.SWISS and chosen == DEFAULT_RANKING:
            return None
        return chosen

    def clean_overrides(self):
        try:  # the one override parser: the same words mean the same on the new-game form and the API
            return parse_override_lines(self.cleaned_data.get("overrides", ""))
        except RuleError as error:
            raise forms.ValidationError(error.message) from None

    def rules(self) -> dict:
        return {"preset": self.cleaned_data["preset"], **self.cleaned_data["overrides"]}


class OpenGameForm(forms.Form):
    player_one = forms.ModelChoiceField(queryset=Player.objects.none(), label=gettext_lazy("Player"))
    player_two = forms.ModelChoiceField(queryset=Player.objects.none(), label=gettext_lazy("against"))

    def __init__(self, *args, entrants=None, **kwargs):
        super().__init__(*args, **kwargs)
        if entrants is not None:
            self.fields["player_one"].queryset = entrants
            self.fields["player_two"].queryset = entrants

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("player_one") and cleaned.get("player_one") == cleaned.get("player_two"):
            self.add_error("player_two", _("Choose two different players."))
        return cleaned


class DueForm(forms.Form):
    round = forms.IntegerField(min_value=1, label=gettext_lazy("Round"))
    due_on = forms.DateField(
        required=False,
        label=gettext_lazy("Due on"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=gettext_lazy("Leave empty for no due date."),
    )


class TieGameForm(forms.Form):
    player_one = forms.ModelChoiceField(queryset=Player.objects.all())
    player_two = forms.ModelChoiceField(queryset=Player.objects.all())


class ConfirmForm(forms.Form):
    comment = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))


class DisputeForm(forms.Form):
    comment = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label=gettext_lazy("What is wrong?"),
        error_messages={"required": gettext_lazy("Say what is wrong with the result, for the club's admins.")},
    )


class PairForm(forms.Form):
    first_round = forms.ChoiceField(
        choices=[("rating", gettext_lazy("By rating (Elo)")), ("random", gettext_lazy("At random"))],
        initial="rating",
        required=False,
        label=gettext_lazy("Round 1"),
    )


class SwapForm(forms.Form):
    one = forms.ModelChoiceField(
        queryset=Player.objects.none(), label=pgettext_lazy("form label: swap one player with another", "Swap")
    )
    two = forms.ModelChoiceField(queryset=Player.objects.none(), label=gettext_lazy("with"))

    def __init__(self, *args, seated=None, **kwargs):
        super().__init__(*args, **kwargs)
        if seated is not None:
            self.fields["one"].queryset = seated
            self.fields["two"].queryset = seated
