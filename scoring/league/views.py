"""Club and league pages. Thin: they check who may do what, call a service, render.

A private club is a 404 to anyone who is not a member; a member without the
right role gets a 403. Anonymous writes are sent to the login page.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Max, Min, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from ginleague import numbers
from players import clubs
from players.models import Club, Invitation, Membership, Player
from scoring import audit, changes, parts, permissions
from scoring.engine.bracket import round_name
from scoring.engine.rules import preset_label, resolve_rules
from scoring.league import services as league
from scoring.league.forms import (
    ClubForm,
    ConfirmForm,
    DisputeForm,
    DueForm,
    GuestForm,
    InvitationForm,
    OpenGameForm,
    RankingForm,
    RoleForm,
    SeasonForm,
    TieGameForm,
)
from scoring.league.selectors import night_rounds
from scoring.league.standings import (
    DEFAULT_RANKING,
    RANKING_CRITERIA,
    current_standings,
    is_overdue,
    season_knockout,
    season_left_open,
    season_versions_now,
)
from scoring.league.standings_html import standings_rows_html
from scoring.models import Fixture, Game, Season, SeasonFormat
from scoring.selectors import games_in_play
from scoring.views import OPENED_INVITATIONS

DUE_DATE_FORMAT = "MONTH_DAY_FORMAT"  # "28 Nov" in English, as every due date on the season pages


def _error_text(error: ValidationError) -> str:
    if hasattr(error, "message_dict"):
        return " ".join(f"{message}" for messages_ in error.message_dict.values() for message in messages_)
    return " ".join(error.messages)


def _form_errors_text(form) -> str:
    """A bound form's errors as one message line, each under its field's label."""
    return " ".join(
        _("%(field)s: %(errors)s")
        % {"field": form.fields[name].label if name in form.fields else _("Form"), "errors": " ".join(errors)}
        for name, errors in form.errors.items()
    )


def _add_errors(form, error: ValidationError) -> None:
    """Put a service's ValidationError on the form field it names (or on the form; the message names it)."""
    for field, field_messages in getattr(error, "message_dict", {None: error.messages}).items():
        for message in field_messages:
            form.add_error(field if field in form.fields else None, message)


def _managed_club(request, slug: str) -> Club:
    club = permissions.visible_club(request.user, slug)
    if not clubs.can_manage_club(request.user, club):
        raise PermissionDenied(_("Only the club's owner and admins may do this."))
    return club


def _managed_season(request, slug: str, pk: int) -> tuple[Club, Season]:
    """The club (its owner or an admin is asking) and one of its seasons."""
    club = _managed_club(request, slug)
    return club, get_object_or_404(Season, pk=pk, club=club)


