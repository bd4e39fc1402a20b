from django import forms
from django.contrib.auth.forms import UserCreationForm

from players.models import Player, SiteSettings
from players.services import clean_name


class SignUpForm(UserCreationForm):
    """An account, optionally with a new player name linked to it."""

    player_name = forms.CharField(
        label="Your name at the table",
        max_length=60,
        required=False,
        help_text="Optional. Creates your player, so you can score your own games.",
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def clean_player_name(self):
        name = clean_name(self.cleaned_data.get("player_name", ""))
        if name and Player.objects.filter(name__iexact=name).exists():
            raise forms.ValidationError(
                "Your name at the table: that player already exists; choose another name or ask the owner to link you."
            )
        return name


class SiteSettingsForm(forms.ModelForm):
    class Meta:
        model = SiteSettings
        fields = ("signup_open",)
        labels = {"signup_open": "Anyone may create an account (sign-up page open)"}


class EmailSettingsForm(forms.Form):
    """The account's e-mail address and whether it wants e-mail about what needs it."""

    email = forms.EmailField(
        label="E-mail address", required=False, help_text="Optional. Without one you get no e-mail from us."
    )
    notify = forms.BooleanField(
        label="E-mail me when a result waits for my confirmation, a result is disputed or a fixture is due",
        required=False,
    )
