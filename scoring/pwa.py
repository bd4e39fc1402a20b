"""The installable app: the web app manifest, the service worker (served from the site root) and the waiting page."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from ginleague.i18n import catalog_url
from scoring.engine.rules import rule_words
from scoring.scoresheet import hand_row_words_json

THEME_COLOUR = "#166534"

# What the service worker keeps from its first run: enough to open any cached page offline and score on it.
SHELL_STATIC = [
    "css/site.css",
    "js/i18n-fallback.js",
    "js/site.js",
    "js/wall.js",
    # The offline app: its entry point and every module it imports (static/js/offline/main.js).
    "js/offline/main.js",
    "js/offline/common.js",
    "js/offline/kept.js",
    "js/offline/scorer.js",
    "js/offline/queue.js",
    "js/offline/sheet.js",
    "js/offline/sync.js",
    "js/offline/boards.js",
    "js/engine.js",
    "django_htmx/htmx-2.min.js",
    "icons/icon-192.png",
    "icons/icon-512.png",
]


@require_safe
def manifest(request):
    """The web app manifest: "Add to home screen" opens the home page full screen."""
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {"src": static("icons/maskable-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
    ]
    body = {
        "name": "GinLeague",
        "short_name": "GinLeague",
        "description": _("Score gin rummy at the table, with or without a network."),
        "id": reverse("home"),
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#faf7f0",
        "theme_color": THEME_COLOUR,
        "icons": icons,
    }
    response = JsonResponse(body, content_type="application/manifest+json")
    response["Cache-Control"] = "no-cache"
    return response


@cache
def _worker_source() -> str:
    path = finders.find("js/sw.js")
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _shell_urls() -> list[str]:
    urls = []
    for name in SHELL_STATIC:
        try:
            urls.append(static(name))
        except ValueError:  # not collected (a manifest storage without this file): the worker fetches it later
            continue
    return [*urls, reverse("offline_waiting"), reverse("manifest")]


def _shell_stamps() -> str:
    """When each shell file last changed: unhashed names (`make run`) still get a new worker on a change."""
    stamps = []
    for name in SHELL_STATIC:
        path = finders.find(name)
        if path:
            stat = os.stat(path)
            stamps.append(f"{name}:{stat.st_mtime_ns}:{stat.st_size}")
    return "\n".join(stamps)


@require_safe
@never_cache
def service_worker(request):
    """The service worker, from the site root so that its scope is every page.

    Its cache name carries a hash of its own source, the shell's URLs and their files' times,
    so a new release replaces the old cache. The shell includes the JavaScript catalog of the language
    this request is answered in (ginleague/i18n.py). ``hashed``: the static files have hashed names (collected,
    `make run` and production), so the copies the page has just downloaded are the right ones and the
    worker keeps those instead of downloading the shell a second time.
    """
    shell = _shell_urls()
    source = _worker_source()
    version = hashlib.sha256((source + "\n".join(shell) + _shell_stamps()).encode()).hexdigest()[:12]
    hashed = isinstance(staticfiles_storage, ManifestFilesMixin)
    # The script strings of the language this browser gets (its account's, its footer's or its own), kept
    # with the shell so that offline pages speak it. Not in the version: switching language keeps the cache
    # (the worker is still replaced, its text having changed, and keeps the new language's catalog too).
    shell = [*shell, catalog_url()]
    config = json.dumps({"version": version, "shell": shell, "offline": reverse("offline_waiting"), "hashed": hashed})
    response = HttpResponse(f"self.GINLEAGUE = {config};\n{source}", content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache, no-store, must-revalidate"
    return response


@require_safe
def offline_waiting(request):
    """What this phone holds that the server has not yet stored (filled in by static/js/offline/)."""
    # offline_app: this page is the offline app's, signed in or not (base.html has site.js load it here always).
    context = {"hand_words": hand_row_words_json(), "rule_words": json.dumps(rule_words()), "offline_app": True}
    return render(request, "scoring/offline_waiting.html", context)
