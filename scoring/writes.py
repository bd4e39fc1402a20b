"""Inserts and upserts whose SQL is built once per database, for the rows every hand POST writes.

``Model.objects.create`` and ``bulk_create`` build an insert query and compile it to SQL on every call;
on a hand POST that cost more than running the three statements (the hand, the game's score rows and
the Idempotency-Key's answer: about a fifth of the request, issue 40). Here the statement is built once
per model, database and shape from the model's own fields, and each call sends it with the row's values,
taken as the ORM takes them (``pre_save``, so ``auto_now`` stamps the row, then ``get_db_prep_save``). The
rows come back as ``save()`` and ``bulk_create`` leave them: their ids set, saved to that database.

Only for plain rows: no ``save()`` override, no signal receiver (none is sent), no database default, no
expression as a value, and a database that returns the inserted ids (PostgreSQL, SQLite 3.35+).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

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
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        returned_rows = cursor.fetchall()
    for row, values in zip(rows, returned_rows, strict=True):
        for field, value in zip(returned, values, strict=True):
            setattr(row, field.attname, value)
        row._state.adding = False
        row._state.db = alias
    return rows


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
