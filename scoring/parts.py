"""What live parts render, cached by what they show: one render per part per change, whatever the screens.

A live part (a season's standings, a wall screen's board) is re-fetched by every screen that shows it
on every change of its season (static/js/wall.js). Its HTML is the same for every screen that shows the
same versions in the same language and time zone to the same kind of viewer, so it is rendered once and
kept in Django's "parts" cache (settings.CACHES, in each process's memory and bounded) under a key made
of:

* the part's name and the versions it shows (``scoring.changes``: they move with every committed
  change, so a part that changed has a new key and is never served stale; an old key is simply never
  asked for again and ages out);
* the viewer's class (``anyone`` unless the part shows more to some viewers, e.g. an organiser's
  buttons): whatever decides who sees what, so no one is shown a part drawn for someone else;
* the active language and time zone.

Only parts that carry nothing of the viewer beyond that class are cached: no CSRF token (a part is
rendered here without its request, so a ``{% csrf_token %}`` in it would render nothing), no form key,
no "now" (a timed round's clock is drawn from the server's time: a board showing one is not cached).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from django.core.cache import caches
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe

CACHE = "parts"  # the alias in settings.CACHES
ANYONE = "anyone"  # the viewer class of a part that shows the same to everyone who may see it


def part_key(part: str, versions: Iterable[object], viewer: str = ANYONE) -> str:
    """The cache key of ``part`` at ``versions`` for ``viewer``'s class, in the active language and zone."""
    words = [part, viewer, translation.get_language() or "", timezone.get_current_timezone_name()]
    words += [str(version) for version in versions]
    return "part:" + hashlib.sha256("\x1f".join(words).encode()).hexdigest()


def rendered(part: str, *, versions: Iterable[object], render: Callable[[], str], viewer: str = ANYONE) -> SafeString:
    """The HTML of ``part``: ``render()``'s, from the cache when a screen already drew it at these versions."""
    cache = caches[CACHE]
    key = part_key(part, versions, viewer)
    html = cache.get(key)
    if html is None:
        html = str(render())
        cache.set(key, html)
    return mark_safe(html)  # noqa: S308 (our own template's output, escaped when it was rendered)