def _login_first(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return None


# --- clubs -------------------------------------------------------------------------------------------


def club_list(request):
    form = ClubForm()
    if request.method == "POST":
        if (response := _login_first(request)) is not None:
            return response
        form = ClubForm(request.POST)
        if form.is_valid():
            try:
                club = clubs.club_create(
                    name=form.cleaned_data["name"], is_public=form.cleaned_data["is_public"], owner=request.user
                )
            except ValidationError as error:
                _add_errors(form, error)
            else:
                messages.success(
                    request, _("%(club)s is open. Add players or send them an invitation link.") % {"club": club.name}
                )
                return redirect("league:club", slug=club.slug)
    return render(request, "league/club_list.html", {"clubs": clubs.clubs_visible_to(request.user), "form": form})


def club_detail(request, slug):
    club = permissions.visible_club(request.user, slug)
    role = clubs.club_role(request.user, club)
    manager = clubs.can_manage_club(request.user, club)
    members = list(clubs.club_members(club))
    context = {
        "club": club,
        "role": role,
        "manager": manager,
        "members": members,
        "seasons": club.seasons.select_related("champion").order_by("-created_at"),
        "playing": games_in_play(club),
    }
    if manager:
        guests = Player.objects.filter(memberships__club=club, user__isnull=True).order_by("name")
        context.update(
            guest_form=GuestForm(),
            invitation_form=InvitationForm(guests=guests),
            invitations=club.invitations.filter(accepted_at__isnull=True).select_related("player"),
            role_form=RoleForm(),
        )
    return render(request, "league/club_detail.html", context)


@require_POST
def member_add(request, slug):
    if (response := _login_first(request)) is not None:
        return response
    club = _managed_club(request, slug)
    form = GuestForm(request.POST)
    if form.is_valid():
        try:
            membership = clubs.member_add_guest(club=club, name=form.cleaned_data["name"], added_by=request.user)
        except ValidationError as error:
            messages.error(request, _("Player's name: %(errors)s") % {"errors": _error_text(error)})
        else:
            messages.success(
                request, _("%(name)s joined %(club)s.") % {"name": membership.player.name, "club": club.name}
            )
    else:
        errors = " ".join(form.errors.get("name", [_("enter a name.")]))
        messages.error(request, _("Player's name: %(errors)s") % {"errors": errors})
    return redirect("league:club", slug=club.slug)


@require_POST
def member_role(request, slug, pk):
    if (response := _login_first(request)) is not None:
        return response
    club = _managed_club(request, slug)
    membership = get_object_or_404(Membership.objects.select_related("player"), pk=pk, club=club)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Role: choose admin or player."))
    else:
        try:
            clubs.member_set_role(membership=membership, role=form.cleaned_data["role"], changed_by=request.user)
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            if membership.role == "admin":
                messages.success(request, _("%(name)s is now admin.") % {"name": membership.player.name})
            else:
                messages.success(request, _("%(name)s is now player.") % {"name": membership.player.name})
    return redirect("league:club", slug=club.slug)


@require_POST
def invitation_create(request, slug):
    if (response := _login_first(request)) is not None:
        return response
    club = _managed_club(request, slug)
    guests = Player.objects.filter(memberships__club=club, user__isnull=True)
    form = InvitationForm(request.POST, guests=guests)
    if form.is_valid():
        try:
            invitation = clubs.invitation_create(
                club=club,
                created_by=request.user,
                role=form.cleaned_data["role"],
                player=form.cleaned_data["player"],
                email=form.cleaned_data["email"],
            )
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            link = request.build_absolute_uri(reverse("league:invitation", args=[invitation.token]))
            if form.cleaned_data["email"]:
                messages.success(
                    request,
                    _("Invitation link e-mailed to %(email)s: %(link)s")
                    % {"email": form.cleaned_data["email"], "link": link},
                )
            else:
                messages.success(request, _("Invitation link (send it to the player): %(link)s") % {"link": link})
    else:
        messages.error(request, _form_errors_text(form))
    return redirect("league:club", slug=club.slug)


def invitation(request, token):
    invitation = get_object_or_404(Invitation.objects.select_related("club", "player"), token=token)
    opened = request.session.get(OPENED_INVITATIONS, [])
    if not invitation.is_used and token not in opened:  # it waits in their to-do until accepted
        request.session[OPENED_INVITATIONS] = [*opened[-9:], token]
    if request.method == "POST":
        if (response := _login_first(request)) is not None:
            return response
        try:
            clubs.invitation_accept(invitation=invitation, user=request.user)
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, _("Welcome to %(club)s.") % {"club": invitation.club.name})
            return redirect("league:club", slug=invitation.club.slug)
    return render(request, "league/invitation.html", {"invitation": invitation})


# --- seasons -----------------------------------------------------------------------------------------


def season_new(request, slug):
    if (response := _login_first(request)) is not None:
        return response
    club = _managed_club(request, slug)
    members = Player.objects.filter(memberships__club=club).order_by("name")
    closed_seasons = club.seasons.filter(closed_at__isnull=False).order_by("-closed_at")
    posted = request.POST if request.method == "POST" else None
    form = SeasonForm(posted, members=members, closed_seasons=closed_seasons)
    if request.method == "POST" and form.is_valid():
        try:
            season = league.season_create(
                club=club,
                name=form.cleaned_data["name"],
                players=form.cleaned_data["players"],
                rules=form.rules(),
                format=form.cleaned_data["format"],
                ranking=form.ranking(),
                starts_on=form.cleaned_data["starts_on"],
                ends_on=form.cleaned_data["ends_on"],
                created_by=request.user,
                best_of=form.cleaned_data["best_of"],
                playoff_size=form.cleaned_data["playoff_size"],
                seeded_from=form.cleaned_data["seeded_from"],
                swiss_rounds=form.cleaned_data["swiss_rounds"],
                round_minutes=form.cleaned_data["round_minutes"],
                points_per_win=form.cleaned_data["points_per_win"],
            )
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, _("%(season)s is ready.") % {"season": season.name})
            return redirect("league:season", slug=club.slug, pk=season.pk)
    return render(request, "league/season_new.html", {"club": club, "form": form}, status=400 if form.errors else 200)


