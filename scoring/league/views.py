"""Club and league pages. Thin: they check who may do what, call a service, render.

A private club is a 404 to anyone who is not a member; a member without the
right role gets a 403. Anonymous writes are sent to the login page.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Max, Min, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from players import clubs
from players.models import Club, Invitation, Membership, Player
from scoring import audit, permissions
from scoring.engine.rules import resolve_rules
from scoring.league import services as league
from scoring.league.forms import (
    ClubForm,
    ConfirmForm,
    DisputeForm,
    GuestForm,
    InvitationForm,
    OpenGameForm,
    RankingForm,
    RoleForm,
    SeasonForm,
)
from scoring.league.standings import RANKING_CRITERIA, current_standings
from scoring.models import Fixture, Game, Season, SeasonFormat


def _error_text(error: ValidationError) -> str:
    if hasattr(error, "message_dict"):
        return " ".join(f"{message}" for messages_ in error.message_dict.values() for message in messages_)
    return " ".join(error.messages)


def _add_errors(form, error: ValidationError) -> None:
    """Put a service's ValidationError on the form field it names (or on the form; the message names it)."""
    for field, field_messages in getattr(error, "message_dict", {None: error.messages}).items():
        for message in field_messages:
            form.add_error(field if field in form.fields else None, message)


def _visible_club(request, slug: str) -> Club:
    club = get_object_or_404(Club, slug=slug)
    if not clubs.can_view_club(request.user, club):
        raise Http404("No such club.")
    return club


def _managed_club(request, slug: str) -> Club:
    club = _visible_club(request, slug)
    if not clubs.can_manage_club(request.user, club):
        raise PermissionDenied("Only the club's owner and admins may do this.")
    return club


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
                messages.success(request, f"{club.name} is open. Add players or send them an invitation link.")
                return redirect("league:club", slug=club.slug)
    return render(request, "league/club_list.html", {"clubs": clubs.clubs_visible_to(request.user), "form": form})


def club_detail(request, slug):
    club = _visible_club(request, slug)
    role = clubs.club_role(request.user, club)
    manager = clubs.can_manage_club(request.user, club)
    members = list(clubs.club_members(club))
    context = {
        "club": club,
        "role": role,
        "manager": manager,
        "members": members,
        "seasons": club.seasons.order_by("-created_at"),
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
            messages.error(request, _error_text(error))
        else:
            messages.success(request, f"{membership.player.name} joined {club.name}.")
    else:
        messages.error(request, "Player's name: " + " ".join(form.errors.get("name", ["enter a name."])))
    return redirect("league:club", slug=club.slug)


@require_POST
def member_role(request, slug, pk):
    if (response := _login_first(request)) is not None:
        return response
    club = _managed_club(request, slug)
    membership = get_object_or_404(Membership.objects.select_related("player"), pk=pk, club=club)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Role: choose admin or player.")
    else:
        try:
            clubs.member_set_role(membership=membership, role=form.cleaned_data["role"], changed_by=request.user)
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, f"{membership.player.name} is now {membership.get_role_display().lower()}.")
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
                club=club, created_by=request.user, role=form.cleaned_data["role"], player=form.cleaned_data["player"]
            )
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            link = request.build_absolute_uri(reverse("league:invitation", args=[invitation.token]))
            messages.success(request, f"Invitation link (send it to the player): {link}")
    else:
        messages.error(request, " ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
    return redirect("league:club", slug=club.slug)


def invitation(request, token):
    invitation = get_object_or_404(Invitation.objects.select_related("club", "player"), token=token)
    if request.method == "POST":
        if (response := _login_first(request)) is not None:
            return response
        try:
            clubs.invitation_accept(invitation=invitation, user=request.user)
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, f"Welcome to {invitation.club.name}.")
            return redirect("league:club", slug=invitation.club.slug)
    return render(request, "league/invitation.html", {"invitation": invitation})


# --- seasons -----------------------------------------------------------------------------------------


def season_new(request, slug):
    if (response := _login_first(request)) is not None:
        return response
    club = _managed_club(request, slug)
    members = Player.objects.filter(memberships__club=club).order_by("name")
    form = SeasonForm(request.POST or None, members=members)
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
            )
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, f"{season.name} is ready.")
            return redirect("league:season", slug=club.slug, pk=season.pk)
    return render(request, "league/season_new.html", {"club": club, "form": form}, status=400 if form.errors else 200)


def _season(request, slug, pk) -> tuple[Club, Season]:
    club = _visible_club(request, slug)
    season = get_object_or_404(Season.objects.select_related("club"), pk=pk, club=club)
    return club, season


def season_detail(request, slug, pk):
    club, season = _season(request, slug, pk)
    standings = current_standings(season)  # cached until a confirmed result changes
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
        for fixture in (*fixtures, *my_fixtures):
            fixture.startable = (
                not hasattr(fixture, "game")
                and role is not None
                and (manager or (my_player is not None and my_player.pk in (fixture.home_id, fixture.away_id)))
            )
    open_form = None
    if season.format == SeasonFormat.OPEN and role is not None:
        entrants = season.players.order_by("name")
        open_form = OpenGameForm(entrants=entrants, initial={"player_one": my_player})
    rules = resolve_rules(season.rules)
    context = {
        "club": club,
        "season": season,
        "standings": standings,
        "criteria": [RANKING_CRITERIA[name] for name in standings.ranking],
        "fixtures": fixtures,
        "my_fixtures": my_fixtures,
        "rounds": rounds,
        "role": role,
        "manager": manager,
        "open_form": open_form,
        "rules": rules.describe_overrides(),
        "preset_label": rules.preset,
        "ranking_form": RankingForm(
            initial={f"ranking_{i}": name for i, name in enumerate(standings.ranking, start=1)}
        )
        if manager
        else None,
    }
    template = "league/season_detail.html"
    if request.htmx and request.GET.get("part") == "standings":
        template += "#standings"
    return render(request, template, context)


