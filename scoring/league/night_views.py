"""Swiss night pages: the organiser's night page (check-in, pairing, rounds) and the players' check-in.

Thin, as the other league pages: they check who is asking, call a service of scoring/league/night.py,
and render what the selectors read.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from players import clubs
from players.models import Player
from scoring import permissions
from scoring.league import night
from scoring.league.selectors import night_field
from scoring.league.views import _error_text, _login_first, _season


def _night(request, slug, pk):
    club, season = _season(request, slug, pk)
    if not season.is_swiss:
        raise Http404("Not a Swiss night.")
    return club, season


def night_page(request, slug, pk):
    """The night: who is here (the organiser ticks them; a player checks themselves in), the rounds."""
    club, season = _night(request, slug, pk)
    manager = permissions.can_manage_season(request.user, season)
    me = clubs.player_of(request.user) if clubs.club_role(request.user, club) else None
    field = night_field(season)
    context = {
        "club": club,
        "season": season,
        "manager": manager and not season.is_closed,
        "field": field,
        "present_count": sum(line.present for line in field),
        "me": me,
        "my_line": next((line for line in field if me is not None and line.player.pk == me.pk), None),
        "rounds_published": night.rounds_published(season),
    }
    return render(request, "league/night.html", context)


@require_POST
def night_check_in(request, slug, pk):
    """Check a player in (``here=1``) or out (``here=0``): an organiser for anyone, a player for themselves."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night(request, slug, pk)
    player = get_object_or_404(Player, pk=request.POST.get("player") or 0, memberships__club=club)
    here = request.POST.get("here") != "0"
    try:
        if here:
            night.check_in(season=season, player=player, checked_in_by=request.user)
        else:
            night.check_out(season=season, player=player, checked_out_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, f"{player.name} is {'checked in' if here else 'checked out'}.")
    return redirect("league:night", slug=club.slug, pk=season.pk)
