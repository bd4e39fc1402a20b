"""Whole numbers and ids read from what people send (query strings, forms, JSON): the one parser.

``str.isdigit()`` accepts "²" (and other digits ``int()`` refuses), and ``int()`` reads numbers no column
holds (a table number above 32767 is "smallint out of range" on PostgreSQL): both were 500s. Every page,
API view and service that reads a number or an id people typed or sent asks this module. A refusal
(``NumberRefused``) names the field: it is a ValidationError (``{field: [message]}``) for the code that
puts refusals on a form or in the API's answer, and a BadRequest for the rest (Django answers 400, the
error page or the API's JSON saying the message, ginleague/errors.py).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import BadRequest, ValidationError
from django.utils.translation import gettext as _

SMALLINT = 32767  # PositiveSmallIntegerField / SmallIntegerField
INTEGER = 2147483647  # IntegerField, PositiveIntegerField
BIGINT = 9223372036854775807  # BigAutoField: every id


class NumberRefused(ValidationError, BadRequest):
    """A number or id that cannot be read, or that its column cannot hold; ``field`` names it."""

    def __init__(self, *, field: str, message: str):
        super().__init__({field: [message]})
        self.field, self.text = field, message


def _read(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip() if value is not None else ""
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    if not digits or not (digits.isascii() and digits.isdigit()):  # "²".isdigit() is True; int("²") fails
        return None
    return -int(digits) if negative else int(digits)


def whole_number(value: Any, *, field: str, label: str, low: int = 0, high: int = INTEGER) -> int:
    """``value`` (text or int) as an int from ``low`` to ``high``; NumberRefused naming ``field`` (and saying
    ``label``, the box's name in the reader's language) otherwise."""
    number = _read(value)
    if number is None or not low <= number <= high:
        message = _("A whole number from %(low)s to %(high)s.") % {"low": low, "high": high}
        raise NumberRefused(field=field, message=_("%(label)s: %(message)s") % {"label": label, "message": message})
    return number


def an_id(value: Any, *, field: str, label: str) -> int:
    """A row's id (1 and up, as a BigAutoField holds it); NumberRefused naming ``field`` otherwise."""
    return whole_number(value, field=field, label=label, low=1, high=BIGINT)


def whole_or_none(value: Any, *, low: int = 0, high: int = INTEGER) -> int | None:
    """``value`` as an int from ``low`` to ``high``, or None: for values that fall back quietly (a page
    number, a round to show, a figure a note compares with)."""
    number = _read(value)
    return number if number is not None and low <= number <= high else None
