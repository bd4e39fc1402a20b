"""Middleware that gzips HTML pages for browsers that accept it."""

from __future__ import annotations

from django.middleware.gzip import GZipMiddleware


class GZipPagesMiddleware(GZipMiddleware):
    """Django's GZipMiddleware, which pads each gzip header with random bytes against BREACH (and the
    CSRF token in a page is masked anew in every answer), for HTML pages and htmx's fragments only.

    A page is about a quarter of its size gzipped: with the static files (whitenoise sends their gzip
    copies, above this) a phone's first load of a scoresheet stays well under 60 KB. Anything else is
    sent as it is: API answers and exports go to clients of every kind (test harnesses that read the
    body raw among them), and an event stream's events are a few bytes each that must leave at once;
    wrapped in the compressor, a wall screen's stream was no longer closed when its viewer left.
    """

    def process_response(self, request, response):
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        return super().process_response(request, response)
