"""Idempotency-Key: a retried write (a phone on a flaky connection) happens once.

The first request with a key stores an ``IdempotentRequest`` row holding its
response, inserted in the same transaction as the write itself (one insert,
after the write). A retry with the same key and the same body gets the stored
response back (with ``Idempotent-Replayed: true``); the same key with a
different body is refused with 422. Two copies of one request arriving at once
are serialised by the unique (user, key) constraint: the second one's insert
waits for the first to commit, then fails, and its whole transaction (its copy
of the write included) rolls back and it replays the first's response, so the
write is never made twice. A refusal is stored in a transaction of its own,
after the refused write has rolled back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from django.db import IntegrityError, transaction
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from scoring.models import IdempotentRequest

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = IdempotentRequest._meta.get_field("key").max_length
REPLAY_HEADER = "Idempotent-Replayed"


def problem(status: int, field: str | None, message: str, hand: int | None = None) -> Response:
    return Response({"field": field, "message": message, "hand": hand}, status=status)


def key_problem(request) -> str | None:
    """Why the request's Idempotency-Key cannot be used, or None (also when there is none)."""
    key = request.headers.get(HEADER)
    if key is not None and (not key.strip() or len(key) > MAX_KEY_LENGTH or "\x00" in key):
        return f"{HEADER} must be 1 to {MAX_KEY_LENGTH} characters, not all spaces."
    return None


def _storable(value):
    """``value`` with every NUL character replaced (PostgreSQL's jsonb cannot hold one; an error
    message may echo what the client sent)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_storable(key): _storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_storable(item) for item in value]
    return value


def _request_hash(request) -> str:
    data = request.data
    if hasattr(data, "lists"):  # a form body (QueryDict): keep every value
        data = dict(data.lists())
    body = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=True)
    # The full path: a query string (e.g. DELETE's ``reason``) is part of what was asked.
    return hashlib.sha256(f"{request.method}\n{request.get_full_path()}\n{body}".encode()).hexdigest()


def _replay(stored: IdempotentRequest, request_hash: str) -> Response:
    if stored.request_hash != request_hash:
        return problem(
            422,
            HEADER,
            f"This {HEADER} was already used for a different request; use a new key for a new request.",
        )
    body = None if stored.response_status == 204 else stored.response_body
    response = Response(body, status=stored.response_status)
    response[REPLAY_HEADER] = "true"
    return response


class _DoNotStore(Exception):
    def __init__(self, response: Response):
        self.response = response


def idempotent(request, perform: Callable[[], Response], on_error: Callable[[Exception], Response]) -> Response:
    """Run ``perform`` once per (user, Idempotency-Key); without the header, just run it.

    ``on_error`` turns a refusal raised by ``perform`` into its response (the
    view's exception handler), so refusals are stored and replayed too. A
    server error is not stored: its transaction rolls back and the key stays free.
    """
    key = request.headers.get(HEADER)
    if key is None:
        return perform()
    bad_key = key_problem(request)
    if bad_key:
        return problem(400, HEADER, bad_key)
    request_hash = _request_hash(request)
    user = request.user
    # No look-up first: a retry is rare, so the usual request pays one insert, and a
    # retry runs, fails on the key's unique constraint, rolls back and replays.

    def store(response: Response) -> None:
        body = {} if response.data is None else json.loads(JSONRenderer().render(response.data))
        IdempotentRequest.objects.create(
            user=user,
            key=key,
            method=request.method,
            path=request.path[:500],
            request_hash=request_hash,
            response_status=response.status_code,
            response_body=_storable(body),
        )

    try:
        with transaction.atomic():
            response = perform()
            if response.status_code >= 500:
                raise _DoNotStore(response)
            # A concurrent copy of this request that got here first makes this insert
            # wait for its commit, then fail: this copy's write rolls back and it replays.
            store(response)
        return response
    except _DoNotStore as rollback:
        return rollback.response
    except IntegrityError:
        stored = IdempotentRequest.objects.filter(user=user, key=key).first()
        if stored is None:
            raise  # not a copy of this request: a server error, and the key stays free
        return _replay(stored, request_hash)
    except Exception as error:  # a refusal: the write rolled back; store the answer and replay it
        response = on_error(error)
    if response.status_code >= 500:
        return response
    try:
        with transaction.atomic():
            store(response)
    except IntegrityError:
        stored = IdempotentRequest.objects.filter(user=user, key=key).first()
        if stored is None:
            raise
        return _replay(stored, request_hash)
    return response
