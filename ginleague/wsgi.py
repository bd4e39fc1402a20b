"""The WSGI application (for a WSGI server; `make run` serves ginleague.asgi)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402 (the settings module is named first)

from ginleague.checks import log_start_up_problems  # noqa: E402

application = get_wsgi_application()
log_start_up_problems()
