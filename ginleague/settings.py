"""GinLeague settings: one module, every deployment difference from the environment.

Local use needs nothing set: DEBUG is off unless asked for (`DEBUG=true`,
`make dev`), the SQLite file sits in the project, a secret key is generated
on first start and kept beside the database, and the app answers on
127.0.0.1/localhost over plain http. Naming a real host in ALLOWED_HOSTS
(with DEBUG off) turns on the production defaults: HTTPS redirect, HSTS,
secure cookies and collected, hashed static files.
"""

import os
import warnings
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name, "")
    return [item.strip() for item in value.split(",") if item.strip()] or default


def database_pool_options() -> dict:
    """PostgreSQL connections kept open per server process (psycopg's pool).

    A request borrows a connection and hands it back, instead of opening a new one
    (a new server backend with cold caches) per request. ``check`` tests a connection
    before lending it, so one the database dropped (a failover, a restart) is replaced
    instead of failing a request. DATABASE_POOL=off turns pooling off, and so does a
    CONN_MAX_AGE (Django's persistent connections, which a pool replaces).
    """
    pooled = os.environ.get("DATABASE_POOL", "on").lower() not in ("off", "false", "0", "no")
    if not pooled or int(os.environ.get("CONN_MAX_AGE", "0")):
        return {}
    from ginleague.pool import check_pooled_connection

    return {
        "pool": {
            "min_size": 1,
            "max_size": int(os.environ.get("DATABASE_POOL_MAX", "8")),
            "timeout": 10,
            "check": check_pooled_connection,
        }
    }


def prepared_statements_options() -> dict:
    """PostgreSQL keeps the plan of a statement each connection runs again and again (psycopg prepares it
    from its fifth run), instead of planning it at every request.

    At 100,000 games the profile page's nine reads took 12.6 ms to plan and 16.7 ms to run: the plans of
    reads that join seasons, clubs and players are costly to make, and the same for every player. The
    values then travel apart from the statement (server-side binding), which preparing needs. Django
    leaves both off for connection poolers in front of PostgreSQL that cannot keep a connection's
    prepared statements (PgBouncer in transaction mode before 1.21): DATABASE_PREPARED_STATEMENTS=off
    for those; the pool of each server process here keeps its connections, and their statements, itself.
    """
    if not env_bool("DATABASE_PREPARED_STATEMENTS", True):
        return {}
    return {"server_side_binding": True, "prepare_threshold": 5}


