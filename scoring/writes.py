"""Inserts and upserts whose SQL is built once per database, for the rows every hand POST writes.

``Model.objects.create`` and ``bulk_create`` build an insert query and compile it to SQL on every call;
on a hand POST that cost more than running the three statements (the hand, the game's score rows and
the Idempotency-Key's answer: about a fifth of the request, issue 40). Here the statement is built once
per model, database and shape from the model's own fields, and each call sends it with the row's values,
taken as the ORM takes them (``pre_save``, so ``auto_now`` stamps the row, then ``get_db_prep_save``). The
rows come back as ``save()`` and ``bulk_create`` leave them: their ids set, saved to that database.

Only for plain rows: no ``save()`` override, no signal receiver (none is sent), no database default, no
expression as a value, and a database that returns the inserted ids (PostgreSQL, SQLite 3.35+).

``together()``: on PostgreSQL, the writes made inside it whose answers nothing needs at once (the rows' ids,
the game's change count) wait, and go to the database in one round trip when it ends, or just before any other
statement is run meanwhile, so every statement still runs in the order it was made (``sent_together``: as one
text, or in psycopg's pipeline mode where the server binds the values). A hand POST's three writes (the hand,
its game's score rows, the game's figures) were three round trips (issue 40).
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator, Sequence

from django.db import connections, router
from django.db.models import Field, JSONField, Model
from django.db.models.constants import OnConflict


class JSONText(str):
    """A JSON column's value already written as JSON text (no NUL in it: PostgreSQL's jsonb cannot hold one):
    sent as it is, not encoded again (the database reads it as JSON)."""

    __slots__ = ()


def insert[Row: Model](row: Row) -> Row:
    """Insert ``row`` (a new model instance) as ``row.save(force_insert=True)`` would; its id is set."""
    upsert([row])
    return row


def upsert[Row: Model](
    rows: Sequence[Row], *, unique_fields: Sequence[str] = (), update_fields: Sequence[str] = ()
) -> Sequence[Row]:
    """Insert ``rows`` (one model) in one statement; with ``unique_fields``, a row that exists (by those
    fields) has its ``update_fields`` overwritten instead, as ``bulk_create(update_conflicts=True)`` does."""
    if not rows:
        return rows
    model = type(rows[0])
    alias = router.db_for_write(model)
    connection = connections[alias]
    sql, fields, returned = _statement(model, alias, len(rows), tuple(unique_fields), tuple(update_fields))
    params = []
    for row in rows:
        if row.pk is not None and not unique_fields:
            raise ValueError(f"{model.__name__} {row.pk}: an insert writes new rows (their ids are the database's)")
        for field in fields:
            value = field.pre_save(row, True)
            if type(value) is JSONText and isinstance(field, JSONField):
                params.append(str(value))
                continue
            if hasattr(value, "resolve_expression"):
                raise TypeError(f"{model.__name__}.{field.name}: a prepared insert takes values, not expressions")
            params.append(field.get_db_prep_save(value, connection))

    def written(returned_rows: list) -> None:
        for row, values in zip(rows, returned_rows, strict=True):
            for field, value in zip(returned, values, strict=True):
                setattr(row, field.attname, value)
            row._state.adding = False
            row._state.db = alias

    run(connection, sql, params, written)
    return rows


def run(connection, sql: str, params: list, answered: Callable[[list], None]) -> None:
    """Run ``sql`` (a statement that returns rows) on ``connection`` and hand its rows to ``answered``: at once,
    or, inside ``together()``, when the waiting writes are sent (its ids and counts are not there before)."""
    waiting = _WAITING.get(connection)
    if waiting is not None:
        waiting.append((sql, params, answered))
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    answered(rows)


# Per connection (a server thread has its own): the writes waiting inside together(), in order.
_WAITING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _send(connection) -> None:
    """Send the writes waiting on ``connection`` as one text; each one's rows to its ``answered``, in order."""
    waiting = _WAITING.get(connection)
    if not waiting:
        return
    statements = list(waiting)
    waiting.clear()  # before running them: the cursor's execute goes through send_first too
    answers = sent_together(connection, [(sql, params) for sql, params, _answered in statements])
    for (_sql, _params, answered), rows in zip(statements, answers, strict=True):
        answered(rows)


