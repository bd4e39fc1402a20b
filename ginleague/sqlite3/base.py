"""Django's SQLite backend, but a statement's placeholders are converted once per process, not on every execute.

Python's sqlite3 takes ``?`` where Django writes ``%s``: Django's cursor rewrites every statement with a
regular expression (``(?<!%)%s``) over its whole text on each execute. For the long joins every signed-in
page runs ("Needs you", the games list: 5-7 KB of SQL each) that scan was about 0.1 ms a statement, a third
of running it (issue 40). The rewrite depends only on the text, so it is kept, for the most recent
statements, keyed by the text (a prepared statement passes the same string each time, whose hash Python
keeps). Named ("pyformat") parameters are Django's as before.

And the connection does not ask sqlite3 to find each column's declared type (Django opens it with
PARSE_DECLTYPES | PARSE_COLNAMES): sqlite3 then looked up a converter for every column of every
statement, rows or none, about 0.3M instructions of the games list's request (issue 40). Django's own
converters (connection.ops, by field) turn the text of dates and times and the 0/1 of booleans into
Python values for every ORM read; the project's raw reads hand their rows to the same converters
(scoring/prepared.py, selectors.game_for_update) or read text and numbers only. Everything else is Django's
backend.
"""

from __future__ import annotations

from functools import lru_cache

from django.db.backends.sqlite3 import base

STATEMENTS_KEPT = 1024  # distinct statements' ?-form kept per process (a few MB at most)


@lru_cache(maxsize=STATEMENTS_KEPT)
def qmark_form(query: str) -> str:
    """Django's "format" to "qmark" conversion (SQLiteCursorWrapper.convert_query), kept per statement."""
    return base.FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")


class SQLiteCursorWrapper(base.SQLiteCursorWrapper):
    def convert_query(self, query, *, param_names=None):
        if param_names is None:
            return qmark_form(query)
        return super().convert_query(query, param_names=param_names)


class DatabaseWrapper(base.DatabaseWrapper):
    def create_cursor(self, name=None):
        return self.connection.cursor(factory=SQLiteCursorWrapper)

    def get_connection_params(self):
        """Django's, without the per-column type detection (a database's OPTIONS may still ask for it)."""
        params = super().get_connection_params()
        if "detect_types" not in self.settings_dict["OPTIONS"]:
            params["detect_types"] = 0
        return params
