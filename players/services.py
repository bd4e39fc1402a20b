import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from players.models import NotificationPreference, Player

MAX_NAME_LENGTH = Player._meta.get_field("name").max_length

# Unicode's bidirectional controls (the Bidi_Control property): invisible, they reorder the text around
# them, so "Ann\u202e" could show as someone else's name or turn a line of a scoresheet round.
BIDI_CONTROLS = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


# Letters that draw as nothing (the Hangul fillers, the braille blank). With the invisible format characters
# (category Cf: the zero-width space, the joiners, a byte-order mark) no name starts or ends with them, and a
# name made only of them is no name: pasted in, "Ann\u200b" was another player than Ann, and "\u200b" a blank one.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _blank(character: str) -> bool:
    return character.isspace() or character in BLANK_LETTERS or unicodedata.category(character) in ("Cf", "Cc")


def clean_name(value: str | None) -> str:
    """A name as typed (a player's, a club's, a season's) with bidi controls removed, white space made single,
    and nothing invisible at either end ("" if nothing shows)."""
    text = " ".join((value or "").translate(BIDI_CONTROLS).split())
    start, end = 0, len(text)
    while start < end and _blank(text[start]):
        start += 1
    while end > start and _blank(text[end - 1]):
        end -= 1
    return text[start:end]


def player_get_or_create(*, name: str, created_by=None) -> Player:
    """The player with this name (any letter case), created if new."""
    cleaned = clean_name(name)
    if not cleaned:
        raise ValidationError({"name": _("Enter the player's name.")})
    if len(cleaned) > MAX_NAME_LENGTH:
        raise ValidationError({"name": _("A name has at most %(max)s characters.") % {"max": MAX_NAME_LENGTH}})
    existing = Player.objects.filter(name__iexact=cleaned).first()
    if existing:
        return existing
    try:
        with transaction.atomic():
            return Player.objects.create(name=cleaned, created_by=created_by)
    except IntegrityError:  # created by a concurrent request a moment ago
        return Player.objects.get(name__iexact=cleaned)


def clean_email(value: str, *, field: str = "email") -> str:
    """An e-mail address with the spaces trimmed ("" stays ""), or a refusal naming ``field``."""
    address = (value or "").strip()
    if address:
        try:
            validate_email(address)
        except ValidationError:
            raise ValidationError({field: _("%(address)r is not an e-mail address.") % {"address": address}}) from None
    return address


def account_email_set(*, user, email: str, notify: bool) -> None:
    """The account's e-mail address (may be empty: no e-mail at all) and whether it wants e-mail from us."""
    address = clean_email(email)
    with transaction.atomic():
        if user.email != address:
            user.email = address
            user.save(update_fields=["email"])
        NotificationPreference.objects.update_or_create(user=user, defaults={"email": bool(notify)})
