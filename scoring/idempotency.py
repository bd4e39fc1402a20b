"""Idempotency keys: a write sent twice with one key (a retry on a flaky connection) happens once.

Shared by the API (``Idempotency-Key`` header, scoring/api/idempotency.py) and the
scoresheet's record form (a key made when the form is rendered). The first request
with a key stores an ``IdempotentRequest`` row holding its answer, inserted in the
same transaction as the write itself (one insert, after the write). A retry with
the same key and the same request gets the stored answer back; the caller decides
what a different request with a used key gets. Two copies of one request arriving
at once are serialised by the unique (user, key) constraint: the second one's
insert waits for the first to commit, then fails, and its whole transaction (its
copy of the write included) rolls back and it replays the first's answer, so the
write is never made twice. A refusal is stored after the refused write has ended, by its
INSERT alone (a transaction of its own). A refusal that only read (a second phone's copy:
the hand was taken) ends by COMMIT, which undoes nothing a ROLLBACK would and keeps the
connection's prepared statements; one that wrote, or met a database error, rolls back. A
server error (5xx, a lost database connection) is not stored: the key stays free for the retry.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils.translation import gettext as _

from scoring import writes
from scoring.models import IdempotentRequest

MAX_KEY_LENGTH = IdempotentRequest._meta.get_field("key").max_length


def key_problem(key: str | None, name: str) -> str | None:
    """Why ``key`` cannot be used, or None (also when there is none)."""
    if key is not None and (not key.strip() or len(key) > MAX_KEY_LENGTH or "\x00" in key):
        return _("%(name)s must be 1 to %(max)s characters, not all spaces.") % {"name": name, "max": MAX_KEY_LENGTH}
    return None


def storable(value):
    """``value`` with every NUL character replaced (PostgreSQL's jsonb cannot hold one; an error
    message may echo what the client sent)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    return value


def request_hash(method: str, path: str, data) -> str:
    """A fingerprint of the request: a retry has the same one, another request with the key does not."""
    if hasattr(data, "lists"):  # a form body (QueryDict): keep every value
        data = dict(data.lists())
    body = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=True)
    return hashlib.sha256(f"{method}\n{path}\n{body}".encode()).hexdigest()


class _Watched:
    """``with _Watched() as watched:`` whether the statements run inside on the default connection only read:
    each a SELECT (a locking one included) that succeeded; a savepoint counts as a write, and so do a notification
    and an action scheduled for the commit (an e-mail). A write queued by ``writes.together`` and dropped unsent
    was never made."""

    def __init__(self):
        self.wrote = False
        self._wrapper = None
        self._callbacks = 0

    def _watch(self, execute, sql, params, many, context):
        # Statements sent together come as one text, joined by "; " (values are parameters, never in the text).
        # A SELECT of pg_notify tells every live page at the COMMIT (scoring/changes.py): a write, for this.
        if any(part.lstrip()[:6].upper() != "SELECT" for part in sql.split(";")) or "pg_notify" in sql:
            self.wrote = True
        try:
            return execute(sql, params, many, context)
        except Exception:
            self.wrote = True  # a failed statement: the transaction may be aborted, and only a rollback ends it
            raise

    def read_only(self, refusal: BaseException) -> bool:
        """Whether the transaction, refused by ``refusal``, may end by COMMIT with nothing changed."""
        if self.wrote or len(connection.run_on_commit) > self._callbacks:  # a COMMIT would run what it scheduled
            return False
        cause, seen = refusal, set()
        while cause is not None and id(cause) not in seen:  # a database error on the way (a pipeline's comes late)
            if isinstance(cause, DatabaseError):
                return False
            seen.add(id(cause))
            cause = cause.__cause__ or cause.__context__
        if connection.vendor != "postgresql":
            return True
        # An error met and swallowed on the way leaves PostgreSQL's transaction aborted: only a rollback ends it.
        return connection.connection is not None and connection.connection.info.transaction_status.name != "INERROR"

    def __enter__(self):
        self._callbacks = len(connection.run_on_commit)
        self._wrapper = connection.execute_wrapper(self._watch)
        self._wrapper.__enter__()
        return self

    def __exit__(self, *exc):
        return self._wrapper.__exit__(*exc)


class _DoNotStore(Exception):
    def __init__(self, answer):
        self.answer = answer


def once[Answer](
    *,
    user,
    key: str,
    method: str,
    path: str,
    fingerprint: str,
    perform: Callable[[], Answer],
    keep: Callable[[Answer], tuple[int, dict]],
    on_error: Callable[[Exception], Answer],
    replay: Callable[[IdempotentRequest], Answer],
) -> Answer:
    """Run ``perform`` once per (user, key); a repeat gets ``replay(stored row)``.

    ``keep`` turns an answer into the (status, JSON body) stored for replays (the body, or its JSON text as a
    ``writes.JSONText``), a body with no NUL
    character in it (``storable`` replaces them; a caller that knows there is none skips the walk); ``on_error``
    turns a refusal raised by ``perform`` into its answer (stored and replayed too).
    ``replay`` compares ``stored.request_hash`` with ``fingerprint`` itself.
    """

    def store(status: int, body: dict) -> None:
        writes.insert(
            IdempotentRequest(
                user=user,
                key=key,
                method=method,
                path=path[:500],
                request_hash=fingerprint,
                response_status=status,
                response_body=body,
            )
        )

    def replay_stored(error: IntegrityError) -> Answer:
        stored = IdempotentRequest.objects.filter(user=user, key=key).first()
        if stored is None:
            raise error  # not a copy of this request: a server error, and the key stays free
        return replay(stored)

    # No look-up first: a retry is rare, so the usual request pays one insert, and a
    # retry runs, fails on the key's unique constraint, rolls back and replays.
    refusal = None
    try:
        with transaction.atomic():
            with _Watched() as watched:
                try:
                    answer = perform()
                except Exception as error:
                    if not watched.read_only(error):
                        raise
                    refusal = error
            if refusal is not None:
                # It read (and locked) but wrote nothing: ended by COMMIT, which undoes no more than a ROLLBACK
                # would, and keeps the connection's prepared statements (psycopg drops them all at a ROLLBACK).
                # Every second phone's copy on a club night is such a refusal.
                transaction.set_rollback(False)
            else:
                status, body = keep(answer)
                if status >= 500:
                    raise _DoNotStore(answer)
                # A concurrent copy of this request that got here first makes this insert
                # wait for its commit, then fail: this copy's write rolls back and it replays.
                store(status, body)
        if refusal is None:
            return answer
    except _DoNotStore as rollback:
        return rollback.answer
    except IntegrityError as error:
        return replay_stored(error)
    except Exception as error:  # a refusal: the write rolled back; store the answer and replay it
        refusal = error
    answer = on_error(refusal)
    status, body = keep(answer)
    if status >= 500:
        return answer
    try:
        if connection.in_atomic_block:  # a caller's transaction: a savepoint keeps a failed insert from breaking it
            with transaction.atomic():
                store(status, body)
        else:  # one INSERT is its own transaction: no BEGIN and COMMIT round trips (every second phone's 409)
            store(status, body)
    except IntegrityError as error:
        return replay_stored(error)
    return answer
