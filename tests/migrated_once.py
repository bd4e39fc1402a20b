"""The test database migrated once for a set of migrations, then copied for each test worker.

Every xdist worker used to run all the migrations into its own test database (~3 CPU-s each on SQLite,
more on PostgreSQL, where the server does the DDL too). Now the first worker to get the lock migrates
and keeps the result; every worker after it, in this run and the next ones, copies it: SQLite's backup
API from a file into its in-memory database, PostgreSQL's CREATE DATABASE ... TEMPLATE. The kept copy is
named by a digest of every app's migration files (and Django's version), so a new or edited migration
builds a new one; makemigrations --check (make lint) keeps the models and the migrations in step.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import sqlite3
from pathlib import Path

import django
from django.apps import apps
from django.conf import settings
from django.core.management import call_command


def migrations_digest() -> str:
    digest = hashlib.sha256(repr((django.VERSION, sorted(settings.MIGRATION_MODULES.items()))).encode())
    for app in sorted(apps.get_app_configs(), key=lambda app: app.label):
        digest.update(app.label.encode())
        for path in sorted((Path(app.path) / "migrations").glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


@contextlib.contextmanager
def _locked(path: Path):
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other workers wait here while the first one migrates
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def create_test_db_migrated_once(creation, folder: Path):
    """A replacement for ``creation.create_test_db`` (the alias's DatabaseCreation) that migrates once."""
    create = creation.create_test_db

    def create_test_db(verbosity=1, autoclobber=False, serialize=None, keepdb=False):
        vendor = creation.connection.vendor
        name = creation._get_test_db_name()
        if keepdb or serialize is not None or vendor not in ("sqlite", "postgresql"):
            return create(verbosity=verbosity, autoclobber=autoclobber, serialize=serialize, keepdb=keepdb)
        if vendor == "sqlite" and not creation.is_in_memory_db(name):
            return create(verbosity=verbosity, autoclobber=autoclobber, keepdb=keepdb)
        digest = migrations_digest()
        with _locked(folder / f"{vendor}.lock"):
            if vendor == "sqlite":
                _sqlite_copied(creation, folder / f"sqlite-{digest}.sqlite3", create, verbosity)
            else:
                _postgresql_copied(creation, digest, create, verbosity)
        _connected_to(creation, name)
        call_command("createcachetable", database=creation.connection.alias)
        creation.connection.ensure_connection()
        return name

    return create_test_db


def _connected_to(creation, name: str) -> None:
    creation.connection.close()
    if creation.connection.vendor == "postgresql":
        creation.connection.close_pool()  # its connections were opened to the database migrated
    settings.DATABASES[creation.connection.alias]["NAME"] = name
    creation.connection.settings_dict["NAME"] = name


def _sqlite_copied(creation, kept: Path, create, verbosity: int) -> None:
    if not kept.exists():
        create(verbosity=verbosity, autoclobber=True)
        for old in kept.parent.glob("sqlite-*.sqlite3"):
            old.unlink()
        building = kept.with_suffix(".building")
        target = sqlite3.connect(building)
        creation.connection.connection.backup(target)
        target.close()
        building.replace(kept)
        return
    _connected_to(creation, creation._get_test_db_name())
    creation.connection.ensure_connection()
    source = sqlite3.connect(f"file:{kept}?mode=ro", uri=True)
    source.backup(creation.connection.connection)
    source.close()


def _postgresql_copied(creation, digest: str, create, verbosity: int) -> None:
    connection = creation.connection
    name = creation._get_test_db_name()
    base = re.sub(r"_gw\d+$", "", name)
    template = f"{base[:40]}_migrated_{digest}"
    quote = connection.ops.quote_name
    with creation._nodb_cursor() as cursor:
        cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [f"{base[:40]}_migrated_%"])
        kept = {row[0] for row in cursor.fetchall()}
    if template not in kept:
        building = f"{template}_new"
        test_settings = connection.settings_dict["TEST"]
        test_settings["NAME"] = building
        try:
            create(verbosity=verbosity, autoclobber=True)
        finally:
            test_settings["NAME"] = name
        connection.close()
        connection.close_pool()  # a database with sessions open cannot be renamed or copied
        with creation._nodb_cursor() as cursor:
            for old in kept - {building}:  # an older set of migrations' copy
                cursor.execute(f"DROP DATABASE IF EXISTS {quote(old)}")
            cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(template)}")
    with creation._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")
        cursor.execute(f"CREATE DATABASE {quote(name)} TEMPLATE {quote(template)}")