def _round_to_show(request, season: Season) -> dict:
    """The round the page lists: ?round=N, else the first with a game not yet started (one query)."""
    figures = Fixture.objects.filter(season=season).aggregate(
        last=Max("round"), current=Min("round", filter=Q(game__isnull=True))
    )
    last = figures["last"] or 1
    try:
        shown = int(request.GET.get("round", ""))
    except ValueError:
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
    club = _managed_club(request, slug)
    season = get_object_or_404(Season, pk=pk, club=club)
    form = RankingForm(request.POST)
    if form.is_valid():
        try:
            league.season_set_ranking(season=season, ranking=form.ranking())
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, "Ranking rule saved; the standings follow it.")
    else:
        messages.error(request, "Ranking: choose the criteria from the lists.")
    return redirect("league:season", slug=club.slug, pk=season.pk)


@require_POST
def fixture_start(request, slug, pk, fixture_pk):
    if (response := _login_first(request)) is not None:
        return response
    club, season = _season(request, slug, pk)
    fixture = get_object_or_404(Fixture.objects.select_related("home", "away"), pk=fixture_pk, season=season)
    if not permissions.can_start_fixture(request.user, fixture, club):
        raise PermissionDenied("Only the fixture's players and the club's admins start its game.")
    dealer = {str(fixture.home_id): fixture.home, str(fixture.away_id): fixture.away}.get(
        request.POST.get("first_dealer", "")
    )
    try:
        game = league.fixture_start(fixture=fixture, started_by=request.user, first_dealer=dealer)
    except ValidationError as error:
        messages.error(request, _error_text(error))
        existing = Game.objects.filter(fixture=fixture).first()
        if existing:
            return redirect("game", pk=existing.pk)
        return redirect("league:season", slug=club.slug, pk=season.pk)
    return redirect("game", pk=game.pk)


@require_POST
def open_game_start(request, slug, pk):
    if (response := _login_first(request)) is not None:
        return response
    club, season = _season(request, slug, pk)
    if not permissions.can_start_open_game(request.user, season):
        raise PermissionDenied("Only the club's members record games.")
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
        messages.error(request, " ".join(f"{form.fields[f].label}: {' '.join(e)}" for f, e in form.errors.items()
                                         if f in form.fields) or "Choose two players.")
    return redirect("league:season", slug=club.slug, pk=season.pk)


# --- a league game -----------------------------------------------------------------------------------


def _league_game(request, pk) -> tuple[Game, Club]:
    game = get_object_or_404(
        Game.objects.select_related("player_one", "player_two", "winner", "season", "season__club", "confirmed_by"),
        pk=pk,
        season__isnull=False,
    )
    club = game.season.club
    if not clubs.can_view_club(request.user, club):
        raise Http404("No such game.")
    return game, club


def _game_context(request, game, club, **extra):
    return {
        "game": game,
        "club": club,
        "season": game.season,
        "trail": audit.game_audit_trail(game),
        "can_confirm": permissions.can_confirm(request.user, game, club),
        "can_dispute": permissions.can_dispute(request.user, game, club),
        "manager": clubs.can_manage_club(request.user, club),
        "confirm_form": extra.pop("confirm_form", ConfirmForm()),
        "dispute_form": extra.pop("dispute_form", DisputeForm()),
        **extra,
    }


def game_detail(request, pk):
    game, club = _league_game(request, pk)
    return render(request, "league/game_detail.html", _game_context(request, game, club))


@require_POST
def game_confirm(request, pk):
    if (response := _login_first(request)) is not None:
        return response
    game, club = _league_game(request, pk)
    if not permissions.can_confirm(request.user, game, club):
        raise PermissionDenied("Only the other player (or a club admin) confirms this result.")
    form = ConfirmForm(request.POST)
    if form.is_valid():
        try:
            league.game_confirm(game=game, confirmed_by=request.user, comment=form.cleaned_data["comment"])
        except ValidationError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, "Result confirmed: it counts in the standings now.")
            return redirect("league:game", pk=game.pk)
    return render(
        request, "league/game_detail.html", _game_context(request, game, club, confirm_form=form), status=400
    )


@require_POST
def game_dispute(request, pk):
    if (response := _login_first(request)) is not None:
        return response
    game, club = _league_game(request, pk)
    if not permissions.can_dispute(request.user, game, club):
        raise PermissionDenied("Only the other player disputes a provisional result.")
    form = DisputeForm(request.POST)
    if form.is_valid():
        try:
            league.game_dispute(game=game, disputed_by=request.user, comment=form.cleaned_data["comment"])
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, "Result disputed: the club's admins will look at it.")
            return redirect("league:game", pk=game.pk)
    return render(
        request, "league/game_detail.html", _game_context(request, game, club, dispute_form=form), status=400
    )