def _season(request, slug, pk) -> tuple[Club, Season]:
    club = permissions.visible_club(request.user, slug)
    season = get_object_or_404(Season.objects.select_related("club", "champion"), pk=pk, club=club)
    return club, season


def _standings_html(club: Club, season: Season) -> str:
    """The season page's standings and provisional results, its live part "season": the same for every
    viewer who may see the season, so rendered once per change of what it shows (scoring/parts.py).
    Its key: the season (and when it was made: a re-used id is another season; whether it is closed),
    its version (every game's change: the provisional results) and its confirmed version (the results,
    entrants, ranking and byes the standings count)."""
    born = changes.version_text(0, season.created_at, season.closed_at)
    version, confirmed = season_versions_now(season)  # read first: what is rendered after it is as new or newer
    versions = (season.pk, born, version, confirmed)

    def render() -> str:
        standings = current_standings(season, confirmed=confirmed)  # figures kept until a confirmed result changes
        criteria = [RANKING_CRITERIA[name] for name in standings.ranking]
        rows = standings_rows_html(standings.rows, swiss=season.format == SeasonFormat.SWISS)
        context = {
            "club": club,
            "season": season,
            "standings": standings,
            "standings_rows": rows,
            "criteria": criteria,
            "version": version,
        }
        return render_to_string("league/season_detail.html#standings", context)

    return parts.rendered("season-standings", versions=versions, render=render)


def season_standings(request, slug, pk):
    """The season page's standings alone: what its live part fetches again after a change."""
    club, season = _season(request, slug, pk)
    response = HttpResponse(_standings_html(club, season))
    response["Cache-Control"] = "no-store"
    return response


def season_detail(request, slug, pk):
    club, season = _season(request, slug, pk)
    role = clubs.club_role(request.user, club)
    manager = role in ("owner", "admin")
    my_player = clubs.player_of(request.user) if role else None
    fixtures, my_fixtures, rounds = [], [], None
    if season.is_round_robin:
        rounds = _round_to_show(request, season)
        shown = Fixture.objects.filter(season=season).select_related("home", "away", "game", "game__winner")
        fixtures = list(shown.filter(round=rounds["shown"]).order_by("pk"))
        if my_player is not None:
            my_fixtures = list(shown.filter(Q(home=my_player) | Q(away=my_player)).order_by("round", "pk"))
        today = timezone.localdate()
        for fixture in (*fixtures, *my_fixtures):
            fixture.overdue = is_overdue(fixture, today, season_closed=season.is_closed)
            fixture.season = season
            fixture.startable = not hasattr(fixture, "game") and permissions.can_start_fixture(
                request.user, fixture, club
            )
    open_form = None
    if season.format == SeasonFormat.OPEN and role is not None and not season.is_closed:
        entrants = season.players.order_by("name")
        open_form = OpenGameForm(entrants=entrants, initial={"player_one": my_player})
    rules = resolve_rules(season.rules)
    ranking = season.ranking or DEFAULT_RANKING
    context = {
        "club": club,
        "season": season,
        "standings_html": _standings_html(club, season),
        "fixtures": fixtures,
        "my_fixtures": my_fixtures,
        "rounds": rounds,
        "role": role,
        "manager": manager,
        "open_form": open_form,
        "rules": rules.describe_overrides(),
        "preset_label": preset_label(rules.preset),
        "ranking_form": RankingForm(
            initial={f"ranking_{i}": name for i, name in enumerate(ranking, start=1)}
        )
        if manager and not season.is_closed  # a closed season's final order does not change
        else None,
        "due_form": DueForm(initial={"round": rounds["shown"], "due_on": _round_due(fixtures)})
        if manager and rounds and not season.is_closed
        else None,
        "can_start_playoffs": manager
        and not season.is_closed
        and season.format == SeasonFormat.PLAYOFFS
        and not season.seeds.exists(),
    }
    return render(request, "league/season_detail.html", context)


def _round_due(fixtures):
    """The shown round's due date, for its "Round N due on" box (its fixtures share it; None if none)."""
    return next((fixture.due_on for fixture in fixtures if fixture.due_on), None)


