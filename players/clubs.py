"""Clubs, members, roles and invitations: every write goes through these functions.

Who may see or do what is decided here too (``club_role``, ``can_view_club``,
``can_manage_club``) so views and templates only ask.
"""

from __future__ import annotations

import secrets

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.text import format_lazy, slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.mail import absolute_url, send_after_commit
from players.models import MANAGER_ROLES, Club, Invitation, Membership, Player, Role
from players.services import MAX_NAME_LENGTH, clean_email, clean_name, player_get_or_create


def _is_user(user) -> bool:
    return user is not None and getattr(user, "is_authenticated", False)


# --- reads -------------------------------------------------------------------------------------------


def player_of(user) -> Player | None:
    """The player record linked to ``user`` (None for anonymous or a user who has none).

    Remembered on the user object (one request) once found, as ``club_role`` does: a page asks
    once per fixture or game it shows. A user without one is asked again, so a record linked
    later in the same request (accepting an invitation) is found.
    """
    if not _is_user(user):
        return None
    player = getattr(user, "_player_of", None)
    if player is None:
        player = Player.objects.filter(user=user).first()
        if player is not None:
            user._player_of = player
    return player


def club_role(user, club: Club) -> str | None:
    """``owner``, ``admin``, ``player`` or None (outsider or anonymous)."""
    if not _is_user(user):
        return None
    cache = getattr(user, "_club_roles", None)
    if cache is None:
        cache = user._club_roles = {}
    if club.pk not in cache:
        cache[club.pk] = Membership.objects.filter(club=club, player__user=user).values_list("role", flat=True).first()
    return cache[club.pk]


def can_view_club(user, club: Club) -> bool:
    return club.is_public or club_role(user, club) is not None


def can_manage_club(user, club: Club) -> bool:
    return club_role(user, club) in MANAGER_ROLES


def clubs_visible_to(user) -> QuerySet[Club]:
    """Public clubs plus the private clubs ``user`` belongs to, with ``my_role`` annotated."""
    clubs = Club.objects.all()
    if _is_user(user):
        mine = Membership.objects.filter(club=OuterRef("pk"), player__user=user)
        clubs = clubs.annotate(is_member=Exists(mine), my_role=mine.values("role")[:1])
        return clubs.filter(Q(is_public=True) | Q(is_member=True)).order_by("name")
    return clubs.filter(is_public=True).order_by("name")


def club_members(club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("player", "player__user").order_by("player__name")


def clubs_not_run_by(user, player: Player) -> QuerySet[Club]:
    """The clubs ``player`` belongs to that ``user`` does not run (as owner or admin); all of them for
    anonymous or None. Taking a record into another club, or merging it, needs this to be empty."""
    held = Club.objects.filter(memberships__player=player)
    if not _is_user(user):
        return held
    run = Membership.objects.filter(player__user=user, role__in=MANAGER_ROLES).values("club_id")
    return held.exclude(pk__in=run)


# --- writes ------------------------------------------------------------------------------------------


def player_for_user(*, user) -> Player:
    """The user's player record, created (named after the account) if they have none."""
    existing = player_of(user)
    if existing:
        return existing
    base = (user.get_full_name() or user.get_username())[:MAX_NAME_LENGTH]
    candidates = [base] + [f"{base[: MAX_NAME_LENGTH - 4]} ({n})" for n in range(2, 50)]
    for name in candidates:
        if Player.objects.filter(name__iexact=name).exists():
            continue
        try:
            with transaction.atomic():
                return Player.objects.create(name=name, user=user, created_by=user)
        except IntegrityError:
            continue
    raise ValidationError({"name": _("Could not find a free player name for this account.")})


RESERVED_SLUGS = {"join", "games"}  # first path segments of scoring/league_urls.py


def _unique_slug(name: str) -> str:
    base = slugify(name)[:90] or "club"
    slug, n = base, 2
    while slug in RESERVED_SLUGS or Club.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def club_create(*, name: str, owner, is_public: bool = True) -> Club:
    """A new club; its creator is its owner."""
    cleaned = clean_name(name)
    if not cleaned:
        raise ValidationError({"name": _("Enter the club's name.")})
    if len(cleaned) > 100:
        raise ValidationError({"name": _("A club's name has at most %(max)s characters.") % {"max": 100}})
    with transaction.atomic():
        club = Club.objects.create(name=cleaned, slug=_unique_slug(cleaned), is_public=is_public, created_by=owner)
        Membership.objects.create(club=club, player=player_for_user(user=owner), role=Role.OWNER)
    return club


def club_update(*, club: Club, changed_by=None, name: str | None = None, is_public: bool | None = None) -> Club:
    """Rename a club or make it public/private (its slug, and so its links, stay as they are)."""
    fields = []
    if name is not None:
        cleaned = clean_name(name)
        if not cleaned:
            raise ValidationError({"name": _("Enter the club's name.")})
        if len(cleaned) > 100:
            raise ValidationError({"name": _("A club's name has at most %(max)s characters.") % {"max": 100}})
        club.name = cleaned
        fields.append("name")
    if is_public is not None:
        club.is_public = bool(is_public)
        fields.append("is_public")
    if fields:
        club.save(update_fields=fields)
    return club


def member_add_guest(*, club: Club, name: str, added_by=None) -> Membership:
    """Add a player by name: a new guest, or an existing record nobody else holds.

    A record is someone's to give: one an account owns joins a club only when that account accepts an
    invitation, and one another club holds is taken only by someone who runs every club holding it
    (a director adding their guest to a second club). Otherwise the name is refused, saying what to do.
    """
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_get_or_create(name=name, created_by=added_by).pk)
        if Membership.objects.filter(club=club, player=player).exists():
            raise ValidationError(
                {"name": _("%(name)s is already a member of %(club)s.") % {"name": player.name, "club": club.name}}
            )
        if player.user_id is not None and not (_is_user(added_by) and player.user_id == added_by.pk):
            raise ValidationError(
                {
                    "name": _(
                        "%(name)s has an account: send them an invitation link to %(club)s "
                        "(Invite by link); they join when they accept it."
                    )
                    % {"name": player.name, "club": club.name}
                }
            )
        if clubs_not_run_by(added_by, player).exclude(pk=club.pk).exists():
            raise ValidationError(
                {
                    "name": _(
                        "%(name)s is a player of another club. If your player is someone else, add "
                        "them under a name of their own (with a surname or an initial); if it is the same person, "
                        "send them an invitation link instead."
                    )
                    % {"name": player.name}
                }
            )
        return Membership.objects.create(club=club, player=player)


