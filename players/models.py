from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _


class Player(models.Model):
    """Somebody who plays; may be a guest with no account."""

    name = models.CharField(max_length=60)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(Lower("name"), name="player_name_unique_ci"),
            models.CheckConstraint(condition=~models.Q(name=""), name="player_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name


class SiteSettings(models.Model):
    """Install-wide switches the owner controls (a single row, pk=1)."""

    signup_open = models.BooleanField(default=True, help_text=_("Anyone may create an account"))
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("site settings")
        verbose_name_plural = _("site settings")

    def __str__(self) -> str:
        return gettext("Site settings")

    @classmethod
    def load(cls) -> "SiteSettings":
        settings_row, _ = cls.objects.get_or_create(pk=1)
        return settings_row


class Role(models.TextChoices):
    OWNER = "owner", pgettext_lazy("a club member's role", "Owner")
    ADMIN = "admin", pgettext_lazy("a club member's role", "Admin")
    PLAYER = "player", pgettext_lazy("a club member's role", "Player")


MANAGER_ROLES = (Role.OWNER, Role.ADMIN)


class Club(models.Model):
    """A club that runs leagues; a private club is invisible to outsiders."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    is_public = models.BooleanField(default=True, help_text=_("Anyone may see the club, its seasons and standings"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~models.Q(name=""), name="club_name_not_empty")]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A player in a club with a role. The player may be a guest (no account)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club", "player__name"]
        constraints = [models.UniqueConstraint(fields=["club", "player"], name="membership_unique_per_club")]

    def __str__(self) -> str:
        return f"{self.player} in {self.club} ({self.role})"

    @property
    def is_manager(self) -> bool:
        return self.role in MANAGER_ROLES


class Invitation(models.Model):
    """A link (token URL) that adds its holder to a club, or lets them claim a guest's record."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    # A guest's record the invitation lets its holder claim (Player.user is set on acceptance).
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    # The address the link was e-mailed to: an account that accepts it without an address gets this one.
    email = models.EmailField(blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Invitation to {self.club} ({self.role})"

    @property
    def is_used(self) -> bool:
        return self.accepted_at is not None


class NotificationPreference(models.Model):
    """Whether an account is sent e-mail about what needs it (no row: yes, when it has an address)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    email = models.BooleanField(default=True, help_text=_("Send me e-mail about results, disputes, fixtures due"))

    def __str__(self) -> str:
        return f"E-mail {'on' if self.email else 'off'} for {self.user}"


class LanguageChoice(models.Model):
    """The language an account chose for its pages and e-mail, on every device (blank or no row: the browser's)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_choice")
    # A code of settings.LANGUAGES; not choices here, so a language added later needs no migration.
    language = models.CharField(max_length=10, blank=True, default="")
    # Without a choice, e-mail (which has no browser) is written in the language the account signed up in,
    # else the one it last signed in with (players.languages.mail_languages_of_addresses).
    signed_up_in = models.CharField(max_length=10, blank=True, default="")
    last_used = models.CharField(max_length=10, blank=True, default="")

    def __str__(self) -> str:
        return f"{self.language or 'browser'} for {self.user}"
