from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from players.models import Player

MAX_NAME_LENGTH = Player._meta.get_field("name").max_length


def player_get_or_create(*, name: str, created_by=None) -> Player:
    """The player with this name (any letter case), created if new."""
    cleaned = " ".join((name or "").split())
    if not cleaned:
        raise ValidationError({"name": "Enter the player's name."})
    if len(cleaned) > MAX_NAME_LENGTH:
        raise ValidationError({"name": f"A name has at most {MAX_NAME_LENGTH} characters."})
    existing = Player.objects.filter(name__iexact=cleaned).first()
    if existing:
        return existing
    try:
        with transaction.atomic():
            return Player.objects.create(name=cleaned, created_by=created_by)
    except IntegrityError:  # created by a concurrent request a moment ago
        return Player.objects.get(name__iexact=cleaned)