def member_set_role(*, membership: Membership, role: str, changed_by=None) -> Membership:
    """Make a member an admin or a player. The owner's role is not changed here."""
    if role not in (Role.ADMIN, Role.PLAYER):
        raise ValidationError({"role": _("A member's role is admin or player.")})
    if membership.role == Role.OWNER:
        raise ValidationError({"role": _("The owner's role cannot be changed.")})
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


def invitation_create(
    *, club: Club, created_by, role: str = Role.PLAYER, player: Player | None = None, email: str = ""
) -> Invitation:
    """A single-use invitation link. With ``player`` (a guest), its holder claims that record.

    With ``email`` the link is also e-mailed there (once the invitation is saved), and the account
    that accepts it gets that address if it has none.
    """
    email = clean_email(email)
    if role not in (Role.ADMIN, Role.PLAYER):
        raise ValidationError({"role": _("An invitation makes its holder an admin or a player.")})
    if player is not None:
        if player.user_id is not None:
            raise ValidationError({"player": _("%(name)s already has an account.") % {"name": player.name}})
        if not Membership.objects.filter(club=club, player=player).exists():
            raise ValidationError(
                {"player": _("%(name)s is not a member of %(club)s.") % {"name": player.name, "club": club.name}}
            )
    invitation = Invitation.objects.create(
        club=club, token=secrets.token_urlsafe(24), role=role, player=player, created_by=created_by, email=email
    )
    if email:
        inviter = (created_by.get_full_name() or created_by.get_username()) if created_by else ""
        send_after_commit(
            to=[email],
            # Lazy: written in the recipient's language as the message is built (players/mail.py), not the inviter's.
            subject=format_lazy(gettext_lazy("An invitation to {club}"), club=club.name),
            template="invitation",
            context={
                "invitation": invitation,
                "club": club,
                "inviter": inviter,
                # The join page lives in the league's URLs (named, so players imports nothing from scoring).
                "link": absolute_url(reverse("league:invitation", args=[invitation.token])),
            },
        )
    return invitation


def _only_a_name(player: Player) -> bool:
    """Nothing refers to ``player``: no game, hand, season, membership or anything else, whatever app holds it.

    Asked of every relation Django knows (players must not import scoring), so a record anything uses is kept.
    """
    for relation in Player._meta.get_fields(include_hidden=True):
        is_reverse = relation.auto_created and not relation.concrete  # another model points here
        if is_reverse and relation.related_model._base_manager.filter(**{relation.field.name: player}).exists():
            return False
    return True


def invitation_accept(*, invitation: Invitation, user) -> Membership:
    """Join the club (or claim the guest's record) with ``user``'s account.

    Claiming a guest's record replaces the account's own record only if that is nothing but a name.
    An account without an e-mail address takes the one the invitation was e-mailed to (the account page
    changes it), so the club's next e-mail reaches the person it invited.
    """
    if not _is_user(user):
        raise ValidationError({"user": _("Log in to accept an invitation.")})
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.is_used:
            raise ValidationError({"token": _("This invitation has already been used.")})
        own = player_of(user)
        if invitation.player_id is not None:
            guest = Player.objects.select_for_update().get(pk=invitation.player_id)
            if guest.user_id is not None:
                raise ValidationError(
                    {"player": _("%(name)s's record has already been claimed.") % {"name": guest.name}}
                )
            if own is not None and own.pk != guest.pk and _only_a_name(own):
                # E.g. "Your name at the table" typed at sign-up from this very invitation: that record
                # is nothing yet, and the person is the guest the club knows; keep the guest's record.
                own.delete()
                own = None
            if own is not None and own.pk != guest.pk:
                raise ValidationError(
                    {
                        "player": _(
                            "Your account already plays as %(own)s; "
                            "ask the club for an invitation that does not claim %(guest)s's record."
                        )
                        % {"own": own.name, "guest": guest.name}
                    }
                )
            guest.user = user
            guest.save(update_fields=["user"])
            player = guest
        else:
            player = own or player_for_user(user=user)
        membership, created = Membership.objects.get_or_create(
            club=invitation.club, player=player, defaults={"role": invitation.role}
        )
        if not created and membership.role == Role.PLAYER and invitation.role == Role.ADMIN:
            membership.role = Role.ADMIN
            membership.save(update_fields=["role"])
        if invitation.email and not user.email:
            user.email = invitation.email
            user.save(update_fields=["email"])
        invitation.accepted_by = user
        invitation.accepted_at = timezone.now()
        invitation.save(update_fields=["accepted_by", "accepted_at"])
    if hasattr(user, "_club_roles"):
        del user._club_roles
    return membership