def _round_to_show(request, season: Season) -> dict:
    """The round the page lists: ?round=N, else the first with a game not yet started (one query)."""
    figures = Fixture.objects.filter(season=season).aggregate(
        last=Max("round"), current=Min("round", filter=Q(game__isnull=True))
    )
    last = figures["last"] or 1
    shown = numbers.whole_or_none(request.GET.get("round", ""))
    if shown is None:
        shown = figures["current"] or last
    shown = min(max(shown, 1), last)
    return {
        "shown": shown,
        "last": last,
        "previous": shown - 1 if shown > 1 else None,
        "next": shown + 1 if shown < last else None,
    }


@require_POST
def season_ranking(request, slug, pk):
    if (response := _login_first(request)) is not None:
        return response
    club, season = _managed_season(request, slug, pk)
    form = RankingForm(request.POST)
    if form.is_valid():
        try:
            league.season_set_ranking(season=season, ranking=form.ranking())
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, _("Ranking rule saved; the standings follow it."))
    else:
        messages.error(request, _("Ranking: choose the criteria from the lists."))
    return redirect("league:season", slug=club.slug, pk=season.pk)


@require_POST
def fixture_start(request, slug, pk, fixture_pk):
    if (response := _login_first(request)) is not None:
        return response
    club, season = _season(request, slug, pk)
    fixture = get_object_or_404(Fixture.objects.select_related("home", "away"), pk=fixture_pk, season=season)

    def refused(error: ValidationError):
        messages.error(request, _error_text(error))
        existing = Game.objects.filter(fixture=fixture).first()
        if existing:
            return redirect("game", pk=existing.pk)
        return redirect("league:season", slug=club.slug, pk=season.pk)

    try:  # the state first (closed, already started), then the person
        league.fixture_start_check(fixture=fixture)
    except ValidationError as error:
        return refused(error)
    if not permissions.can_start_fixture(request.user, fixture, club):
        raise PermissionDenied(_("Only the fixture's players and the club's admins start its game."))
    # Either player, as chosen at the table; "draw" (or nothing) leaves it to the service's draw.
    dealer = {str(fixture.home_id): fixture.home, str(fixture.away_id): fixture.away}.get(
        request.POST.get("first_dealer", "")
    )
    try:
        game = league.fixture_start(fixture=fixture, started_by=request.user, first_dealer=dealer)
    except ValidationError as error:
        return refused(error)
    return redirect("game", pk=game.pk)


@require_POST
def open_game_start(request, slug, pk):
    if (response := _login_first(request)) is not None:
        return response
    club, season = _season(request, slug, pk)
    try:  # the state first, then the person
        league.season_open_check(season=season)
    except ValidationError as error:
        messages.error(request, _error_text(error))
        return redirect("league:season", slug=club.slug, pk=season.pk)
    if not permissions.can_start_open_game(request.user, season):
        raise PermissionDenied(_("Only the club's members record games."))
    form = OpenGameForm(request.POST, entrants=season.players.all())
    if form.is_valid():
        try:
            game = league.open_game_start(
                season=season,
                player_one=form.cleaned_data["player_one"],
                player_two=form.cleaned_data["player_two"],
                started_by=request.user,
            )
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            return redirect("game", pk=game.pk)
    else:
        messages.error(request, _form_errors_text(form) or _("Choose two players."))
    return redirect("league:season", slug=club.slug, pk=season.pk)


# --- a league game -----------------------------------------------------------------------------------


def _league_game(request, pk) -> tuple[Game, Club]:
    game = get_object_or_404(
        Game.objects.select_related("player_one", "player_two", "winner", "season", "season__club", "confirmed_by"),
        pk=pk,
        season__isnull=False,
    )
    club = permissions.club_of_game(game)
    if not clubs.can_view_club(request.user, club):
        raise Http404(_("No such game."))
    return game, club


def _game_context(request, game, club, **extra):
    return {
        "game": game,
        "club": club,
        "season": game.season,
        "trail": audit.game_audit_trail(game),
        "can_confirm": permissions.can_confirm(request.user, game, club),
        "can_dispute": permissions.can_dispute(request.user, game, club),
        "waits_for": permissions.result_waits_for(game),
        "confirmed_by_a_player": permissions.confirmed_by_a_player(game),
        "manager": clubs.can_manage_club(request.user, club),
        "confirm_form": extra.pop("confirm_form", ConfirmForm()),
        "dispute_form": extra.pop("dispute_form", DisputeForm()),
        **extra,
    }


def game_detail(request, pk):
    game, club = _league_game(request, pk)
    return render(request, "league/game_detail.html", _game_context(request, game, club))


