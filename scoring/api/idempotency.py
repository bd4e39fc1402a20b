"""Idempotency-Key: a retried write (a phone on a flaky connection) happens once.

The first request with a key claims it by inserting an ``IdempotentRequest``
row in the same transaction as the write itself, and stores the response
there. A retry with the same key and the same body gets the stored response
back (with ``Idempotent-Replayed: true``); the same key with a different body
is refused with 422. Two copies of one request arriving at once are
serialised by the unique (user, key) constraint: the second waits for the
first to commit, then replays its response, so the write is never made twice.
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
    return hashlib.sha256(f"{request.method}\n{request.path}\n{body}".encode()).hexdigest()


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
    stored = IdempotentRequest.objects.filter(user=user, key=key).first()
    if stored is not None:
        return _replay(stored, request_hash)
    try:
        with transaction.atomic():
            # Claim the key first: a concurrent copy of this request blocks here
            # until we commit, then fails on the unique constraint and replays.
            claim = IdempotentRequest.objects.create(
                user=user,
                key=key,
                method=request.method,
                path=request.path[:500],
                request_hash=request_hash,
                response_status=0,
                response_body={},
            )
            try:
                response = perform()
            except Exception as error:  # refusals become stored (and replayed) responses
                response = on_error(error)
            if response.status_code >= 500:
                raise _DoNotStore(response)
            claim.response_status = response.status_code
            body = {} if response.data is None else json.loads(JSONRenderer().render(response.data))
            claim.response_body = _storable(body)
            claim.save(update_fields=["response_status", "response_body"])
    except _DoNotStore as rollback:
        return rollback.response
    except IntegrityError:
        stored = IdempotentRequest.objects.filter(user=user, key=key).first()
        if stored is None:
            raise
        return _replay(stored, request_hash)
    return response
