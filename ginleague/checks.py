"""Start-up checks of a deployment: what the server needs before it can answer a page.

``static_files_collected`` is a Django system check (``manage.py check``, ``migrate``) and is also
run when the served application loads (ginleague/asgi.py, wsgi.py), since uvicorn and gunicorn run
no system checks: a missing collectstatic is said once at start-up, not found as a 500 on every page.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.checks import Warning, register

logger = logging.getLogger(__name__)


def missing_static_manifest() -> Path | None:
    """The collected static files' manifest when the site serves hashed names and it is not there, else None."""
    if not isinstance(staticfiles_storage, ManifestFilesMixin):
        return None  # served from static/ as it is (local use): nothing to collect
    if staticfiles_storage.manifest_storage.exists(staticfiles_storage.manifest_name):
        return None
    return Path(settings.STATIC_ROOT) / staticfiles_storage.manifest_name


# Not tagged "staticfiles": collectstatic, which cures it, runs that tag's checks before it starts.
@register()
def static_files_collected(app_configs=None, **kwargs) -> list[Warning]:
    manifest = missing_static_manifest()
    if manifest is None:
        return []
    return [
        Warning(
            f"The static files are not collected ({manifest} is missing): with a real host in ALLOWED_HOSTS "
            "(or STATIC_COLLECTED) the site serves the collected, hashed files, so every page would fail (500) "
            "without them.",
            hint="Run `.venv/bin/python manage.py collectstatic --noinput` (README: Running in production), "
            "or set STATIC_ROOT to where they were collected.",
            id="ginleague.W001",
        )
    ]


def log_start_up_problems() -> None:
    """What the system checks above would say, in the server's log as it starts."""
    for problem in static_files_collected():
        logger.error("%s %s", problem.msg, problem.hint)
