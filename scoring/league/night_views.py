"""Swiss night pages: the organiser's night page (check-in, pairing, rounds) and the players' check-in.

Thin, as the other league pages: they check who is asking, call a service of scoring/league/night.py,
and render what the selectors read.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from ginleague import numbers
from players import clubs
from players.models import Player
from scoring import permissions
from scoring.league import night
from scoring.league.forms import PairForm, SwapForm
from scoring.league.selectors import last_night_arrivals, night_draft, night_field, night_rounds
from scoring.league.views import _error_text, _login_first, _managed_season, _season


def _night(request, slug, pk):
    club, season = _season(request, slug, pk)
    if not season.is_swiss:
        raise Http404(_("Not a Swiss night."))
    return club, season


def night_page(request, slug, pk):
    """The night: who is here (the organiser ticks them; a player checks themselves in), the rounds."""
    club, season = _night(request, slug, pk)
    manager = permissions.can_manage_season(request.user, season)
    me = clubs.player_of(request.user) if clubs.club_role(request.user, club) else None
    field = night_field(season)
    draft = night_draft(season) if manager else None  # an unpublished pairing is the organisers' to check
    published = night.rounds_published(season)
    rounds = night_rounds(season)
    for round_ in rounds:
        for line in round_.tables:
            fixture = line.fixture
            fixture.season, fixture.overdue = season, False
            fixture.startable = not hasattr(fixture, "game") and permissions.can_start_fixture(
                request.user, fixture, club
            )
    waits = "" if draft else night.next_round_waits_for(season)
    query = (request.GET.get("q") or "").strip()
    last_night, arrivals = last_night_arrivals(season) if manager and not season.is_closed else (None, [])
    context = {
        "club": club,
        "season": season,
        "manager": manager and not season.is_closed,
        "field": [line for line in field if query.casefold() in line.player.name.casefold()],
        "field_size": len(field),
        "query": query,
        "present_count": sum(line.present for line in field),
        "last_night": last_night,
        "arrivals": arrivals,
        # The round in play comes first; the pairing (or why it waits) first once no round is in play.
        "round_in_play": bool(rounds and waits),
        "me": me,
        "my_line": next((line for line in field if me is not None and line.player.pk == me.pk), None),
        "rounds_published": published,
        "draft": draft,
        "pairing_waits_for": waits,
        "rounds": rounds,
        "now": timezone.now(),
        "pair_form": PairForm() if published == 0 else None,
        "swap_form": SwapForm(seated=_seated(draft)) if draft else None,
    }
    return render(request, "league/night.html", context)


@require_POST
def night_check_in(request, slug, pk):
    """Check a player in (``here=1``) or out (``here=0``): an organiser for anyone, a player for themselves.
    An organiser also gives a player checked in a fixed table this way (``here=1`` and ``fixed_table``)."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night(request, slug, pk)
    # A player's id that cannot be one ("abc"): 400 naming the field; one of nobody in the club: 404.
    player_id = numbers.an_id(request.POST.get("player", ""), field="player", label=_("Player"))
    player = get_object_or_404(Player, pk=player_id, memberships__club=club)
    here = request.POST.get("here") != "0"
    table = (request.POST.get("fixed_table") or "").strip()
    try:
        if here:
            entry = night.check_in(season=season, player=player, checked_in_by=request.user, fixed_table=table or None)
        else:
            night.check_out(season=season, player=player, checked_out_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        if here and table:
            table = entry.fixed_table
            message = _("%(name)s is checked in, at table %(table)s.") % {"name": player.name, "table": table}
        elif here:
            message = _("%(name)s is checked in.") % {"name": player.name}
        else:
            message = _("%(name)s is checked out.") % {"name": player.name}
        messages.success(request, message)
    return redirect("league:night", slug=club.slug, pk=season.pk)


@require_POST
def night_check_in_last(request, slug, pk):
    """The organiser checks in everyone who played at the club's previous night and is not here yet."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night_managed(request, slug, pk)
    try:
        arrived = night.check_in_last_night(season=season, checked_in_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        if arrived:
            messages.success(
                request,
                ngettext(
                    "%(count)s player is checked in: %(names)s.",
                    "%(count)s players are checked in: %(names)s.",
                    len(arrived),
                )
                % {"count": len(arrived), "names": ", ".join(player.name for player in arrived)},
            )
        else:
            messages.info(request, _("Everyone who played last night is checked in already."))
    return redirect("league:night", slug=club.slug, pk=season.pk)


def _seated(draft):
    """The players of a draft round (both sides of every table and the bye), for the swap form."""
    ids = [player.pk for line in draft.tables for player in (line.one, line.two)]
    if draft.bye is not None:
        ids.append(draft.bye.pk)
    return Player.objects.filter(pk__in=ids).order_by("name")


def _night_managed(request, slug, pk):
    club, season = _managed_season(request, slug, pk)
    if not season.is_swiss:
        raise Http404(_("Not a Swiss night."))
    return club, season


@require_POST
def night_pair(request, slug, pk):
    """The organiser pairs the next round: a draft shown on the night page, not yet published."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night_managed(request, slug, pk)
    form = PairForm(request.POST)
    first_round = (form.cleaned_data["first_round"] if form.is_valid() else "") or "rating"
    try:
        draft = night.round_pair(season=season, paired_by=request.user, first_round=first_round)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(
            request,
            _("Round %(round)s is paired: check it, swap players if needed, then publish.") % {"round": draft.number},
        )
    return redirect("league:night", slug=club.slug, pk=season.pk)


@require_POST
def night_swap(request, slug, pk):
    """The organiser swaps two players of the draft; the page says when that makes a rematch."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night_managed(request, slug, pk)
    draft = night_draft(season)
    form = SwapForm(request.POST, seated=_seated(draft) if draft else Player.objects.none())
    if not form.is_valid():
        messages.error(request, _("Swap: choose two players of the round."))
        return redirect("league:night", slug=club.slug, pk=season.pk)
    one, two = form.cleaned_data["one"], form.cleaned_data["two"]
    try:
        rematch = night.swap_creates_rematch(season=season, one=one, two=two)
        night.round_swap(season=season, one=one, two=two, swapped_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        if rematch:
            messages.warning(
                request,
                _("%(one)s and %(two)s swapped: this creates a rematch (see the tables).")
                % {"one": one.name, "two": two.name},
            )
        else:
            messages.success(request, _("%(one)s and %(two)s swapped.") % {"one": one.name, "two": two.name})
    return redirect("league:night", slug=club.slug, pk=season.pk)


@require_POST
def night_publish(request, slug, pk):
    """The organiser publishes the draft: its fixtures are created, the round starts."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night_managed(request, slug, pk)
    try:
        round_ = night.round_publish(season=season, published_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(
            request, _("Round %(round)s is published: the players may start their games.") % {"round": round_.number}
        )
    return redirect("league:night", slug=club.slug, pk=season.pk)


@require_POST
def night_time(request, slug, pk):
    """The organiser calls time for the room: every game of the current round still in play."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _night_managed(request, slug, pk)
    try:
        called = night.round_call_time(season=season, called_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(
            request,
            ngettext(
                "Time called on %(count)s game: the hand in progress is its last unless level.",
                "Time called on %(count)s games: the hand in progress is each game's last unless level.",
                len(called),
            )
            % {"count": len(called)},
        )
    return redirect("league:night", slug=club.slug, pk=season.pk)