def _state_refusal(request, game, club, check):
    """The game's page again saying why (400) when its state refuses the decision, whoever asks; else None."""
    try:
        check(game=game)
    except ValidationError as error:
        messages.error(request, _error_text(error))
        return render(request, "league/game_detail.html", _game_context(request, game, club), status=400)
    return None


def _game_decision(request, game, club, form, form_name: str, *, decide, done: str):
    """Confirm or dispute a result with the form's comment: back to the game, or its page again saying why not."""
    if form.is_valid():
        try:
            decide(form.cleaned_data["comment"])
        except ValidationError as error:
            if "comment" in getattr(error, "message_dict", {}):
                _add_errors(form, error)
            else:  # the result cannot be confirmed or disputed now (e.g. not over yet): the service says why
                messages.error(request, _error_text(error))
        else:
            messages.success(request, done)
            return redirect("league:game", pk=game.pk)
    return render(
        request, "league/game_detail.html", _game_context(request, game, club, **{form_name: form}), status=400
    )


@require_POST
def game_confirm(request, pk):
    if (response := _login_first(request)) is not None:
        return response
    game, club = _league_game(request, pk)
    # Whether the result can be confirmed now is the service's rule, asked first; then who confirms.
    if (refused := _state_refusal(request, game, club, league.game_confirm_check)) is not None:
        return refused
    if not permissions.can_confirm(request.user, game, club) and not permissions.may_confirm(request.user, game, club):
        raise PermissionDenied(permissions.confirm_refusal(request.user, game))
    return _game_decision(
        request, game, club, ConfirmForm(request.POST), "confirm_form",
        decide=lambda comment: league.game_confirm(game=game, confirmed_by=request.user, comment=comment),
        done=_("Result confirmed: it counts in the standings now."),
    )


@require_POST
def game_dispute(request, pk):
    if (response := _login_first(request)) is not None:
        return response
    game, club = _league_game(request, pk)
    # Whether the result can be disputed now is the service's rule, asked first; then who disputes.
    if (refused := _state_refusal(request, game, club, league.game_dispute_check)) is not None:
        return refused
    if not permissions.may_dispute(request.user, game, club):
        raise PermissionDenied(_("Only the other player disputes a provisional result."))
    return _game_decision(
        request, game, club, DisputeForm(request.POST), "dispute_form",
        decide=lambda comment: league.game_dispute(game=game, disputed_by=request.user, comment=comment),
        done=_("Result disputed: the club's admins will look at it."),
    )



