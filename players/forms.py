"""Account forms: sign-up (the first owner too), the owner's site settings and the account's e-mail settings."""

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy

from players.models import Player, SiteSettings
from players.services import clean_name


class SignUpForm(UserCreationForm):
    """An account, optionally with a new player name linked to it."""

    player_name = forms.CharField(
        label=gettext_lazy("Your name at the table"),
        max_length=60,
        required=False,
        help_text=gettext_lazy("Optional. Creates your player, so you can score your own games."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def clean_player_name(self):
        name = clean_name(self.cleaned_data.get("player_name", ""))
        if name and Player.objects.filter(name__iexact=name).exists():
            raise forms.ValidationError(
                gettext_lazy(
                    "Your name at the table: that player already exists; "
                    "choose another name or ask the owner to link you."
                )
            )
        return name


class SiteSettingsForm(forms.ModelForm):
    class Meta:
        model = SiteSettings
        fields = ("signup_open",)
        labels = {"signup_open": gettext_lazy("Anyone may create an account (sign-up page open)")}


class EmailSettingsForm(forms.Form):
    """The account's e-mail address and whether it wants e-mail about what needs it."""

    email = forms.EmailField(
        label=gettext_lazy("E-mail address"),
        required=False,
        help_text=gettext_lazy("Optional. Without one you get no e-mail from us."),
    )
    notify = forms.BooleanField(
        label=gettext_lazy(
            "E-mail me when a result waits for my confirmation, a result is disputed or a fixture is due"
        ),
        required=False,
    )


def language_choices() -> list[tuple[str, str]]:
    """Each shipped language in its own name, after "as the browser says" (the value "")."""
    return [("", gettext_lazy("As the browser says")), *settings.LANGUAGES]


class LanguageForm(forms.Form):
    """The language of the pages (and, for an account, its e-mail): the footer's and the account page's."""

    language = forms.ChoiceField(label=gettext_lazy("Language"), choices=language_choices, required=False)
