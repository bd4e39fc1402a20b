"""Shared fixtures: the golden vectors, a signed-in user, and settings every test runs under."""

import contextlib
import hashlib
import json
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import global_settings
from django.core.cache import caches
from django.core.management.color import no_style
from django.db import DatabaseError, connections
from django.db.models.sql.compiler import SQLCompiler
from django.test.testcases import TransactionTestCase
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import translation
from psycopg.pq import Trace

VECTOR_DIR = Path(__file__).parent / "vectors"
VECTOR_FILES = sorted(VECTOR_DIR.glob("*.json"))


def load_vector(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# How long each test's body took in the last run that ran it, kept in pytest's cache (its setup is left out:
# the first test on a worker also waits for the session's database and browser).
DURATIONS = "ginleague/durations"
# Tests shorter than this keep pytest-randomly's shuffled order among themselves.
LONG_TEST_SECONDS = 2.0
# The long tests' times, committed (`make durations` writes them from the cache): a clean clone, CI's, has no
# pytest cache to order by, and a 30-second test drawn last kept the other workers idle while it ran.
KNOWN_DURATIONS = Path(__file__).parent / "durations.json"


def known_durations(cache) -> dict[str, float]:
    """Each test's time in the last run that ran it, else as committed."""
    try:
        committed = json.loads(KNOWN_DURATIONS.read_text(encoding="utf-8"))
    except FileNotFoundError:
        committed = {}
    return {**committed, **(cache.get(DURATIONS, {}) if cache else {})}


def write_known_durations(cache_folder: str = ".pytest_cache") -> None:
    """``make durations``: the long tests' times of the cache's last runs become the committed ones."""
    kept = json.loads((Path(cache_folder) / "v" / DURATIONS).read_text(encoding="utf-8"))
    long_ones = {nodeid: round(seconds, 1) for nodeid, seconds in sorted(kept.items()) if seconds >= LONG_TEST_SECONDS}
    KNOWN_DURATIONS.write_text(json.dumps(long_ones, indent=1) + "\n", encoding="utf-8")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The browser tests and the slow ones first, then the rest, each group's long tests longest first (by the
    last run's times, or the committed ones), the others in pytest-randomly's shuffled order: the workers share
    the long tests early and finish together on the short ones, instead of one worker starting a 40-second test when
    the others have nothing left to run. Every xdist worker sorts alike (the times are read from one file)."""
    durations = known_durations(getattr(config, "cache", None))

    def order(item):
        seconds = durations.get(item.nodeid, 0.0)
        quick = item.get_closest_marker("browser") is None and item.get_closest_marker("slow") is None
        return quick, -seconds if seconds >= LONG_TEST_SECONDS else 0.0

    items.sort(key=order)


def pytest_runtest_logreport(report):
    """Each test's time (on xdist's controller: the workers' reports come to it)."""
    if report.when == "call":
        _durations_this_run[report.nodeid] = report.duration


_durations_this_run: dict[str, float] = {}


def pytest_sessionfinish(session):
    """The times of this run's tests replace the kept ones (the controller writes them, not each worker)."""
    cache = getattr(session.config, "cache", None)
    if cache is None or hasattr(session.config, "workerinput") or not _durations_this_run:
        return
    cache.set(DURATIONS, {**cache.get(DURATIONS, {}), **_durations_this_run})


def _rows_rolled_back_after(django_db_blocker):
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer._from_testcase = True  # a durable block inside is allowed, as in a TestCase
        outer.__enter__()
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture(scope="class")
def class_rows(django_db_setup, django_db_blocker):
    """Rows a class of tests shares, built once (a permission matrix runs hundreds of requests against one
    cast): they live in a transaction that is rolled back after the class, and each test runs in a savepoint
    inside it (pytest-django's ``db``), so what one test writes is gone before the next. Only tests in the
    class see the rows."""
    yield from _rows_rolled_back_after(django_db_blocker)


@pytest.fixture(scope="module")
def module_rows(django_db_setup, django_db_blocker):
    """``class_rows`` for a module's tests (not for a module with transactional tests: they empty the
    tables). A worker builds the rows again after running another module's tests in between."""
    yield from _rows_rolled_back_after(django_db_blocker)


@pytest.fixture
def compiled(monkeypatch):
    """The models of the statements the ORM compiles (its compiler's as_sql) during the test; a test
    clears it once what it measures has been built, then asserts nothing more was compiled."""
    models = []
    as_sql = SQLCompiler.as_sql

    def counted(self, *args, **kwargs):
        models.append(self.query.model)
        return as_sql(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    return models


@pytest.fixture
def round_trips():
    """``with round_trips() as trips:`` the times the default connection waited for PostgreSQL inside for the
    statements it ran (a text sent, or a pipeline's statements), read from libpq's trace of it. psycopg's upkeep
    of its prepared statements is left out: it prepares one the fifth time it runs on the connection (a Parse of
    its own), deallocates one when its cache is full, or all after a ROLLBACK, whatever the test did before.
    SQLite, in this process, has no server to wait for: there, each statement run."""

    connection = connections["default"]

    @contextlib.contextmanager
    def counted():
        trips: list[str] = []
        if connection.vendor != "postgresql":
            with CaptureQueriesContext(connection) as statements:
                yield trips
            trips.extend(statement["sql"] for statement in statements)
            return
        connection.ensure_connection()
        libpq = connection.connection.pgconn
        with tempfile.TemporaryFile("w+") as trace:
            libpq.trace(trace.fileno())
            libpq.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)
            try:
                yield trips
            finally:
                libpq.untrace()
                trace.seek(0)
                trips.extend(_statements_answered(trace))

    return counted


PREPARED_STATEMENTS_UPKEEP = ("Close", "Sync", "Flush", 'Query "DEALLOCATE', 'Parse "_pg3_')


def _statements_answered(trace) -> list[str]:
    """The exchanges of a libpq trace that ran a statement, each as the messages sent, up to the server's
    ReadyForQuery; those that only prepared (psycopg names its statements _pg3_N) or deallocated statements
    are left out."""
    answered, sent = [], []
    for line in trace:
        direction, _length, message, *rest = line.rstrip("\n").split("\t") + [""]
        if direction == "F":
            sent.append(f"{message} {rest[0].strip()}")
        elif message == "ReadyForQuery":
            upkeep = all(part.startswith(PREPARED_STATEMENTS_UPKEEP) for part in sent)
            if not upkeep:
                answered.append("; ".join(sent))
            sent = []
    return answered


@pytest.fixture
def user(db):
    from tests.factories import UserFactory

    return UserFactory(username="ann")


@pytest.fixture(scope="session")
def _test_databases_migrated_once(request):
    """Each worker's test database is a copy of one migrated once and kept (tests/migrated_once.py),
    instead of every worker running every migration; set before pytest-django's django_db_setup runs."""
    from django.db import connections

    from tests.migrated_once import create_test_db_migrated_once

    cache = getattr(request.config, "cache", None)
    if cache:
        folder = cache.mkdir("test-databases")
    else:  # without pytest's cache (-p no:cacheprovider) the workers still share one lock, or all build at once
        checkout = hashlib.sha256(str(request.config.rootpath).encode()).hexdigest()[:8]
        folder = Path(tempfile.gettempdir()) / f"ginleague-test-databases-{checkout}"
        folder.mkdir(exist_ok=True)
    for connection in connections.all():
        connection.creation.create_test_db = create_test_db_migrated_once(connection.creation, folder)
    yield
    for connection in connections.all():
        connection.creation.__dict__.pop("create_test_db", None)


@pytest.fixture(scope="session")
def django_db_setup(_test_databases_migrated_once, django_db_setup, django_db_blocker):
    """PostgreSQL: the test database does not wait for its log to reach the disk at each commit
    (``synchronous_commit = off``; a crash could lose the last commits of a database that is
    thrown away anyway). Every connection to it, the test servers' included, inherits this.

    At the end, the sessions still open on it are ended before it is dropped: a wall screen that a
    browser test closed can still hold a stream, and its listening connection, in the live server
    (a WSGI server notices a gone client only at its next keepalive), and the drop would fail with
    "being accessed by other users"."""
    from django.db import connection

    if connection.vendor != "postgresql":
        yield
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        name = connection.ops.quote_name(connection.settings_dict["NAME"])
        cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit TO off")
        cursor.execute("SET synchronous_commit TO off")
    yield
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session", autouse=True)
def _tables_emptied_by_delete():
    """PostgreSQL: a test that commits (browser and live-server tests) ends by emptying every table, which
    Django does with one TRUNCATE of all 31 tables: ~300 ms of new files each time, against ~10 ms for
    DELETE on tables this small. Foreign keys are deferred (Django declares them DEFERRABLE), so the
    order does not matter inside the one transaction the flush runs in. The statements go to the server
    as one text: one round trip instead of one per table (32, each a wake-up of the server's process).

    A test that rolls back ends by checking the constraints it deferred (Django's check_constraints:
    SET CONSTRAINTS ALL IMMEDIATE, then DEFERRED again); both go as one text too, and a broken
    constraint still fails the test at the first."""
    from django.db.backends.postgresql.base import DatabaseWrapper
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate, check_constraints = DatabaseOperations.sql_flush, DatabaseWrapper.check_constraints

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if not tables or reset_sequences:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        deletes = (f"DELETE FROM {self.quote_name(table)}" for table in tables)
        return ["; ".join(["SET CONSTRAINTS ALL DEFERRED", *deletes])]

    def constraints_checked_in_one_round_trip(self, table_names=None):
        with self.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE; SET CONSTRAINTS ALL DEFERRED")

    DatabaseOperations.sql_flush = sql_flush
    DatabaseWrapper.check_constraints = constraints_checked_in_one_round_trip
    emptied = TransactionTestCase._fixture_teardown
    TransactionTestCase._fixture_teardown = _flushed_again_after_a_deadlock(_emptied_but_the_migrations_rows)
    yield
    DatabaseOperations.sql_flush, DatabaseWrapper.check_constraints = truncate, check_constraints
    TransactionTestCase._fixture_teardown = emptied


# The rows migrate's post_migrate signal writes, the same for every test: the content types and permissions.
WRITTEN_BY_MIGRATE = frozenset({"django_content_type", "auth_permission"})


def _emptied_but_the_migrations_rows(self):
    """What Django's ``flush`` does after a test that commits, but the content types and permissions are kept.
    Django deletes them with the rest, then writes them again through post_migrate (every app's content types
    and permissions looked up and inserted anew: most of the emptying's time); no test writes either."""
    for name in self._databases_names(include_mirrors=False):
        connection = connections[name]
        tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
        emptied = [table for table in tables if table not in WRITTEN_BY_MIGRATE]
        connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), emptied))


