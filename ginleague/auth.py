"""The signed-in user of a request: Django's AuthenticationMiddleware, with the account read by a statement built once.

Every signed-in request reads its account; ``ModelBackend.get_user`` built and compiled that one-row SELECT
anew each time (``_default_manager.get(pk=…)``), about a tenth of a light page (issue 40). ``get_user`` below is
Django's own (django.contrib.auth.get_user, Django 6.1), line for line, but for that read: for a backend that
reads accounts as ModelBackend does (its ``get_user`` not overridden), the row comes from a prepared
statement (scoring/prepared.py) and ``user_can_authenticate`` still decides (a deactivated account is signed
out). Everything else is Django's: the session's backend must still be in AUTHENTICATION_BACKENDS, the
session's auth hash is checked with constant_time_compare (the account's own hash, an HMAC of its stored
password hash, kept per password hash and SECRET_KEY: the same every request), then against
SECRET_KEY_FALLBACKS (the session cycled onto the new hash), and a session that fails is flushed.
"""

from __future__ import annotations

from functools import cache, lru_cache, partial

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.functional import SimpleLazyObject, empty

from scoring.prepared import Prepared


@cache
def _account_by_id() -> Prepared:
    model = get_user_model()
    return Prepared(model, lambda pk: model._default_manager.filter(pk=pk), pk=int)


def _backend_user(backend, user_id):
    """``backend.get_user(user_id)``, read by the prepared statement when the backend reads as ModelBackend does."""
    if type(backend).get_user is not ModelBackend.get_user or not isinstance(user_id, int):
        return backend.get_user(user_id)
    rows = _account_by_id()(pk=user_id)
    user = rows[0] if rows else None
    return user if user is not None and backend.user_can_authenticate(user) else None


@lru_cache(maxsize=1024)
def _password_hmac(password: str, secret_key: str) -> str:
    """AbstractBaseUser._get_session_auth_hash() of a password (its stored hash) under the current SECRET_KEY."""
    return salted_hmac(_SESSION_HASH_SALT, password, secret=secret_key, algorithm="sha256").hexdigest()


_SESSION_HASH_SALT = "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash"  # Django's key_salt


def _session_auth_hash(user) -> str:
    """``user.get_session_auth_hash()``, the same HMAC of the same stored password hash on every request of the
    account: kept per password hash and SECRET_KEY (an HMAC each request was a fifth of reading the account). A
    user class that writes its own hash is asked, as Django asks it."""
    cls = type(user)
    if (
        cls.get_session_auth_hash is not AbstractBaseUser.get_session_auth_hash
        or cls._get_session_auth_hash is not AbstractBaseUser._get_session_auth_hash
        or not isinstance(user.password, str)
    ):
        return user.get_session_auth_hash()
    return _password_hmac(user.password, settings.SECRET_KEY)


def get_user(request):
    """Django's ``auth.get_user`` (see the module's docstring): the request's account, or AnonymousUser."""
    user = None
    try:
        # auth._get_user_session_key; the account model is the one the prepared read was built for.
        user_id = _account_by_id().model._meta.pk.to_python(request.session[SESSION_KEY])
        backend_path = request.session[BACKEND_SESSION_KEY]
    except KeyError:
        pass
    else:
        if backend_path in settings.AUTHENTICATION_BACKENDS:
            backend = load_backend(backend_path)
            user = _backend_user(backend, user_id)
            # Verify the session
            if hasattr(user, "get_session_auth_hash"):
                session_hash = request.session.get(HASH_SESSION_KEY)
                if not session_hash:
                    session_hash_verified = False
                else:
                    session_auth_hash = _session_auth_hash(user)
                    session_hash_verified = constant_time_compare(session_hash, session_auth_hash)
                if not session_hash_verified:
                    # If the current secret does not verify the session, try with the fallback secrets and
                    # stop when a matching one is found.
                    if session_hash and any(
                        constant_time_compare(session_hash, fallback_auth_hash)
                        for fallback_auth_hash in user.get_session_auth_fallback_hash()
                    ):
                        request.session.cycle_key()
                        request.session[HASH_SESSION_KEY] = session_auth_hash
                    else:
                        request.session.flush()
                        user = None

    if user is None:
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser()
    return user


def _cached_user(request):
    if not hasattr(request, "_cached_user"):
        request._cached_user = get_user(request)
    return request._cached_user


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    """Django's, with ``request.user`` from ``get_user`` above (``request.auser``, for async views, is Django's)."""

    def process_request(self, request):
        super().process_request(request)  # its checks, and request.auser
        request.user = SimpleLazyObject(partial(_cached_user, request))


def read_user(request) -> dict:
    """Context processor, after Django's auth one: ``user`` is the account itself once the view has read it (most
    views ask whether someone is signed in), not the lazy wrapper around it, through which every ``user.…`` of a
    template (the chrome's viewer class and name, a page's checks) went through several Python calls. A user not
    read yet stays lazy: a page that never shows it never reads it."""
    user = getattr(request, "user", None)
    wrapped = getattr(user, "_wrapped", empty) if isinstance(user, SimpleLazyObject) else empty
    return {} if wrapped is empty or wrapped is None else {"user": wrapped}
