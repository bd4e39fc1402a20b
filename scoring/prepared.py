"""Querysets whose SQL is built once per database and then run with each request's values.

Building a join's queryset (``filter()``, ``Q``, subqueries) and compiling it to SQL costs the ORM more
than running it: "Needs you" spent most of every page's time there (issue 40). A ``Prepared`` read is
built by its function once per database, with stand-in values for its parameters, compiled once, and
from then on each call runs the same SQL with the call's values in the stand-ins' places; the rows
become models (``select_related`` and ``prefetch_related`` included), or the tuples or values of a
``values_list()``, exactly as the queryset's own iteration makes them.

Only for reads whose shape never depends on the values (no lists of varying length, no branches on a
value): the stand-ins must appear among the compiled statement's parameters, or building fails.
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import threading
import weakref
from asyncio import get_running_loop
from dataclasses import dataclass, field
from functools import lru_cache

from django.core.exceptions import SynchronousOnlyOperation
from django.core.signals import setting_changed
from django.db import connections, router
from django.db.models import JSONField, QuerySet
from django.db.models.fields.json import KeyTransform
from django.db.models.query import (
    DEFAULT_FETCH_MODE,
    FlatValuesListIterable,
    ModelIterable,
    ValuesListIterable,
    _get_from_db,
)
from django.db.models.sql.query import Query

_INT_STAND_IN = -918_273_645  # ints far from any id, count or constant of the project's queries
_DATE_STAND_IN = datetime.date(1111, 11, 11)


_ROWS_OF_VALUES = (ValuesListIterable, FlatValuesListIterable)


def fetch_all(connection, sql: str, params: list) -> list:
    """``cursor.execute(sql, params)`` then ``fetchall()`` on ``connection``, as through ``connection.cursor()``.

    Django's cursor wraps the backend's in several layers (its own wrapper, the execute wrappers, an error
    wrapper per fetch, two async checks), about 60k instructions a statement, a third of running a "Needs
    you" read on SQLite (issue 40). With no query logging (DEBUG, a test counting queries), no execute
    wrapper, an open connection and its health checked, the same checks are made once each here (no event
    loop in this thread, the connection used by its own thread, no broken transaction) and the backend's
    cursor's errors are raised as Django's error wrapper raises them (a lost connection is still a 503).
    Otherwise, Django's cursor does it all."""
    if (
        connection.connection is None
        or connection.queries_logged
        or connection.execute_wrappers
        or (connection.health_check_enabled and not connection.health_check_done)
    ):
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    try:  # django.utils.asyncio.async_unsafe, as connection.cursor() checks
        get_running_loop()
    except RuntimeError:
        pass
    else:
        if not os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE"):
            raise SynchronousOnlyOperation(
                "You cannot call this from an async context - use a thread or sync_to_async."
            )
    connection.validate_thread_sharing()
    try:
        # The cursor first, as Django's: a connection lost mid-transaction is a database error here (a 503),
        # not the "broken transaction" its failed savepoint left (a 500).
        cursor = connection.create_cursor()
        try:
            connection.validate_no_broken_transaction()
            cursor.execute(sql, params)
            return cursor.fetchall()
        finally:
            try:  # noqa: SIM105 - as Django's cursor closes (an error closing it is of no use); suppress() costs a call
                cursor.close()
            except connection.Database.Error:
                pass
    except connection.Database.Error as error:  # Django's error in its place, as its error wrapper raises it
        connection.wrap_database_errors.__exit__(type(error), error, error.__traceback__)
        raise


def _converted(rows: list, converters: dict, connection, *, flat: bool) -> list:
    """SQLCompiler.results_iter's rows (apply_converters, then tuples), or a flat values_list()'s first values."""
    if converters and rows:
        # Column by column: each converted column's values in one pass, not each row copied to a list and back.
        columns = list(zip(*rows, strict=True))
        for position, (functions, expression) in converters.items():
            values = columns[position]
            for function in functions:
                values = [function(value, expression, connection) for value in values]
            columns[position] = values
        if flat:
            return list(columns[0])
        return list(zip(*columns, strict=True))
    if flat:
        return [row[0] for row in rows]
    return [tuple(row) for row in rows]


JSON_KEPT = 256  # distinct JSON texts of flat objects kept decoded per process (a game's rules: ~0.5 KB each)
_SCALARS = (str, int, float, bool, type(None))


@lru_cache(maxsize=JSON_KEPT)
def _flat_object(text: str) -> dict | None:
    """``text`` decoded, if it is an object of plain values (a game's rules), else None."""
    value = json.loads(text)
    if type(value) is dict and all(type(item) in _SCALARS for item in value.values()):
        return value
    return None


def _json_converter(from_db_value):
    """A plain JSONField's ``from_db_value``, but a text read before that holds an object of plain values is
    answered with a fresh copy of the object it decoded to (decoding a game's rules was ~40k instructions
    a row of the games list and of the recent sittings, the same few texts each visit). Anything else, and
    a text that is no JSON, is the field's own answer."""

    def convert(value, expression, connection):
        if type(value) is str and not isinstance(expression, KeyTransform):
            try:
                kept = _flat_object(value)
            except json.JSONDecodeError:
                kept = None
            if kept is not None:
                return dict(kept)
        return from_db_value(value, expression, connection)

    return convert