def database_from_url(url: str) -> dict:
    """postgres://user:password@host:port/name or sqlite:///path -> DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme in ("postgres", "postgresql", "pgsql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")) or "ginleague",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            # 0 by default: under ASGI (the wall screens' uvicorn workers) persistent
            # connections are not reused across requests and pile up; Django's docs
            # say to disable them there, and the pool below reuses connections instead.
            "CONN_MAX_AGE": int(os.environ.get("CONN_MAX_AGE", "0")),
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {**database_pool_options(), **prepared_statements_options()},
            "TEST": {"NAME": os.environ.get("TEST_DATABASE_NAME") or None},
        }
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path)
        name = path[1:] if path.startswith("//") else path or ":memory:"
        return {"ENGINE": "ginleague.sqlite3", "NAME": name}  # Django's, statements converted once (its docstring)
    raise ImproperlyConfigured(f"DATABASE_URL must start with postgres:// or sqlite://, not {url!r}")


def secret_key_from_file(path: Path) -> str:
    """The key kept in ``path``; on first start a new random one is written there (owner-only).

    Created with O_EXCL so that several workers starting at once agree on one key.
    """
    from django.core.management.utils import get_random_secret_key

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as file:
            file.write(get_random_secret_key())
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"{path} is empty: delete it to have a new secret key generated, or set SECRET_KEY")
    return key


# Off unless asked for: a traceback page shows paths and settings to anyone.
DEBUG = env_bool("DEBUG", False)

LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", LOCAL_HOSTS)
# Served under a real name: HTTPS, HSTS, secure cookies and collected static files.
SERVED_PUBLICLY = not DEBUG and any(host not in LOCAL_HOSTS for host in ALLOWED_HOSTS)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
CSRF_FAILURE_VIEW = "ginleague.errors.csrf_failure"  # the site's page, not Django's developer one

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "players",
    "scoring",
    "ginleague.apps.GinLeagueConfig",  # the deployment's system checks
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # HTML pages gzipped for browsers that accept it (static files are, above: whitenoise).
    "ginleague.compress.GZipPagesMiddleware",
    "ginleague.sessions.SessionMiddleware",  # Django's, but a stale cookie is never deleted (its docstring)
    # The language of the answer: the chosen one (cookie), else the browser's (Accept-Language).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # A late answer must not undo the token a sign-in has just rotated (see the function).
    "ginleague.csrf.keep_the_newest_csrf_cookie",
    "django.middleware.csrf.CsrfViewMiddleware",
    "ginleague.auth.AuthenticationMiddleware",  # Django's, the account read by a statement built once (its docstring)
    # A signed-in account's chosen language wins over the cookie and the browser's (players/languages.py).
    "players.languages.account_language",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # A NUL in the path or query: 404/400 before any view looks anything up (an error page in the site's layout).
    "ginleague.errors.refuse_nul_characters",
    "django_htmx.middleware.HtmxMiddleware",
    # E-mail a request causes links to the address it came to (players/mail.py).
    "players.mail.links_from_the_request",
    # Turns a locked-out sign-in into the lockout page (django-axes asks to be last but for the next one).
    "axes.middleware.AxesMiddleware",
    # A lost database connection: 503 with Retry-After (ginleague/errors.py). Sync-only and innermost,
    # so that under ASGI the whole chain runs in the request's one thread (see the class).
    "ginleague.errors.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "ginleague.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "ginleague.auth.read_user",  # the account itself, once read, not its lazy wrapper (its docstring)
                "django.contrib.messages.context_processors.messages",
                "ginleague.csrf.csrf_token",  # the CSRF token masked with one read of random bytes (its docstring)
                "ginleague.page_defaults.page_defaults",  # base.html's names a page may leave unset (its docstring)
            ],
        },
    },
]

# Inputs and selects written in Python, exactly as Django's widget templates write them (ginleague/forms.py).
FORM_RENDERER = "ginleague.forms.FastWidgets"

WSGI_APPLICATION = "ginleague.wsgi.application"
ASGI_APPLICATION = "ginleague.asgi.application"

DATABASES = {
    "default": database_from_url(os.environ["DATABASE_URL"])
    if os.environ.get("DATABASE_URL")
    else {"ENGINE": "ginleague.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # WAL lets a wall screen read while a table writes; IMMEDIATE avoids lock upgrades.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
    }
    # Tests: the database in memory, Django's own choice for SQLite, said outright: tools that know Django's
    # SQLite by its ENGINE name (pytest-django, naming each worker's database) do not know ginleague.sqlite3.
    DATABASES["default"]["TEST"] = {"NAME": ":memory:"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# No SECRET_KEY given: one generated on first start, kept beside the SQLite database
# (or in the project directory for PostgreSQL), never in the repository (.gitignore).
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    _database_dir = (
        Path(DATABASES["default"]["NAME"]).resolve().parent
        if DATABASES["default"]["ENGINE"].endswith("sqlite3") and str(DATABASES["default"]["NAME"]) != ":memory:"
        else BASE_DIR
    )
    SECRET_KEY = secret_key_from_file(Path(os.environ.get("SECRET_KEY_FILE", _database_dir / ".secret_key")))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-in lockout (django-axes), on the sign-in form and the admin login alike: after
# AXES_FAILURE_LIMIT wrong passwords for one account (from anywhere, or from one address), or
# AXES_ADDRESS_FAILURE_LIMIT from one address across all accounts, signing in is refused for
# AXES_COOLOFF_MINUTES (README: "Sign-in lockout" says how to unlock). players/lockout.py counts the address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "players.lockout.AccountLockoutHandler"
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "10"))
AXES_ADDRESS_FAILURE_LIMIT = int(os.environ.get("AXES_ADDRESS_FAILURE_LIMIT", "100"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
# The account, and the account at one address. These are also what a successful sign-in clears: only
# that account's failures, never the address's guesses at other accounts (which would let an attacker
# reset their count by signing in to an account of their own).
AXES_LOCKOUT_PARAMETERS = ["username", ["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "players.lockout.lockout_response"
AXES_RESET_ON_SUCCESS = True
# Behind NUM_PROXIES proxies that set X-Forwarded-For the caller's address is read from it (as for the API).
NUM_PROXIES = int(os.environ["NUM_PROXIES"]) if os.environ.get("NUM_PROXIES") else None
AXES_IPWARE_PROXY_COUNT = NUM_PROXIES
AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if NUM_PROXIES else ("REMOTE_ADDR",)
# Live pages' event streams one client address may hold open at once in one server process (each holds a
# socket, a file descriptor, for minutes); one more is refused with 429. 0: no limit. A club whose members
# share one Wi-Fi address needs it above the screens open on its busiest night (divided by the workers).
LIVE_STREAMS_PER_ADDRESS = int(os.environ.get("LIVE_STREAMS_PER_ADDRESS", "200"))

# Django's caches, in each server process's memory and bounded (the oldest third goes when one is full).
# "default": the API's rate-limit counts. "parts": what live parts render, keyed by the versions they show
# (scoring/parts.py), so that a hundred screens of one season cost one render per change; apart, so that
# renders never push a rate-limit count out. PART_CACHE_ENTRIES bounds it (0: live parts are not cached).
PART_CACHE_ENTRIES = int(os.environ.get("PART_CACHE_ENTRIES", "2000"))
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "ginleague-default"},
    "parts": (
        {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "ginleague-parts",
            "TIMEOUT": 3600,  # a part's key moves with every change: an hour keeps a quiet season's renders
            "OPTIONS": {"MAX_ENTRIES": PART_CACHE_ENTRIES},
        }
        if PART_CACHE_ENTRIES > 0
        else {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    ),
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# English is the default; the others ship complete translations in locale/ (README: "Languages").
# The language follows the browser (Accept-Language), or the account's choice, or the footer's.
LANGUAGE_CODE = "en-gb"
LANGUAGES = [
    ("en-gb", "English"),
    ("es", "Español"),
    ("de", "Deutsch"),
    ("fr", "Français"),
    ("pt-br", "Português (Brasil)"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# English keeps the site's look ("5 Mar 2026, 19:30"); the other languages use Django's formats.
FORMAT_MODULE_PATH = ["ginleague.formats"]
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# whitenoise sends the static files. Collected (hashed names, gzip copies beside them, far-future cache
# headers) when served publicly, and under `make run`, which runs collectstatic first and says so with
# STATIC_COLLECTED=true: a phone's first load is a third of the size. Otherwise (`make dev`, the tests)
# static/ as it is, so an edit shows at once and nothing needs collecting. Under ASGI (uvicorn) the
# project's handler (ginleague/asgi.py) runs this sync middleware in the request's thread and reads each
# file there (they are small); an async-only static middleware would instead force every request of the
# sync test client through async_to_sync, which fails beside Playwright's event loop in tests.
STATIC_COLLECTED = SERVED_PUBLICLY or env_bool("STATIC_COLLECTED", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "ginleague.storage.StaticFilesStorage"
        if STATIC_COLLECTED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_COLLECTED
if not STATIC_COLLECTED:  # served from static/ through the finders: no collected folder is expected
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)

# Content Security Policy: everything from our own origin, no inline script.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    # The offline app (issue 14): its service worker and manifest come from our own origin only.
    "worker-src": [CSP.SELF],
    "manifest-src": [CSP.SELF],
}

# Django's database sessions, each read by a statement built once (ginleague/sessions.py).
SESSION_ENGINE = "ginleague.sessions"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if SERVED_PUBLICLY:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "players.tokens.TokenAuthentication",  # DRF's, with a cheaper read (see the class)
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every refusal in one shape: service refusals and DRF's own errors become problems (scoring/api/common.py).
    "EXCEPTION_HANDLER": "scoring.api.common.api_exception_handler",
    # JSON only (the record import alone also takes a file upload): a generated client sends what the schema says.
    "DEFAULT_PARSER_CLASSES": ["scoring.api.parsers.JSONParser"],
    # Per client: anonymous by address, signed-in by account; `token` is POST/DELETE /api/token/ and the
    # account page's token buttons together (players.tokens.TokenThrottle).
    "DEFAULT_THROTTLE_CLASSES": [
        "scoring.api.throttles.AnonThrottle",
        "scoring.api.throttles.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_THROTTLE_ANON", "120/minute"),
        "user": os.environ.get("API_THROTTLE_USER", "600/minute"),
        "token": os.environ.get("API_THROTTLE_TOKEN", "20/hour"),
    },
    # Behind a proxy: how many set X-Forwarded-For, so the throttles see the caller's address, not the proxy's.
    # 0 without one: DRF's None would take X-Forwarded-For from any caller, who could then pick a new address.
    "NUM_PROXIES": NUM_PROXIES or 0,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "GinLeague API",
    "DESCRIPTION": "Gin rummy games, hands, clubs and leagues.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get their own components without the read-only fields, so a generated
    # client builds a body from what the caller supplies (e.g. PlayerRequest needs only a name).
    "COMPONENT_SPLIT_REQUEST": True,
}

# E-mail (optional): printed to the console unless EMAIL_HOST names an SMTP server.
if os.environ.get("EMAIL_HOST"):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": os.environ["EMAIL_HOST"],
                "port": int(os.environ.get("EMAIL_PORT") or "587"),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
                "timeout": 10,  # a slow mail server must not hold the reminders run for long
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
    # E-mail is optional: a public site without EMAIL_HOST logs its e-mail instead of failing `check --deploy`.
    SILENCED_SYSTEM_CHECKS = ["mail.E001"]
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "GinLeague <ginleague@localhost>")
# Links in e-mails go to the address the request that caused the e-mail came to (players.mail);
# without a request (manage.py send_reminders) to SITE_URL. Not set, the reminders guess (the first
# ALLOWED_HOSTS name over https when served publicly), and `manage.py check` warns if e-mail is sent.
SITE_URL = os.environ.get("SITE_URL", "").rstrip("/")
SITE_URL_GUESS = f"https://{ALLOWED_HOSTS[0].lstrip('.')}" if SERVED_PUBLICLY else "http://127.0.0.1:8000"

LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # An expected refusal (403, 404, 409) is one INFO line without a traceback (ginleague/logs.py).
    "filters": {"expected_refusals": {"()": "ginleague.logs.ExpectedRefusals"}},
    # The handler's level too: Django's own loggers pass INFO records up to it.
    "handlers": {"console": {"class": "logging.StreamHandler", "level": LOG_LEVEL}},
    "loggers": {"django.request": {"filters": ["expected_refusals"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}