# What a request that a closed page left in the live server can do to the emptying, whose transaction is
# then rolled back whole: deadlock with it (40P01), or add a row that refers to one already deleted
# (23503, found when the deferred foreign keys are checked at COMMIT).
CROSSED_BY_A_LATE_REQUEST = {"40P01", "23503"}


def _flushed_again_after_a_deadlock(teardown):
    """The emptying, tried again when a late request crossed it: unlike TRUNCATE, which waits for every
    table, DELETE takes row locks one table after another, and a request that a closed page left in the
    live server can deadlock with it (PostgreSQL aborts one of the two) or insert a row (an idempotency
    key, say) that refers to a user the DELETEs removed. The request finishes, and the emptying goes
    through the next time."""

    def teardown_again_after_a_deadlock(self):
        for attempt in range(3):
            try:
                return teardown(self)
            except DatabaseError as refusal:
                if attempt == 2 or getattr(refusal.__cause__, "sqlstate", None) not in CROSSED_BY_A_LATE_REQUEST:
                    raise
                time.sleep(0.1)  # the late request's moment to end

    return teardown_again_after_a_deadlock


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """Hashing a password the production way takes ~0.3 s; tests sign in hundreds of times.

    New hashes are fast ones; the production hashers stay listed so a real hash (one a separate
    server process must check, see tests/browser/test_wall.py) still verifies here."""
    hashers = ["django.contrib.auth.hashers.MD5PasswordHasher", *global_settings.PASSWORD_HASHERS]
    with override_settings(PASSWORD_HASHERS=hashers):
        yield


