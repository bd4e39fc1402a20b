"""The API's request parser: JSON only, refused with a clear 400/413 before a deep or huge body can crash anything.

Python's JSON decoder and every recursive walk over its result (``find_nul``, the
serializers) hit the recursion limit on bodies nested a thousand deep, so depth
and size are checked on the raw text first. No real body comes near the limits:
a game record is five levels deep.

Two things Python's decoder accepts and nothing after it can handle are refused
here too, naming the key: a key given twice in one object (the decoder would keep
the last silently), and a lone UTF-16 surrogate (``"\\ud800"``: no UTF-8 text, so
storing or even echoing it fails).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import parsers, status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.utils import json

from scoring.api.json_text import find_lone_surrogate, shown

MAX_DEPTH = 32

# A JSON string (brackets inside one do not nest), and runs of anything that is not a bracket.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# A \uD800-\uDFFF escape: the only way a surrogate gets into decoded JSON (pairs are joined by the decoder).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is too large.")
    default_code = "too_large"


class BadJSONText(ParseError):
    """A body that decodes but cannot be taken as it is; ``field`` names the key (a path: ``hands[2].ending``)."""

    def __init__(self, field: str, message: str):
        super().__init__(parse_error(message))
        self.field = field


def parse_error(problem: str) -> str:
    """DRF's words for a body that is not JSON, with what is wrong with it."""
    return _("JSON parse error - %(problem)s") % {"problem": problem}


def unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An object's keys and values, refused if one key is given twice (``object_pairs_hook``)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        for key, _value in pairs:
            if key in seen:
                message = _('the key "%(key)s" is given twice in one object.') % {"key": shown(key)}
                raise BadJSONText(shown(key), message)
            seen.add(key)
    return data


def max_body_bytes() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440


def too_deep(text: str) -> bool:
    """Whether the arrays and objects in a JSON text nest more than MAX_DEPTH deep (brackets in strings ignored)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if brackets.count("[") + brackets.count("{") <= MAX_DEPTH:  # the cheap answer for every ordinary body
        return False
    return max(accumulate(_STEP[bracket] for bracket in brackets)) > MAX_DEPTH


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser behind a size and a nesting limit, refusing duplicate keys and lone surrogates."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            size = number_format(limit, force_grouping=True)
            raise RequestTooLarge(_("The request body is larger than %(size)s bytes.") % {"size": size})
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(parse_error(_("the body is not %(encoding)s text.") % {"encoding": encoding})) from error
        if too_deep(text):
            nesting = _("arrays and objects may nest at most %(depth)s deep.") % {"depth": MAX_DEPTH}
            raise ParseError(parse_error(nesting))
        try:
            data = json.loads(text, object_pairs_hook=unique_keys)
        except ValueError as error:
            raise ParseError(parse_error(str(error))) from error  # the decoder's own (English) words
        if _SURROGATE_ESCAPE.search(text):  # only then can a decoded string hold one
            where = find_lone_surrogate(data)
            if where is not None:
                message = _("%(field)s: the text holds a lone UTF-16 surrogate (a %(escape)s escape without its pair).")
                raise BadJSONText(where, message % {"field": where, "escape": "\\uD800-\\uDFFF"})
        return data
