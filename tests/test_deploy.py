"""Production settings: `check --deploy` is clean, and missing secrets fail loudly."""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts manage.py in a process of its own
ROOT = Path(__file__).resolve().parent.parent

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-0123456789-abcdefghijkl",
    "ALLOWED_HOSTS": "gin.example.com",
}


def python(*args, env):
    # A fresh process as a server would start: none of the test run's own settings
    # (the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE, which --deploy rightly refuses).
    dropped = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
    clean = {key: value for key, value in os.environ.items() if key not in dropped}
    # Its own database file, not the project's db.sqlite3: a test run leaves the checkout as it found it.
    scratch = {"DATABASE_URL": f"sqlite:///{tempfile.gettempdir()}/ginleague-deploy-check.sqlite3"}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env={**clean, **scratch, **env}, capture_output=True, text=True
    )


def manage(*args, env):
    return python("manage.py", *args, env=env)


def started(served: str, env: dict):
    """A server process starting the app: it imports ``served`` (ginleague.asgi for uvicorn, ginleague.wsgi for
    gunicorn), which names the settings itself; no manage.py, so no system checks."""
    return python("-c", f"import {served}", env=env)


def collected(static_root: Path) -> dict:
    """STATIC_ROOT as collectstatic leaves it (its manifest: what the site looks hashed names up in)."""
    static_root.mkdir(exist_ok=True)
    (static_root / "staticfiles.json").write_text('{"paths": {}, "version": "1.1", "hash": ""}')
    return {"STATIC_ROOT": str(static_root)}


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", env={**PRODUCTION, **collected(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def shown(*setting_expressions: str, env: dict) -> list[str]:
    """Each expression's value as a fresh process reads the settings under ``env`` (one process for them all)."""
    prints = "; ".join(f"print({expression})" for expression in setting_expressions)
    result = python(
        "-c", f"import django; from django.conf import settings; django.setup(); {prints}",
        env={"DJANGO_SETTINGS_MODULE": "ginleague.settings", **env},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[-len(setting_expressions) :]


def show(setting_expression: str, env: dict) -> str:
    return shown(setting_expression, env=env)[0]


def test_debug_is_off_unless_asked_for():
    assert show("settings.DEBUG", env={}) == "False"
    assert show("settings.DEBUG", env={"DEBUG": "true"}) == "True"


def test_make_dev_turns_debug_on_and_make_run_does_not():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^dev: export DEBUG :?= ?true$", makefile, re.MULTILINE)
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "DEBUG" not in run


def test_without_a_secret_key_one_is_generated_beside_the_database_and_kept(tmp_path):
    env = {**PRODUCTION, "SECRET_KEY": "", "DATABASE_URL": f"sqlite:///{tmp_path}/club.sqlite3"}
    first = show("settings.SECRET_KEY", env=env)
    key_file = tmp_path / ".secret_key"
    assert key_file.read_text() == first
    assert key_file.stat().st_mode & 0o077 == 0  # the owner's alone
    assert show("settings.SECRET_KEY", env=env) == first  # kept across restarts: sessions survive
    assert len(first) >= 50 and not first.startswith("django-insecure")
    result = manage("check", "--deploy", "--fail-level", "WARNING", env={**env, **collected(tmp_path / "static")})
    assert result.returncode == 0, result.stdout + result.stderr


def test_with_debug_off_and_nothing_set_the_app_serves_plain_http_on_this_machine():
    hosts, redirect, finders = shown(
        "settings.ALLOWED_HOSTS", "getattr(settings, 'SECURE_SSL_REDIRECT')", "settings.WHITENOISE_USE_FINDERS",
        env={"DEBUG": "false"},
    )  # fmt: skip
    assert hosts == "['127.0.0.1', 'localhost', '[::1]']"
    assert redirect == "False"
    assert finders == "True"  # static files without collectstatic


def test_a_real_host_name_turns_on_the_production_defaults():
    secure, finders = shown(
        "(settings.SECURE_SSL_REDIRECT, settings.SESSION_COOKIE_SECURE)",
        "settings.WHITENOISE_USE_FINDERS",
        env=PRODUCTION,
    )
    assert secure == "(True, True)"
    assert finders == "False"


def test_without_collectstatic_the_server_says_what_is_missing_as_it_starts(tmp_path):
    env = {**PRODUCTION, "STATIC_ROOT": str(tmp_path / "static")}
    check = manage("check", env=env)
    assert "ginleague.W001" in check.stderr + check.stdout
    assert "manage.py collectstatic --noinput" in check.stderr + check.stdout
    for served in ("ginleague.asgi", "ginleague.wsgi"):  # uvicorn and gunicorn run no system checks
        start = started(served, env=env)
        assert start.returncode == 0, start.stderr
        assert "The static files are not collected" in start.stderr, served
        assert "collectstatic --noinput" in start.stderr
    quiet = started("ginleague.asgi", env={**env, **collected(tmp_path / "static")})
    assert "not collected" not in quiet.stderr  # said only when it is so
    local = started("ginleague.asgi", env={"DEBUG": "false"})
    assert "not collected" not in local.stderr  # local use serves static/ as it is: nothing to collect


def address_seen_under_make_run(env: dict) -> str:
    """The client address the app is given under `make run`'s uvicorn, for a caller at 127.0.0.1 claiming another."""
    import asyncio
    import concurrent.futures
    import shlex

    from uvicorn import Config
    from uvicorn.main import main as uvicorn_command

    dropped = ("NUM_PROXIES", "FORWARDED_ALLOW_IPS")
    clean = {key: value for key, value in os.environ.items() if key not in dropped}
    plan = subprocess.run(["make", "-n", "run"], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True)
    serve = next(line for line in plan.stdout.splitlines() if "bin/uvicorn " in line)
    options = uvicorn_command.make_context("uvicorn", shlex.split(serve)[1:]).params
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    config = Config(app, proxy_headers=options["proxy_headers"], forwarded_allow_ips=options["forwarded_allow_ips"])
    config.load()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": "/", "raw_path": b"/", "query_string": b"", "root_path": "", "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000),
        "headers": [(b"host", b"127.0.0.1:8000"), (b"x-forwarded-for", b"198.51.100.7")],
    }  # fmt: skip

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        pass

    # In a thread of its own: a browser test in the same worker may leave an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, config.loaded_app(scope, receive, send)).result()
    return seen[0]


def test_make_run_believes_forwarded_headers_only_when_told_there_is_a_proxy():
    assert address_seen_under_make_run({}) == "127.0.0.1"  # a local caller cannot pick its address
    assert address_seen_under_make_run({"NUM_PROXIES": "0"}) == "127.0.0.1"
    assert address_seen_under_make_run({"NUM_PROXIES": "1"}) == "198.51.100.7"  # the proxy's word is taken
    assert address_seen_under_make_run({"FORWARDED_ALLOW_IPS": "10.0.0.2"}) == "127.0.0.1"  # not that proxy
