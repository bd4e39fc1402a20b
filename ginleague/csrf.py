"""Middleware that keeps a late answer from putting back a CSRF cookie that signing in has replaced."""

from __future__ import annotations

from django.conf import settings


def keep_the_newest_csrf_cookie(get_response):
    """Drop the CSRF cookie from an answer when it only repeats the cookie its request came with.

    Django sends the cookie again with every page that renders a token, to renew its expiry. An answer
    to a request sent before signing in (the offline worker fetching the waiting page, a page still
    loading) can arrive after the sign-in has rotated the token; storing its copy would put the
    signed-out token back, and every form opened since would be refused with 403. An unchanged cookie
    needs no resending, so the answers that carry one are exactly the new ones (first visit, sign-in).
    The price is that a cookie is not renewed: it lapses a year after it was set, and the next page
    sets a new one.

    Listed above CsrfViewMiddleware, so it sees the cookie whichever piece set it (the middleware or
    a view's decorator, as the error pages use).
    """
    name = settings.CSRF_COOKIE_NAME

    def middleware(request):
        response = get_response(request)
        sent = request.COOKIES.get(name)
        if sent and name in response.cookies and response.cookies[name].value == sent:
            del response.cookies[name]
        return response

    return middleware