@pytest.fixture(scope="session", autouse=True)
def _static_files_found_when_asked():
    """Each test client builds its own middleware, and whitenoise would list every static file again for
    each (a third of a short API test's time). Looked up when one is requested instead, as in DEBUG."""
    with override_settings(WHITENOISE_AUTOREFRESH=True):
        yield


@pytest.fixture(autouse=True)
def _no_lockout_or_rate_limits(request, settings):
    """The suite signs in and calls the API far more often than any person: no sign-in lockout and no API
    rate limits, except in the tests marked ``limits`` that try them."""
    if request.node.get_closest_marker("limits"):
        return
    settings.AXES_ENABLED = False
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}


@pytest.fixture(autouse=True)
def _each_test_starts_with_no_part_rendered():
    """Live parts and scoresheets are cached per process by their versions (scoring/parts.py, kept_sheet.py),
    and the sheet's rows and boards by what they show (scoresheet.py): a part an earlier test drew is not this test's,
    whatever ids its database re-used."""
    from scoring.scoresheet import forget_written

    caches["parts"].clear()
    forget_written()


@pytest.fixture(autouse=True)
def _each_test_starts_with_no_chrome_kept():
    """The chrome is kept rendered per language (ginleague/templatetags/rendered_once.py): a test that puts in
    other translations (the pseudo-locale) must neither see nor leave a chrome of another test's."""
    from ginleague.templatetags.rendered_once import forget_rendered

    forget_rendered()


@pytest.fixture(autouse=True)
def _each_test_starts_in_the_default_language():
    """A request through the test client leaves its language active in this thread (LocaleMiddleware
    activates it and nothing ends it): a test calling services after another test's French request would
    read French refusals. Each test ends back in the default language."""
    yield
    translation.deactivate()
