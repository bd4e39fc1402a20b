"""Production settings: `check --deploy` is clean, and missing secrets fail loudly."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-0123456789-abcdefghijkl",
    "ALLOWED_HOSTS": "gin.example.com",
}


def manage(*args, env):
    # A fresh process as a server would start: none of the test run's own settings
    # (the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE, which --deploy rightly refuses).
    dropped = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE")
    clean = {key: value for key, value in os.environ.items() if key not in dropped}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True
    )


def test_check_deploy_is_clean_with_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_without_a_secret_key_refuses_to_start():
    result = manage("check", env={**PRODUCTION, "SECRET_KEY": ""})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_without_allowed_hosts_refuses_to_start():
    result = manage("check", env={**PRODUCTION, "ALLOWED_HOSTS": ""})
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr
