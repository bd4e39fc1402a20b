"""E-mail about what needs someone in a league: a result to confirm, a dispute, fixtures due.

The services call ``game_finished`` and ``game_disputed`` inside their transaction;
the e-mail goes once it commits (players.mail), one per person, with a link to the
page where they act, and only to accounts with an address that have not turned
e-mail off. ``fixture_reminders`` is the daily run behind ``manage.py send_reminders``.
"""

from __future__ import annotations

import datetime

from django.db.models import Q
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_noop

from players.mail import absolute_url, addresses_of, after_commit, send_now
from players.models import MANAGER_ROLES, Membership
from scoring.models import Fixture, Game, LeagueStatus
from scoring.permissions import is_asked_to_confirm

REMIND_DAYS_AHEAD = 1  # a fixture is e-mailed about from the day before it is due, then daily while overdue


def _game(game_id: int) -> Game | None:
    return (
        Game.objects.select_related("player_one__user", "player_two__user", "winner", "season__club", "created_by")
        .filter(pk=game_id, season__isnull=False)
        .first()
    )


def _translated(message: str, values: dict) -> str:
    return gettext(message) % values


# A subject translated when the message is built, not when it is scheduled: each e-mail goes out in the
# language active then (its recipient's). Mark the message itself with gettext_noop.
_subject = lazy(_translated, str)


def _send_each(recipients: list[tuple[object, str]], *, subject: str, template: str, context: dict) -> int:
    """One message per (user, name) that wants e-mail, greeting each by name, with the link to turn e-mail off."""
    context = {**context, "account_link": absolute_url(reverse("account"))}
    sent = 0
    for user, name in recipients:
        for address in addresses_of([user]):
            sent += send_now(to=[address], subject=subject, template=template, context={**context, "name": name})
    return sent


def _game_link(game: Game) -> str:
    return absolute_url(reverse("league:game", args=[game.pk]))


# --- a league game is over: whoever confirms it is asked to -------------------------------------------


def game_finished(*, game: Game) -> None:
    """``game`` (a league game) has just become over: once that commits, e-mail who confirms it."""
    after_commit(lambda: send_game_finished(game_id=game.pk), what="game over")


def send_game_finished(*, game_id: int) -> int:
    game = _game(game_id)
    if game is None or not game.over or game.league_status != LeagueStatus.PLAYING:
        return 0  # confirmed, disputed or reopened meanwhile: nothing to ask
    club = game.season.club
    # The players and the club's organisers: whoever the result waits for (the opponent; an organiser
    # who did not play when the opponent is a guest), as in their Needs you list.
    managers = Membership.objects.filter(club=club, role__in=MANAGER_ROLES, player__user__isnull=False)
    candidates = {player.user_id: (player.user, player.name) for player in (game.player_one, game.player_two)}
    for membership in managers.select_related("player__user"):
        candidates.setdefault(membership.player.user_id, (membership.player.user, membership.player.name))
    recipients = [
        (user, name)
        for user_id, (user, name) in candidates.items()
        if user_id is not None and is_asked_to_confirm(user, game, club)
    ]
    return _send_each(
        recipients,
        subject=_subject(
            gettext_noop("Confirm the result: %(one)s v %(two)s"),
            {"one": game.player_one.name, "two": game.player_two.name},
        ),
        template="game_over",
        context={
            "game": game,
            "link": _game_link(game),
        },
    )


# --- a result is disputed: both players and the club's owner and admins hear of it ------------------


def game_disputed(*, game: Game, disputed_by, comment: str) -> None:
    """Once the dispute commits, e-mail both players and the club's managers (not who disputed it)."""
    disputed_by_id = getattr(disputed_by, "pk", None)
    after_commit(
        lambda: send_game_disputed(game_id=game.pk, disputed_by_id=disputed_by_id, comment=comment),
        what="game disputed",
    )


def send_game_disputed(*, game_id: int, disputed_by_id: int | None, comment: str) -> int:
    game = _game(game_id)
    if game is None or game.league_status != LeagueStatus.DISPUTED:
        return 0
    players = [player for player in (game.player_one, game.player_two) if player.user is not None]
    managers = Membership.objects.filter(
        club=game.season.club, role__in=MANAGER_ROLES, player__user__isnull=False
    ).select_related("player__user")
    recipients, seen = [], set()
    for user, name in [(p.user, p.name) for p in players] + [(m.player.user, m.player.name) for m in managers]:
        if user.pk not in seen and user.pk != disputed_by_id:
            seen.add(user.pk)
            recipients.append((user, name))
    disputer = next((p.name for p in players if p.user.pk == disputed_by_id), "")
    return _send_each(
        recipients,
        subject=_subject(
            gettext_noop("Result disputed: %(one)s v %(two)s"),
            {"one": game.player_one.name, "two": game.player_two.name},
        ),
        template="game_disputed",
        context={
            "game": game,
            "disputed_by": disputer,
            "comment": comment,
            "link": _game_link(game),
        },
    )


# --- fixtures due: the daily reminder ----------------------------------------------------------------


def fixtures_to_remind_q(today: datetime.date) -> Q:
    """Fixtures of open seasons, not played, due by tomorrow or overdue, not yet reminded of today."""
    return (
        Q(due_on__lte=today + datetime.timedelta(days=REMIND_DAYS_AHEAD), season__closed_at__isnull=True)
        & (Q(game__isnull=True) | Q(game__over=False))
        & (Q(reminded_on__isnull=True) | Q(reminded_on__lt=today))
    )


def fixture_reminders(*, today: datetime.date) -> int:
    """E-mail both players of every fixture due by tomorrow or overdue, once a day at most; how many e-mails.

    Each fixture is marked reminded (``reminded_on``) before its e-mail goes, by a conditional update,
    so a second run the same day (or two at once) sends nothing again.
    """
    fixtures = (
        Fixture.objects.filter(fixtures_to_remind_q(today))
        .select_related("home__user", "away__user", "season__club")
        .order_by("due_on", "pk")
    )
    sent = 0
    for fixture in fixtures:
        marked = (
            Fixture.objects.filter(pk=fixture.pk)
            .filter(Q(reminded_on__isnull=True) | Q(reminded_on__lt=today))
            .update(reminded_on=today)
        )
        if not marked:
            continue  # another run got there first
        link = absolute_url(reverse("league:season", args=[fixture.season.club.slug, fixture.season_id]))
        for player, opponent in ((fixture.home, fixture.away), (fixture.away, fixture.home)):
            if player.user is None:
                continue
            sent += _send_each(
                [(player.user, player.name)],
                subject=_subject(
                    gettext_noop("Your game against %(opponent)s is overdue")
                    if fixture.due_on < today
                    else gettext_noop("Your game against %(opponent)s is due"),
                    {"opponent": opponent.name},
                ),
                template="fixture_due",
                context={
                    "fixture": fixture,
                    "opponent": opponent.name,
                    "overdue": fixture.due_on < today,
                    "due_today": fixture.due_on == today,
                    "link": link,
                },
            )
    return sent
