"""CSRF: the pages' masked token, and middleware that keeps a late answer from putting back a CSRF cookie that
signing in has replaced."""

from __future__ import annotations

import operator
import secrets

from django.conf import settings
from django.middleware import csrf as django_csrf
from django.utils.functional import SimpleLazyObject

_CHARS = django_csrf.CSRF_ALLOWED_CHARS
# A random byte at or over this is drawn again, so that every character of the mask is equally likely.
_FAIR_BYTES = 256 - 256 % len(_CHARS)
# Each fair byte as its character (byte % len(_CHARS)), the others deleted: bytes.translate does it in C.
_CHAR_OF_BYTE = bytes(ord(_CHARS[byte % len(_CHARS)]) for byte in range(256))
_UNFAIR = bytes(range(_FAIR_BYTES, 256))
# A secret's character and the mask's, as the cipher's character: (place + place) mod len(_CHARS).
_CIPHER = {x + y: _CHARS[(px + py) % len(_CHARS)] for px, x in enumerate(_CHARS) for py, y in enumerate(_CHARS)}


def _random_chars(length: int) -> str:
    """``length`` characters of CSRF_ALLOWED_CHARS, each uniformly random (as django.utils.crypto.get_random_string)."""
    chars = b""
    while len(chars) < length:
        chars += secrets.token_bytes(length + 8).translate(_CHAR_OF_BYTE, _UNFAIR)
    return chars[:length].decode("ascii")


def get_token(request) -> str:
    """Django's ``get_token`` (django.middleware.csrf, Django 6.1): the request's CSRF secret, its cookie renewed
    or a new one made, masked by a fresh random mask. The mask is drawn from one read of random bytes, not one
    ``secrets.choice`` (a read of the system's random source each) per character: 32 reads were a tenth of
    rendering a page's chrome (issue 40). The token is Django's: the middleware unmasks and checks it.

    Django also asks for the cookie to be sent again, to renew its expiry; ``keep_the_newest_csrf_cookie`` below
    drops a cookie that only repeats the request's own, so that is asked only when the secret is not the
    cookie the request came with (a legacy masked cookie, replaced by its secret): building the cookie that
    would be dropped was a tenth of the new-game page."""
    if "CSRF_COOKIE" in request.META:
        secret = request.META["CSRF_COOKIE"]
        if request.COOKIES.get(settings.CSRF_COOKIE_NAME) != secret:
            request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True
    else:
        secret = django_csrf._add_new_csrf_cookie(request)
    mask = _random_chars(django_csrf.CSRF_SECRET_LENGTH)
    return mask + "".join(map(_CIPHER.__getitem__, map(operator.add, secret, mask)))


def csrf_token(request) -> dict:
    """Context processor: the templates' ``csrf_token`` from ``get_token`` above, made when a page first shows it
    (it replaces what Django's built-in csrf processor, which runs first, put there)."""
    return {"csrf_token": SimpleLazyObject(lambda: get_token(request))}


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
