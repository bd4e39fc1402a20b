"""The site's error answers: pages in the site's layout that say why and what to do, JSON under /api/.

Wired as handler400/403/404/500 in ginleague/urls.py. Under /api/ every error
is a problem, ``{"field": null, "message": "...", "hand": null}``, the API's
own refusal shape, never an HTML page.

A lost database connection (a restart, a failover, ``pg_terminate_backend``) is
a 503 with ``Retry-After``, not a 500: ``DatabaseUnavailableMiddleware`` answers
it for views, ``server_error`` for the rest. Nothing was half-saved (the write's
transaction died with the connection) and the next request opens a new one.
"""

from __future__ import annotations

import logging
import sys

from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import requires_csrf_token

from ginleague.numbers import NumberRefused
from scoring.api.common import problem

API_PREFIX = "/api/"

MESSAGES = {
    400: gettext_lazy("The request could not be understood."),
    403: gettext_lazy("You are not allowed to do that."),
    404: gettext_lazy("There is nothing at this address."),
    413: gettext_lazy("The request is too large."),
    500: gettext_lazy("Something went wrong on our side, and it has been logged. Nothing you sent was half-saved."),
    503: gettext_lazy(
        "The database is not answering for a moment (a restart or failover). Nothing you sent was saved; "
        "send it again in a few seconds."
    ),
    "csrf": gettext_lazy(
        "This form's security check failed, so nothing was saved: the page was probably open "
        "from before you signed in or out, or your browser blocked this site's cookies."
    ),
}
# For the pages: a heading, and what the visitor can do about it.
PAGES = {
    400: (gettext_lazy("Bad request"), gettext_lazy("Go back, reload the page and try again.")),
    403: (
        gettext_lazy("Not allowed"),
        gettext_lazy("Sign in with an account that may do this, or ask the game's players or the club's owner."),
    ),
    404: (
        gettext_lazy("Not found"),
        gettext_lazy("The address may be mistyped, or the game, player or club was removed or is private."),
    ),
    413: (gettext_lazy("Too large"), gettext_lazy("Send less at once: a request may carry at most 2.5 MB.")),
    500: (
        gettext_lazy("Something went wrong"),
        gettext_lazy("Try again in a moment; if it keeps happening, tell the site's owner."),
    ),
    "csrf": (
        gettext_lazy("Form expired"),
        gettext_lazy(
            "Reload the page (your entries may need typing again) and send it again; "
            "if it keeps happening, allow cookies for this site."
        ),
    ),
    503: (
        gettext_lazy("Try again in a moment"),
        gettext_lazy("Go back and send it again: a hand sent twice with the same form is saved once."),
    ),
}
# Seconds a client waits before sending again: a database restart or failover takes a few.
RETRY_AFTER_SECONDS = 2

logger = logging.getLogger(__name__)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _message(exception, status: int) -> str:
    """The exception's own words when it has some (a string we wrote), else the general one."""
    if exception is not None and exception.args and isinstance(exception.args[0], str) and exception.args[0]:
        return exception.args[0]
    return str(MESSAGES[status])