TIMES_KEPT = 8192  # distinct stored times kept parsed per process (a long sitting's hands: two each)
_TIMES: dict[tuple, datetime.datetime] = {}
_times_lock = threading.Lock()


def forget_times(**kwargs) -> None:
    """Parse every stored time anew (a setting changed: the time zone or USE_TZ)."""
    with _times_lock:
        _TIMES.clear()


setting_changed.connect(forget_times, dispatch_uid="prepared_times")


def _datetime_converter(convert):
    """SQLite's ``convert_datetimefield_value``, but a text read before is answered with the time it gave then (a
    datetime cannot change: one object serves every read). Every hand POST reads each hand's two times on SQLite,
    and parsing them was a quarter of that read (issue 40); PostgreSQL's driver gives datetimes, not texts."""

    def converted(value, expression, connection):
        if type(value) is not str:
            return convert(value, expression, connection)
        key = (value, connection.alias)  # each database's own time zone
        kept = _TIMES.get(key)
        if kept is None:
            kept = convert(value, expression, connection)
            with _times_lock:
                if len(_TIMES) >= TIMES_KEPT:
                    _TIMES.clear()
                _TIMES[key] = kept
        return kept

    return converted


def _kept_json(converters: dict) -> dict:
    """The compiler's converters of the columns, each plain JSONField's (no decoder of its own) kept as above,
    and SQLite's datetime columns' parsed times kept (``_datetime_converter``)."""
    kept = {}
    for position, (functions, expression) in converters.items():
        functions = [_kept_converter(function) for function in functions]
        kept[position] = (functions, expression)
    return kept


def _on_sqlite(owner) -> bool:
    """Whether a converter's owner is SQLite's operations (whose times are texts to parse)."""
    connection = getattr(owner, "connection", None)
    return connection is not None and connection.vendor == "sqlite"


def _kept_converter(function):
    method = getattr(function, "__func__", None)
    if method is JSONField.from_db_value and function.__self__.decoder is None:
        return _json_converter(function)
    if method is not None and method.__name__ == "convert_datetimefield_value" and _on_sqlite(function.__self__):
        return _datetime_converter(function)
    return function


@dataclass(frozen=True)
class _Statement:
    query: Query
    sql: str
    params: tuple
    slots: tuple  # (index in params, parameter name, adapt to text) for every stand-in
    compiled: dict  # the compiler's attributes that iteration reads (select, klass_info, ...)
    prefetch: tuple
    composite: bool  # any composite primary key among the columns (the compiler asks on every iteration)
    iterable: type  # what a row becomes: a model, or a values_list()'s tuple or value
    fields: tuple | None  # a values_list()'s names
    # A read of one model's own columns (no select_related, annotation or prefetch): its columns' attribute names
    # in the row (ModelIterable's init_list), for making each model at once; None for any other read.
    own_columns: tuple | None
    id_range: tuple  # the database's BigIntegerField range: a value past it matches no id
    # Each connection's converters of the columns (dates, decimals, booleans on SQLite): asking every column's
    # field and the backend for them was a third of a prepared read's time. Per connection: the backend's are
    # its own bound methods, and a server thread has its own connection.
    converters: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)


class _PreparedQuery(Query):
    """The built query; its compiler answers the prepared SQL with this call's values."""

    statement: _Statement
    prepared_values: list
    prepared_rows: list  # what running the statement answered (Prepared.__call__), in Django's chunks

    def get_compiler(self, using=None, connection=None, elide_empty=True):
        compiler = super().get_compiler(using, connection, elide_empty)
        statement = self.statement
        compiler.__dict__.update(statement.compiled)
        sql, params = statement.sql, self.prepared_values
        compiler.as_sql = lambda *args, **kwargs: (sql, params)
        compiler.execute_sql = lambda *args, **kwargs: self.prepared_rows
        converters = statement.converters.get(compiler.connection)
        if converters is None:
            columns = [column[0] for column in compiler.select[: compiler.col_count]]
            converters = statement.converters[compiler.connection] = _kept_json(compiler.get_converters(columns))
        compiler.get_converters = lambda expressions: converters
        compiler.has_composite_fields = lambda expressions: statement.composite
        return compiler


