"""The session store: Django's database sessions, read by a statement written once, not compiled per request.

Every signed-in request reads its session first; the ORM compiled that one-row SELECT anew each time,
about a third of a millisecond of every page (issue 40). The same row is read here by SQL built once per
database from the model's own table and columns, with the expiry time prepared as the ORM prepares it
(in the database's own form). Writes, and everything else, are Django's.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.contrib.sessions.backends import db
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.db import connections, router
from django.utils import timezone
from django.utils.cache import patch_vary_headers

COLUMNS = ("session_key", "session_data", "expire_date")


@functools.cache
def _read_sql(alias: str, model: type) -> str:
    """SELECT the session's data WHERE its key is the given one and it has not expired."""
    quote = connections[alias].ops.quote_name
    key, data, expiry = (quote(model._meta.get_field(name).column) for name in COLUMNS)
    table = quote(model._meta.db_table)
    return f"SELECT {data} FROM {table} WHERE {key} = %s AND {expiry} > %s"  # noqa: S608 - names from the model


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        model = self.model
        alias = router.db_for_read(model)
        connection = connections[alias]
        now = model._meta.get_field("expire_date").get_db_prep_value(timezone.now(), connection)
        with connection.cursor() as cursor:
            cursor.execute(_read_sql(alias, model), [self.session_key, now])
            row = cursor.fetchone()
        if row is None:  # no such session, or it has expired: as the ORM's DoesNotExist
            self._session_key = None
            return None
        return model(session_key=self.session_key, session_data=row[0])


class SessionMiddleware(DjangoSessionMiddleware):
    """Django's, but a request whose session is gone leaves the browser's cookie alone.

    Signing in (or out) replaces the session; a request sent a moment before with the old cookie (the
    service worker keeping pages, a badge's count) finds no session, and Django answered it by deleting
    the cookie, which the browser applied to the new session's cookie of the same name: a phone that had
    just signed up was signed out again. Only a session emptied by this request (sign-out) deletes it.
    """

    def process_response(self, request, response):
        session = getattr(request, "session", None)
        if (
            session is not None
            and not session.modified
            and settings.SESSION_COOKIE_NAME in request.COOKIES
            and session.is_empty()
        ):
            if session.accessed:
                patch_vary_headers(response, ("Cookie",))
            return response
        return super().process_response(request, response)