def _answer(request, status: int, message: str, field: str | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(problem(field, message), status=status)
    heading, advice = PAGES[status]
    return render(
        request, "errors/page.html", {"heading": heading, "message": message, "advice": advice}, status=status
    )


@requires_csrf_token
def bad_request(request, exception=None):
    if isinstance(exception, RequestDataTooBig):
        return _answer(request, 413, MESSAGES[413])
    if isinstance(exception, NumberRefused):  # our own words, naming the field (ginleague/numbers.py)
        return _answer(request, 400, exception.text, exception.field)
    # Django's own reasons (a bad Host header, a broken form) are for the log, not the visitor.
    return _answer(request, 400, MESSAGES[400])


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: a form sent without its security token (e.g. a page left open across a
    sign-in, or cookies blocked). Django's own page is for developers; this one says what to do."""
    if _is_api(request):
        return JsonResponse(problem(None, MESSAGES["csrf"]), status=403)
    heading, advice = PAGES["csrf"]
    return render(
        request, "errors/page.html", {"heading": heading, "message": MESSAGES["csrf"], "advice": advice}, status=403
    )


@requires_csrf_token
def permission_denied(request, exception=None):
    return _answer(request, 403, _message(exception, 403))


@requires_csrf_token
def page_not_found(request, exception=None):
    # Only our own Http404 messages are shown; the resolver's carries the URL patterns (a dict).
    return _answer(request, 404, _message(exception, 404))


def refuse_nul_characters(get_response):
    """A NUL character in the path (404) or in a query parameter (400, naming it), answered before any view.

    No real address or query holds one, and every look-up would trip on it: PostgreSQL refuses it in a
    parameter (a 500: a DataError on an invitation token), the file system in a static file's name.
    """

    def middleware(request):
        if "\x00" in request.path:
            return _answer(request, 404, MESSAGES[404])
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                shown = name.replace("\x00", "\\u0000")
                refusal = _("The query parameter %(name)s may not contain the NUL character.") % {"name": repr(shown)}
                return _answer(request, 400, refusal, shown)
        return get_response(request)

    return middleware


# PostgreSQL error classes a retry can cure: connection exceptions (08), transaction rollbacks such
# as serialization failures and deadlocks (40), insufficient resources like too many connections (53),
# and the server shutting down or restarting (57P01-57P03, e.g. pg_terminate_backend or a failover).
RETRYABLE_SQLSTATES = ("08", "40", "53", "57P")


def is_connection_lost(exception) -> bool:
    """A database error that trying again cures (a lost connection, a restart, a lock), not a bug.

    A schema problem (a missing table after a forgotten migration) is an OperationalError on SQLite
    too, but no retry cures it: it stays a 500, which is logged and noticed.
    """
    if isinstance(exception, InterfaceError):
        return True
    if not isinstance(exception, OperationalError):
        return False
    sqlstate = getattr(exception.__cause__, "sqlstate", None)
    if sqlstate:
        return sqlstate.startswith(RETRYABLE_SQLSTATES)
    text = str(exception).lower()
    return not ("no such table" in text or "no such column" in text or "syntax error" in text)


def database_unavailable(request) -> HttpResponse:
    """503 with Retry-After; rendered without the request's context (it would touch the database)."""
    # Drop the broken connection now, so the next request of this thread opens a new one even
    # where Django's request_finished check does not run (the test client).
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()
    if _is_api(request):
        response = JsonResponse(problem(None, MESSAGES[503]), status=503)
    else:
        heading, advice = PAGES[503]
        context = {"heading": heading, "message": MESSAGES[503], "advice": advice}
        response = HttpResponse(render_to_string("errors/page.html", context), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """A view that lost its database connection answers 503 with Retry-After, never a 500.

    Sync-only: the served application (ginleague/asgi.py) runs the whole middleware chain in
    sync mode, in the request's one thread. Under Django's stock ASGI handler (the test
    clients' and anyone's who serves it) a sync-only innermost middleware has the same effect on
    the chain outside it: a request crosses from the event loop to its thread once, instead of
    twice per middleware (async MiddlewareMixin hops to a thread for each process_request and
    process_response).
    """

    sync_capable = True
    async_capable = False

    def process_exception(self, request, exception):
        if is_connection_lost(exception):
            logger.warning("database connection lost during %s %s: %s", request.method, request.path, exception)
            return database_unavailable(request)
        return None


def server_error(request):
    # A lost connection outside a view (a middleware reading the session or the user).
    if is_connection_lost(sys.exc_info()[1]):
        return database_unavailable(request)
    if _is_api(request):
        return JsonResponse(problem(None, MESSAGES[500]), status=500)
    # Rendered without the request: the failure may be the database, which the
    # request's context processors (the signed-in user) would touch again.
    heading, advice = PAGES[500]
    context = {"heading": heading, "message": MESSAGES[500], "advice": advice}
    return HttpResponse(render_to_string("errors/page.html", context), status=500)
