"""Context processor: the names base.html asks of every page, with the value of a page that sets none.

A name missing from a template's context costs Django's engine three failed look-ups and an exception each
time it is asked (~38k instructions); base.html asks ``offline_app`` on every page, and only the offline
app's waiting page (scoring/pwa.py) sets it (issue 40). A view's own context still wins over these.
"""

from __future__ import annotations

from types import MappingProxyType

DEFAULTS = MappingProxyType({"offline_app": False})


def page_defaults(request) -> MappingProxyType:
    return DEFAULTS
