"""An API answer written as JSON once: the body and the bytes DRF's JSONRenderer writes for it, kept together.

A hand POST's answer (the hand and the whole game) was written out four times: rendered and read back for
the Idempotency-Key's store, written again by the database adapter into the stored row, and rendered once
more for the response (about a sixth of the request, issue 40). A ``Rendered`` body is written once, by
DRF's own renderer, and both the store and the response send those bytes.
"""

from __future__ import annotations

from rest_framework import renderers
from rest_framework.settings import api_settings


class Rendered(dict):
    """A response body (a dict, as a view returns it) with ``json``, the bytes JSONRenderer writes for it.

    It stays a dict for everything that reads the body; only its JSON is not written again."""

    __slots__ = ("json",)

    def __init__(self, data: dict):
        super().__init__(data)
        self.json = renderers.JSONRenderer().render(data)


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer, sending a ``Rendered`` body's bytes as they are (unless indented output is asked for:
    ``Accept: application/json; indent=4``, or the browsable API's own view of the answer)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if type(data) is Rendered and self.get_indent(accepted_media_type, renderer_context or {}) is None:
            return data.json
        return super().render(data, accepted_media_type, renderer_context)


# The API's renderers, with this JSONRenderer in place of DRF's: for the views that answer with Rendered bodies.
RENDERERS = [
    JSONRenderer if renderer is renderers.JSONRenderer else renderer
    for renderer in api_settings.DEFAULT_RENDERER_CLASSES
]
