"""The API's request parser: JSON only, refused with a clear 400/413 before a deep or huge body can crash anything.

Python's JSON decoder and every recursive walk over its result (``find_nul``, the
serializers) hit the recursion limit on bodies nested a thousand deep, so depth
and size are checked on the raw text first. No real body comes near the limits:
a game record is five levels deep.
"""

from __future__ import annotations

import io
import re
from itertools import accumulate

from django.conf import settings
from rest_framework import parsers, status
from rest_framework.exceptions import APIException, ParseError

MAX_DEPTH = 32

# A JSON string (brackets inside one do not nest), and runs of anything that is not a bracket.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def max_body_bytes() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440


def too_deep(text: str) -> bool:
    """Whether the arrays and objects in a JSON text nest more than MAX_DEPTH deep (brackets in strings ignored)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if brackets.count("[") + brackets.count("{") <= MAX_DEPTH:  # the cheap answer for every ordinary body
        return False
    return max(accumulate(_STEP[bracket] for bracket in brackets)) > MAX_DEPTH


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser behind a size and a nesting limit."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"The request body is larger than {limit:,} bytes.")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(f"JSON parse error - the body is not {encoding} text.") from error
        if too_deep(text):
            raise ParseError(f"JSON parse error - arrays and objects may nest at most {MAX_DEPTH} deep.")
        return super().parse(io.BytesIO(raw), media_type, parser_context)
