"""The session store: Django's database sessions, read by a statement written once, not compiled per request.

Every signed-in request reads its session first; the ORM compiled that one-row SELECT anew each time,
about a third of a millisecond of every page (issue 40). The same row is read here by SQL built once per
database from the model's own table and columns, with the expiry time prepared as the ORM prepares it
(in the database's own form). Writes, and everything else, are Django's.
"""

from __future__ import annotations

import functools

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone

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
