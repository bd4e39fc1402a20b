"""Accounts (first run, sign in/up, owner settings, language) and players' pages."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.views import LoginView
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from players.forms import EmailSettingsForm, LanguageForm, SignUpForm, SiteSettingsForm
from players.languages import account_language_seen, account_language_set, language_of
from players.mail import wants_email
from players.models import Invitation, Player, SiteSettings
from players.services import account_email_set
from players.tokens import token_change_refused, token_create, token_for, token_revoke


def no_one_can_sign_in() -> bool:
    """First run: no account can sign in yet (seed_demo's password-less users don't count)."""
    return not get_user_model().objects.exclude(password__startswith=UNUSABLE_PASSWORD_PREFIX).exists()


def _create_account(form: SignUpForm, *, owner: bool):
    with transaction.atomic():
        user = form.save(commit=False)
        if owner:
            user.is_superuser = True
            user.is_staff = True
        user.save()
        name = form.cleaned_data.get("player_name")
        if name:
            Player.objects.create(name=name, user=user, created_by=user)
    return user


@require_http_methods(["GET", "POST"])
def setup(request):
    """First run: create the owner account (a superuser). Gone once any user exists."""
    if not no_one_can_sign_in():
        return redirect("login")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = _create_account(form, owner=True)
        account_language_seen(user=user, language=translation.get_language(), signed_up=True)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(username)s. You own this GinLeague.") % {"username": user.username})
        return redirect("home")
    return render(request, "registration/setup.html", {"form": form}, status=422 if form.errors else 200)


def safe_next(request) -> str:
    """Where to go after signing in or up (e.g. back to a club invitation): only a page of this site, else "".

    A page of this site is a path from its root: anything else ("-1", "home") is no page, and Django's
    ``redirect`` would take it for a view's name and fail (a crash page) where it is not one."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    allowed = wanted.startswith("/") and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if allowed else ""


class SignInView(LoginView):
    def get_redirect_url(self):  # the sign-in form's "next": as sign-up's, only a page of this site
        return safe_next(self.request)

    def dispatch(self, request, *args, **kwargs):
        if no_one_can_sign_in():
            return redirect("setup")
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["signup_open"] = SiteSettings.load().signup_open
        return context


@require_http_methods(["GET", "POST"])
def signup(request):
    if no_one_can_sign_in():
        return redirect("setup")
    if not SiteSettings.load().signup_open:
        return render(request, "registration/signup_closed.html", status=403)
    form = SignUpForm(request.POST if request.method == "POST" else None)
    next_page = safe_next(request)  # e.g. the club invitation that sent them here
    claimed = _claimed_by_invitation(next_page)
    if claimed is not None:  # they will play as the club's record of them: no second name to make up
        del form.fields["player_name"]
    if request.method == "POST" and form.is_valid():
        user = _create_account(form, owner=False)
        account_language_seen(user=user, language=translation.get_language(), signed_up=True)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(username)s.") % {"username": user.username})
        return redirect(next_page or reverse("home"))
    context = {"form": form, "next": next_page, "claimed": claimed}
    return render(request, "registration/signup.html", context, status=422 if form.errors else 200)


def _claimed_by_invitation(next_page: str) -> Player | None:
    """The guest's record that the unused invitation at ``next_page`` will link to the new account, if any."""
    try:
        match = resolve(next_page) if next_page else None
    except Resolver404:
        return None
    if match is None or match.url_name != "invitation" or "token" not in match.kwargs:
        return None
    invitation = (
        Invitation.objects.filter(token=match.kwargs["token"], accepted_at__isnull=True, player__user__isnull=True)
        .select_related("player")
        .first()
    )
    return invitation.player if invitation is not None else None


@require_http_methods(["GET", "POST"])
def site_settings(request):
    if not request.user.is_authenticated:
        from django.contrib.auth.views import redirect_to_login

        return redirect_to_login(request.get_full_path())
    if not request.user.is_superuser:
        raise PermissionDenied(_("Only the owner may change the site settings."))
    row = SiteSettings.load()
    form = SiteSettingsForm(request.POST if request.method == "POST" else None, instance=row)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(
            request,
            _("Settings saved: sign-up is open.") if row.signup_open else _("Settings saved: sign-up is closed."),
        )
        return redirect("site_settings")
    return render(request, "players/settings.html", {"form": form})


def player_list(request):
    return render(request, "players/player_list.html", {"players": Player.objects.order_by("name")})


@login_required
@require_http_methods(["GET", "POST"])
def account(request):
    """The signed-in user's own page: their player record and their API token."""
    if request.method == "POST" and "email_settings" in request.POST:
        email_form = EmailSettingsForm(request.POST)
        if email_form.is_valid():
            account_email_set(
                user=request.user, email=email_form.cleaned_data["email"], notify=email_form.cleaned_data["notify"]
            )
            messages.success(request, _("E-mail settings saved."))
            return redirect("account")
    else:
        email_form = EmailSettingsForm(initial={"email": request.user.email, "notify": wants_email(request.user)})
    status = 200
    if request.method == "POST" and "email_settings" not in request.POST:
        action = request.POST.get("token")
        refusal = token_change_refused(request) if action in ("create", "revoke") else None
        if refusal:  # the same limit as POST/DELETE /api/token/
            messages.error(request, refusal)
            status = 429
        elif action == "create":
            token_create(user=request.user)
            messages.success(request, _("New API token created; any older token has stopped working."))
        elif action == "revoke":
            revoked = token_revoke(user=request.user)
            messages.success(request, _("API token revoked.") if revoked else _("You had no API token."))
        else:
            messages.error(request, _("Choose to create or revoke the API token."))
        if status == 200:
            return redirect("account")
    context = {
        "token": token_for(user=request.user),
        "player": Player.objects.filter(user=request.user).first(),
        "email_form": email_form,
        "language_form": LanguageForm(initial={"language": language_of(request.user)}),
    }
    return render(request, "players/account.html", context, status=status)


@require_POST
def language_choose(request):
    """The footer's (and the account page's) language switch: back to the page it was on, in that language.

    Everyone gets Django's language cookie (the browser's own language when "as the browser says");
    a signed-in account also keeps the choice, for its other devices and its e-mail.
    """
    form = LanguageForm(request.POST)
    response = redirect(safe_next(request) or reverse("home"))
    if not form.is_valid():
        return response
    language = form.cleaned_data["language"]
    if language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    else:
        response.delete_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    if request.user.is_authenticated:
        account_language_set(user=request.user, language=language, session=request.session)
    return response