class Prepared:
    """``Prepared(build, date=..., user=...)``: ``build(**values)`` returns a queryset; each named value is
    an int (an id) or a date. Calling the prepared read with real values returns the list of models (or of
    a values_list()'s rows)."""

    def __init__(self, model: type, build, **kinds: type):
        self.model = model
        self.build = build
        self.kinds = kinds
        self._statements: dict[str, _Statement] = {}
        self._lock = threading.Lock()

    def _stand_ins(self) -> dict:
        values = {}
        for number, (name, kind) in enumerate(self.kinds.items()):
            if kind is int:
                values[name] = _INT_STAND_IN - number
            elif kind is datetime.date:
                values[name] = _DATE_STAND_IN + datetime.timedelta(days=number)
            else:
                raise TypeError(f"{name}: only int and date values can be prepared")
        return values

    def _statement(self, alias: str) -> _Statement:
        statement = self._statements.get(alias)
        if statement is not None:
            return statement
        with self._lock:
            stand_ins = self._stand_ins()
            queryset = self.build(**stand_ins)
            query = queryset.query
            compiler = query.get_compiler(using=alias)
            sql, params = compiler.as_sql()
            slots, found = [], set()
            for index, param in enumerate(params):
                for name, value in stand_ins.items():
                    if param == value or (isinstance(value, datetime.date) and param == str(value)):
                        slots.append((index, name, isinstance(param, str)))
                        found.add(name)
            if found != set(stand_ins):
                raise ValueError(f"prepared read: {sorted(set(stand_ins) - found)} not among the statement's values")
            if queryset.model is not self.model:
                raise TypeError(f"prepared read of {self.model.__name__} built a {queryset.model.__name__} queryset")
            prepared = copy.copy(query)
            prepared.__class__ = _PreparedQuery
            columns = [column[0] for column in compiler.select[: compiler.col_count]]
            compiled = {
                name: getattr(compiler, name)
                for name in ("select", "klass_info", "annotation_col_map", "col_count", "has_extra_select")
            }
            klass_info = compiler.klass_info
            own_columns = None
            if (
                queryset._iterable_class is ModelIterable
                and klass_info is not None
                and klass_info["model"] is self.model
                and not klass_info.get("related_klass_infos")
                and not compiler.annotation_col_map
                and not queryset._prefetch_related_lookups
                and list(klass_info["select_fields"]) == list(range(compiler.col_count))
            ):
                own_columns = tuple(column[0].target.attname for column in compiler.select[: compiler.col_count])
            statement = _Statement(
                id_range=connections[alias].ops.integer_field_range("BigIntegerField"),
                own_columns=own_columns,
                query=prepared,
                sql=sql,
                params=tuple(params),
                slots=tuple(slots),
                compiled=compiled,
                prefetch=tuple(queryset._prefetch_related_lookups),
                composite=compiler.has_composite_fields(columns),
                iterable=queryset._iterable_class,
                fields=queryset._fields,
            )
            prepared.statement = statement
            self._statements[alias] = statement
            return statement

    def __call__(self, **values) -> list:
        alias = router.db_for_read(self.model)
        connection = connections[alias]  # a thread-local lookup (asgiref's Local, ~1 us): once a read
        statement, params = self.statement_with(alias, **values)
        if params is None:
            return []  # past any id column (an address typed by hand): no row, as the ORM answers
        # Run first: a read that answers no row (most viewers' "Needs you") is an empty list at once, without the
        # queryset, its compiler and its row makers; the rows of one that does are handed to them.
        return self.made(connection, alias, statement, params, fetch_all(connection, statement.sql, params))

    def statement_with(self, alias: str, **values) -> tuple[_Statement, list | None]:
        """The statement on database ``alias`` and its parameters with ``values`` in the stand-ins' places (None:
        a value past any id, which matches no row), for a caller that sends it with another statement."""
        if set(values) != set(self.kinds):
            raise TypeError(f"prepared read takes {sorted(self.kinds)}, not {sorted(values)}")
        statement = self._statements.get(alias) or self._statement(alias)
        low, high = statement.id_range
        for value in values.values():
            if isinstance(value, int) and not low <= value <= high:
                return statement, None
        params = list(statement.params)
        for index, name, as_text in statement.slots:
            value = values[name]
            if not isinstance(value, self.kinds[name]):
                raise TypeError(f"{name}: {value!r} is not {self.kinds[name].__name__}")
            params[index] = str(value) if as_text else value
        return statement, params

    def made(self, connection, alias: str, statement: _Statement, params: list, rows: list) -> list:
        """The rows ``statement`` answered (with ``params``) as the models, or values, its queryset gives."""
        if not rows:
            return []
        if statement.compiled["has_extra_select"]:  # as the compiler's own fetch does
            rows = [row[: statement.compiled["col_count"]] for row in rows]
        converters = statement.converters.get(connection)
        if statement.iterable in _ROWS_OF_VALUES and converters is not None and not statement.composite:
            # A values_list()'s rows, once this connection's converters are known (the first read's compiler
            # asked for them): converted as the compiler's results_iter does, without a queryset around them.
            return _converted(rows, converters, connection, flat=statement.iterable is FlatValuesListIterable)
        if statement.own_columns is not None and converters is not None and not DEFAULT_FETCH_MODE.track_peers:
            # One model's own columns: each row made into the model as ModelIterable makes it (converted, then
            # from_db), without the queryset and compiler around them.
            from_db = _get_from_db(self.model, DEFAULT_FETCH_MODE)
            return [
                from_db(alias, statement.own_columns, row)
                for row in _converted(rows, converters, connection, flat=False)
            ]
        query = copy.copy(statement.query)
        query.prepared_values = params
        query.prepared_rows = [rows]
        queryset = QuerySet(model=self.model, query=query, using=alias)
        queryset._prefetch_related_lookups = statement.prefetch
        queryset._iterable_class, queryset._fields = statement.iterable, statement.fields
        return list(queryset)