@require_POST
def season_due(request, slug, pk):
    """An organiser sets (or clears) one round's due date."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _managed_season(request, slug, pk)
    form = DueForm(request.POST)
    if form.is_valid():
        try:
            league.fixtures_set_due(season=season, round=form.cleaned_data["round"], due_on=form.cleaned_data["due_on"])
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            due = form.cleaned_data["due_on"]
            round_number = form.cleaned_data["round"]
            if due:  # as the fixtures show it
                messages.success(
                    request,
                    _("Round %(round)s is due %(date)s.")
                    % {"round": round_number, "date": date_format(due, DUE_DATE_FORMAT)},
                )
            else:
                messages.success(request, _("Round %(round)s is due whenever.") % {"round": round_number})
    else:
        messages.error(request, _form_errors_text(form))
    return redirect(f"{reverse('league:season', args=[club.slug, season.pk])}?round={request.POST.get('round', '')}")


@require_http_methods(["GET", "POST"])
def season_close(request, slug, pk):
    """An organiser closes the season: results locked, champion named; the page stays as an archive.

    GET shows what closing leaves behind (fixtures not played, results not confirmed, games in play)
    and what it does to each, with the button; POST closes.
    """
    if (response := _login_first(request)) is not None:
        return response
    club, season = _managed_season(request, slug, pk)
    if request.method == "GET":
        if season.is_closed:
            return redirect("league:season", slug=club.slug, pk=season.pk)
        champion_id = league.season_champion(season)
        context = {
            "club": club,
            "season": season,
            "left": season_left_open(season),
            "champion": Player.objects.filter(pk=champion_id).first() if champion_id else None,
        }
        return render(request, "league/season_close.html", context)
    try:
        league.season_close(season=season, closed_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        if season.champion_id:
            messages.success(
                request,
                _("%(season)s is closed. Champion: %(champion)s.")
                % {"season": season.name, "champion": season.champion.name},
            )
        else:
            messages.success(
                request,
                _("%(season)s is closed. Champion: none (the top is shared or nobody played).")
                % {"season": season.name},
            )
    return redirect("league:season", slug=club.slug, pk=season.pk)


@require_POST
def playoffs_start(request, slug, pk):
    if (response := _login_first(request)) is not None:
        return response
    club, season = _managed_season(request, slug, pk)
    try:
        seeds = league.playoffs_start(season=season, started_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
        return redirect("league:season", slug=club.slug, pk=season.pk)
    messages.success(
        request, _("The playoffs are drawn: %(players)s.") % {"players": ", ".join(seed.player.name for seed in seeds)}
    )
    return redirect("league:bracket", slug=club.slug, pk=season.pk)


# --- the knockout bracket ----------------------------------------------------------------------------


def _bracket_context(request, club, season) -> dict:
    knockout = season_knockout(season)
    rounds = []
    derived = knockout.bracket
    if derived is not None:
        for number, ties in enumerate(derived.rounds, start=1):
            shown = []
            for tie in ties:
                pending = knockout.pending.get(frozenset((tie.one, tie.two)))
                startable = (
                    tie.ready
                    and pending is None
                    and permissions.can_start_tie(request.user, season, (tie.one, tie.two))
                )
                shown.append(
                    {
                        "tie": tie,
                        "one": knockout.names.get(tie.one),
                        "two": knockout.names.get(tie.two),
                        "winner": knockout.names.get(tie.winner),
                        "games": [knockout.games[key] for key in tie.games],
                        "pending": pending,
                        "startable": startable,
                    }
                )
            rounds.append({"name": round_name(number, len(derived.rounds)), "ties": shown})
    return {
        "club": club,
        "season": season,
        "knockout": knockout,
        "rounds": rounds,
        "champion": knockout.names.get(derived.champion) if derived else None,
        "version": changes.season_version(season.pk),
    }


def bracket(request, slug, pk):
    """The knockout's bracket, derived from the seeds and results; it updates live like the wall."""
    club, season = _season(request, slug, pk)
    if not season.has_knockout:
        raise Http404(_("This season has no knockout."))
    return render(request, "league/bracket.html", _bracket_context(request, club, season))


def bracket_board(request, slug, pk):
    club, season = _season(request, slug, pk)
    if not season.has_knockout:
        raise Http404(_("This season has no knockout."))
    response = render(request, "league/bracket.html#board", _bracket_context(request, club, season))
    response["Cache-Control"] = "no-store"
    return response


@require_POST
def tie_game_start(request, slug, pk):
    """Start the next game of a knockout tie (its players or the club's admins)."""
    if (response := _login_first(request)) is not None:
        return response
    club, season = _season(request, slug, pk)
    form = TieGameForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose the tie's two players."))
        return redirect("league:bracket", slug=club.slug, pk=season.pk)
    one, two = form.cleaned_data["player_one"], form.cleaned_data["player_two"]
    try:  # the state first, then the person
        league.season_open_check(season=season)
    except ValidationError as error:
        messages.error(request, _error_text(error))
        return redirect("league:bracket", slug=club.slug, pk=season.pk)
    if not permissions.can_start_tie(request.user, season, (one.pk, two.pk)):
        raise PermissionDenied(_("Only the tie's players and the club's admins start its games."))
    try:
        game = league.knockout_game_start(season=season, player_one=one, player_two=two, started_by=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
        return redirect("league:bracket", slug=club.slug, pk=season.pk)
    return redirect("game", pk=game.pk)


# --- printing ----------------------------------------------------------------------------------------


def season_print(request, slug, pk):
    """The season on paper, for the club's notice board: standings, then every round's fixtures and results."""
    club, season = _season(request, slug, pk)
    standings = current_standings(season)
    fixtures = (
        Fixture.objects.filter(season=season)
        .select_related("home", "away", "game", "game__winner")
        .order_by("round", "pk")
    )
    context = {
        "club": club,
        "season": season,
        "standings": standings,
        "criteria": [RANKING_CRITERIA[name] for name in standings.ranking],
        "fixtures": fixtures,
        "printed_on": timezone.localdate(),
        # A Swiss night prints a pairings and results sheet per round (one page each), round 1 first.
        "night_rounds": list(reversed(night_rounds(season))) if season.is_swiss else None,
    }
    return render(request, "league/season_print.html", context)
