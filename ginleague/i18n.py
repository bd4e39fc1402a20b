"""The JavaScript catalog: the site's script strings in one language, at a URL that names it.

The page loads it with a plain <script> before its own scripts (templates/_js_catalog.html), so
``gettext``, ``ngettext``, ``interpolate`` and ``get_format`` exist when they run; static/js/i18n-fallback.js
stands in (English) when it could not load. The URL names the language and carries a version (``?v=``,
a hash of the compiled catalogs), so a browser keeps it for good and the service worker keeps the
chosen language's copy for offline pages (scoring/pwa.py puts it in the app shell).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import django
from django.conf import settings
from django.http import Http404
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog


@cache
def catalog_version() -> str:
    """A hash of every compiled djangojs catalog of the project and Django's version: a new one, a new URL."""
    digest = hashlib.sha256(django.get_version().encode())
    for locale_path in settings.LOCALE_PATHS:
        for mo in sorted(Path(locale_path).glob("*/LC_MESSAGES/djangojs.mo")):
            digest.update(str(mo.relative_to(locale_path)).encode())
            digest.update(mo.read_bytes())
    return digest.hexdigest()[:12]


def catalog_url(language: str | None = None) -> str:
    """The catalog of ``language`` (the active one when not given), as the pages and the service worker load it."""
    code = language or translation.get_language() or settings.LANGUAGE_CODE
    if code not in dict(settings.LANGUAGES):
        try:
            code = translation.get_supported_language_variant(code)
        except LookupError:
            code = settings.LANGUAGE_CODE
    return f"{reverse('javascript_catalog', args=[code])}?v={catalog_version()}"


PROJECT_APPS = ["players", "scoring"]


@require_safe
@gzip_page  # a script on every page's first load, like the static ones (which whitenoise sends gzipped)
def javascript_catalog(request, language: str):
    """Django's JavaScriptCatalog of the project's own script strings (locale/'s djangojs) in ``language``, not the
    request's. Not every installed app's: the admin's date and selector strings, which no page of the site uses,
    were a third of the English catalog sent on every first load, and a sixth of the German one (issue 40)."""
    if language not in dict(settings.LANGUAGES):
        raise Http404(_("No such language."))
    with translation.override(language):
        # The project's apps (whose own folders hold no catalogs) instead of all: LOCALE_PATHS is read either way.
        response = JavaScriptCatalog.as_view(packages=PROJECT_APPS)(request)
    # The versioned URL never changes: browsers keep it. Any other (an old page's) is checked each time.
    current = request.GET.get("v") == catalog_version()
    response["Cache-Control"] = "public, max-age=31536000, immutable" if current else "no-cache"
    return response
