"""Forms of the club and league pages: they only parse input; the services decide."""

from __future__ import annotations

from django import forms

from players.models import Player, Role
from scoring.engine.rules import FIELD_LABELS, PRESET_LABELS, RULE_FIELDS
from scoring.league.standings import DEFAULT_RANKING, RANKING_CRITERIA
from scoring.models import SeasonFormat


class ClubForm(forms.Form):
    name = forms.CharField(max_length=100, label="Club name")
    is_public = forms.BooleanField(
        required=False, initial=True, label="Public (anyone may see the club and its standings)"
    )


class GuestForm(forms.Form):
    name = forms.CharField(max_length=60, label="Player's name")


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=[(Role.PLAYER, "Player"), (Role.ADMIN, "Admin")])


class InvitationForm(forms.Form):
    role = forms.ChoiceField(choices=[(Role.PLAYER, "Player"), (Role.ADMIN, "Admin")], initial=Role.PLAYER)
    player = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        required=False,
        empty_label="A new member",
        label="Claims the record of",
        help_text="Choose a guest to let them take over their games and results with their own account.",
    )

    def __init__(self, *args, guests=None, **kwargs):
        super().__init__(*args, **kwargs)
        if guests is not None:
            self.fields["player"].queryset = guests


def _parse_value(text: str):
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "none", "off", ""):
        return None
    try:
        return int(lowered)
    except ValueError:
        return text.strip()


def parse_overrides(text: str) -> dict:
    """``target = 150`` lines -> {"target": 150}; a malformed line raises ValidationError."""
    overrides: dict = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        if "=" not in line:
            raise forms.ValidationError(f"Line {number}: write a rule as name = value, e.g. target = 150.")
        name, value = (part.strip() for part in line.split("=", 1))
        if name not in RULE_FIELDS:
            known = ", ".join(RULE_FIELDS)
            raise forms.ValidationError(f"Line {number}: {name!r} is not a rule. Known rules: {known}.")
        overrides[name] = _parse_value(value)
    return overrides


RANKING_CHOICES = list(RANKING_CRITERIA.items())


class RankingForm(forms.Form):
    ranking_1 = forms.ChoiceField(choices=RANKING_CHOICES, initial=DEFAULT_RANKING[0], label="Rank by")
    ranking_2 = forms.ChoiceField(
        choices=[("", "(nothing)"), *RANKING_CHOICES], required=False, initial=DEFAULT_RANKING[1],
        label="Then by",
    )
    ranking_3 = forms.ChoiceField(
        choices=[("", "(nothing)"), *RANKING_CHOICES], required=False, initial=DEFAULT_RANKING[2],
        label="Then by",
    )

    def ranking(self) -> list[str]:
        return [self.cleaned_data[name] for name in ("ranking_1", "ranking_2", "ranking_3") if self.cleaned_data[name]]


class SeasonForm(RankingForm):
    name = forms.CharField(max_length=100, label="Season name")
    format = forms.ChoiceField(choices=SeasonFormat.choices, initial=SeasonFormat.SINGLE)
    preset = forms.ChoiceField(choices=list(PRESET_LABELS.items()), initial="standard", label="Rules")
    overrides = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Rule changes",
        help_text="One per line, e.g. target = 150. Rules: "
        + ", ".join(f"{name} ({label})" for name, label in FIELD_LABELS.items()),
    )
    starts_on = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    ends_on = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(), widget=forms.CheckboxSelectMultiple, label="Players"
    )
    field_order = ["name", "format", "preset", "overrides", "starts_on", "ends_on", "players"]

    def __init__(self, *args, members=None, **kwargs):
        super().__init__(*args, **kwargs)
        if members is not None:
            self.fields["players"].queryset = members
            if not self.is_bound:
                self.initial["players"] = list(members)

    def clean_overrides(self):
        return parse_overrides(self.cleaned_data.get("overrides", ""))

    def rules(self) -> dict:
        return {"preset": self.cleaned_data["preset"], **self.cleaned_data["overrides"]}


class OpenGameForm(forms.Form):
    player_one = forms.ModelChoiceField(queryset=Player.objects.none(), label="Player")
    player_two = forms.ModelChoiceField(queryset=Player.objects.none(), label="against")

    def __init__(self, *args, entrants=None, **kwargs):
        super().__init__(*args, **kwargs)
        if entrants is not None:
            self.fields["player_one"].queryset = entrants
            self.fields["player_two"].queryset = entrants

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("player_one") and cleaned.get("player_one") == cleaned.get("player_two"):
            self.add_error("player_two", "Choose two different players.")
        return cleaned


class ConfirmForm(forms.Form):
    comment = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))


class DisputeForm(forms.Form):
    comment = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="What is wrong?",
        error_messages={"required": "Say what is wrong with the result, for the club's admins."},
    )
