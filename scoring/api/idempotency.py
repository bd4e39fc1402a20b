"""Idempotency-Key for the API: a retried write (a phone on a flaky connection) happens once.

The store and its guarantees are scoring/idempotency.py's (shared with the
scoresheet's record form). Here: the header, its check, and DRF responses. A
retry with the same key and the same body gets the stored response back (with
``Idempotent-Replayed: true``); the same key with a different body is refused
with 422.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.utils.translation import gettext as _
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from scoring import idempotency
from scoring.api.rendering import Rendered
from scoring.idempotency import MAX_KEY_LENGTH
from scoring.models import IdempotentRequest
from scoring.writes import JSONText

HEADER = "Idempotency-Key"
REPLAY_HEADER = "Idempotent-Replayed"
__all__ = ["HEADER", "MAX_KEY_LENGTH", "REPLAY_HEADER", "idempotent", "key_problem", "problem"]


def problem(status: int, field: str | None, message: str, hand: int | None = None) -> Response:
    return Response({"field": field, "message": message, "hand": hand}, status=status)


def key_problem(request) -> str | None:
    """Why the request's Idempotency-Key cannot be used, or None (also when there is none)."""
    return idempotency.key_problem(request.headers.get(HEADER), HEADER)


def _replay(stored: IdempotentRequest, request_hash: str) -> Response:
    if stored.request_hash != request_hash:
        return problem(
            422,
            HEADER,
            _("This %(header)s was already used for a different request; use a new key for a new request.")
            % {"header": HEADER},
        )
    body = None if stored.response_status == 204 else stored.response_body
    response = Response(body, status=stored.response_status)
    response[REPLAY_HEADER] = "true"
    return response


def _kept(response: Response) -> tuple[int, dict | JSONText]:
    """The answer as stored for a replay: its JSON as the response sends it (a ``Rendered`` body's, written once)."""
    if response.data is None:
        return response.status_code, {}
    data = response.data
    rendered = data.json if type(data) is Rendered else JSONRenderer().render(data)
    # JSON writes a NUL as \u0000: only an answer that holds one needs the store's walk through it.
    if b"\\u0000" in rendered:
        return response.status_code, idempotency.storable(json.loads(rendered))
    return response.status_code, JSONText(rendered.decode())


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
    request_hash = idempotency.request_hash(request.method, request.path, request.data)
    return idempotency.once(
        user=request.user,
        key=key,
        method=request.method,
        path=request.path,
        fingerprint=request_hash,
        perform=perform,
        keep=_kept,
        on_error=on_error,
        replay=lambda stored: _replay(stored, request_hash),
    )