def sent_together(connection, statements: Sequence[tuple[str, list]]) -> list[list]:
    """Each statement's rows, in order, the statements (sql, params) sent to ``connection`` in one round trip. Only
    where ``sends_statements_together(connection)``: each runs after the one before, with its own snapshot.

    Bound on the server (``server_side_binding``, which prepared statements need), each goes as its own statement
    in psycopg's pipeline mode: sent one after the other without waiting, their answers read once all are sent.
    Bound by psycopg, they go as one text."""
    if connection.settings_dict["OPTIONS"].get("server_side_binding"):
        return _pipelined(connection, statements)
    with connection.cursor() as cursor:
        cursor.execute(
            "; ".join(sql for sql, _params in statements), [param for _sql, params in statements for param in params]
        )
        answers = [cursor.fetchall()]
        for _more in statements[1:]:
            cursor.nextset()
            answers.append(cursor.fetchall())
    return answers


def _pipelined(connection, statements: Sequence[tuple[str, list]]) -> list[list]:
    connection.ensure_connection()
    cursors = [connection.cursor() for _statement in statements]
    try:
        # A refusal comes when the pipeline ends (its answers read): wrapped as Django's own (IntegrityError...).
        with connection.wrap_database_errors, connection.connection.pipeline():
            for cursor, (sql, params) in zip(cursors, statements, strict=True):
                cursor.execute(sql, params)
        return [cursor.fetchall() for cursor in cursors]
    finally:
        for cursor in cursors:
            cursor.close()


def sends_statements_together(connection) -> bool:
    """Whether ``connection`` runs several statements sent in one round trip, in order, each with its own snapshot
    (PostgreSQL; not SQLite, which has no round trips to save)."""
    return connection.vendor == "postgresql"


@contextlib.contextmanager
def together(using: str = "default") -> Iterator[None]:
    """Writes made inside wait and go in one round trip at its end where the database takes several statements
    so (``sends_statements_together``); elsewhere each goes at once.
    A row's id is set, and an ``answered`` called, only then. Another statement run meanwhile (a read, an
    ORM save) sends the waiting writes first. Leaving by an exception drops them: the caller's transaction
    is rolling back."""
    connection = connections[using]
    if not sends_statements_together(connection) or connection in _WAITING:  # one at a time, or already inside
        yield
        return
    _WAITING[connection] = []

    def send_first(execute, sql, params, many, context):
        _send(connection)
        return execute(sql, params, many, context)

    try:
        with connection.execute_wrapper(send_first):
            yield
            _send(connection)
    finally:
        del _WAITING[connection]


@functools.cache
def _statement(
    model: type[Model], alias: str, count: int, unique_fields: tuple[str, ...], update_fields: tuple[str, ...]
) -> tuple[str, list[Field], list[Field]]:
    """The INSERT for ``count`` rows of ``model`` on database ``alias``; the fields it sends and returns."""
    connection = connections[alias]
    features, ops, meta = connection.features, connection.ops, model._meta
    if not (features.can_return_columns_from_insert and features.can_return_rows_from_bulk_insert):
        raise NotImplementedError(f"{connection.vendor} does not return inserted rows")
    returned = list(meta.db_returning_fields)
    fields = [field for field in meta.local_concrete_fields if field not in returned and not field.generated]
    for field in fields:
        if field.has_db_default() or getattr(field, "get_placeholder_sql", None) is not None:
            raise NotImplementedError(f"{model.__name__}.{field.name}: not a plain value")
    quote = ops.quote_name
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in fields)})"  # noqa: S608
        f" VALUES {', '.join([row] * count)}"
    )
    if unique_fields:
        columns = [meta.get_field(name).column for name in unique_fields]
        updated = [meta.get_field(name).column for name in update_fields]
        sql += " " + ops.on_conflict_suffix_sql(fields, OnConflict.UPDATE, updated, columns)
    returning, _params = ops.returning_columns(returned)
    return f"{sql} {returning}", fields, returned
