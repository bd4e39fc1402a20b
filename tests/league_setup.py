"""Shared set-up for the league tests: a club with every kind of member."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils.text import slugify

from players import clubs
from players.models import Club, Player, Role
from scoring import services
from scoring.league import services as league


def make_user(username: str):
    """An account without a password (no slow hashing); tests log in with force_login."""
    return get_user_model().objects.create_user(username=username, password=None)


@dataclass
class ClubCast:
    club: Club
    owner: object
    admin: object
    player: object  # a player with an account
    rival: object  # a second player with an account
    outsider: object  # an account that is not a member
    guest: Player  # a member without an account
    anonymous: object

    def player_of(self, user) -> Player:
        return Player.objects.get(user=user)


def make_club(*, name="Thursday Gin", is_public=True) -> ClubCast:
    owner = make_user(username=f"owner-{slugify(name)}")  # a username signing up could choose
    club = clubs.club_create(name=name, owner=owner, is_public=is_public)
    users = {}
    for role, username in (("admin", "admin"), ("player", "pat"), ("player", "quinn")):
        user = make_user(username=f"{username}-{club.slug}")
        invitation = clubs.invitation_create(club=club, created_by=owner, role=role)
        clubs.invitation_accept(invitation=invitation, user=user)
        users[username] = user
    guest = clubs.member_add_guest(club=club, name=f"Gus {club.slug}", added_by=owner).player
    return ClubCast(
        club=club,
        owner=owner,
        admin=users["admin"],
        player=users["pat"],
        rival=users["quinn"],
        outsider=make_user(username=f"otto-{club.slug}"),
        guest=guest,
        anonymous=AnonymousUser(),
    )


def gin(by: Player, defender_deadwood: int = 80) -> dict:
    """A hand that ends a standard game at once (gin bonus 25 + 80 >= 100)."""
    return {"ending": "gin", "by": by, "defender_deadwood": defender_deadwood}


def play(game, winner: Player, *, recorded_by=None, defender_deadwood: int = 80):
    services.hand_record(game=game, recorded_by=recorded_by, **gin(winner, defender_deadwood))
    game.refresh_from_db()
    return game


def start_and_finish(fixture, winner: Player, *, started_by, defender_deadwood: int = 80, confirm_by=None):
    game = league.fixture_start(fixture=fixture, started_by=started_by)
    play(game, winner, recorded_by=started_by, defender_deadwood=defender_deadwood)
    if confirm_by is not None:
        league.game_confirm(game=game, confirmed_by=confirm_by)
    return game


__all__ = ["ClubCast", "Role", "gin", "make_club", "play", "start_and_finish"]
