"""Logging: an expected refusal (403, 404, 409) is one INFO line without a traceback, not a warning.

Django's ``django.request`` logger reports every 4xx answer as a warning, the 403 of a
``PermissionDenied`` with its whole traceback, and DRF's refusals (a 409 when two phones record
the same hand) pass through it too. These answers are the app working as meant: a club night's
thousands of them would bury the errors worth reading. Shown with ``LOG_LEVEL=INFO`` (or DEBUG on).
"""

from __future__ import annotations

import logging

EXPECTED_REFUSALS = frozenset({403, 404, 409})


class ExpectedRefusals(logging.Filter):
    """Turns the record of an expected refusal into one INFO line: no traceback, no stack."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) in EXPECTED_REFUSALS:
            record.exc_info = None
            record.exc_text = None
            record.stack_info = None
            record.levelno = logging.INFO
            record.levelname = logging.getLevelName(logging.INFO)
        return True
