"""Shared browser fixtures: Debian's Chromium driven by Playwright, headless.

Use with pytest-django's ``live_server``::

    @pytest.mark.browser
    def test_something(page, live_server, transactional_db):
        login(page, live_server.url, "ann", PASSWORD)

``browser`` is one Chromium per test session; ``page`` is a fresh context
(own cookies) per test, 360 px wide unless the test asks otherwise via
``new_page``. Screenshots (``make screenshots``) go to test-artifacts/ (gitignored).
"""

from __future__ import annotations

import collections
import os
import re
import select
import shutil
import threading
import time
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django would
# otherwise refuse ORM calls made from the test body.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# A busy 2-core CI machine can be slow to answer; waiting longer is not a speed
# claim (speed is measured in bench/), it only keeps slowness from reading as failure.
# 30 s: the tests now spread over every worker, so a page can wait while the PostgreSQL
# pass's load test saturates both cores (a save once took more than 15 s to come back).
try:
    from playwright.sync_api import expect as _expect

    _expect.set_options(timeout=30_000)
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pass

# Debian's headless build of Chromium (what Playwright runs headless) when installed: the same
# engine without the desktop browser's layers, about 40% less CPU across these tests.
CHROMIUM = os.environ.get("CHROMIUM_PATH") or next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(path).exists()),
    "/usr/bin/chromium",
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 360, "height": 780}
LAPTOP = {"width": 1280, "height": 800}
PASSWORD = "a-long-test-password"
# Console "errors" that are not: htmx logging a request it cancelled on purpose
# (hx-sync), and Chromium logging a page deliberately answered 403/409/422
# (refused form, closed sign-up). A missing file (404) or a 500 still fails.
BENIGN_CONSOLE = re.compile(
    r"^htmx:(sendAbort|afterRequest),|^Failed to load resource: the server responded with a status of (403|409|422)"
)  # tests.factories.UserFactory's password


@pytest.fixture(scope="session", autouse=True)
def _one_request_at_a_time_on_sqlite():
    """On SQLite the test database is in memory with a shared cache, where two
    live-server threads hitting one table fail at once with "database table is
    locked" (a file database in WAL mode would wait). Serve one request at a
    time there; PostgreSQL keeps the threaded server.

    The same holds between a request and the test's own queries: a page may still be
    fetching in the background (its service worker, a page kept for offline use) when
    the test signs someone in or adds a row, and a page closed by the test may still
    have a request in the server when the test's tables are emptied. Each of the test
    thread's queries, and the emptying, waits for the request in hand, and no request
    starts while one runs. (The lock is re-entrant: the server thread shares the test
    thread's connection, so its own queries pass through the same wrapper.)

    A transaction holds the lock from its start to its end, in whichever thread opens it: a
    request served between two statements of a write the test makes through the services (a
    game confirmed while a wall screen watches) found the tables it had written locked, and
    answered 503.

    Yields the lock (None on PostgreSQL) for servers started by a test: the in-process ASGI
    server takes it for each request, and every connection opened in another thread while the
    session runs (an ASGI request thread, a wall screen's poll) has its queries wait for it too."""
    from django.conf import settings
    from django.core.servers.basehttp import WSGIServer
    from django.db import connection, connections
    from django.db.backends.signals import connection_created
    from django.test.testcases import LiveServerThread, TransactionTestCase

    serving = threading.RLock()

    def one_at_a_time(execute, sql, params, many, context):
        with serving:
            return execute(sql, params, many, context)

    class SerialWSGIServer(WSGIServer):
        def __init__(self, *args, connections_override=None, **kwargs):
            super().__init__(*args, **kwargs)  # the server thread already uses the overrides

        def process_request(self, request, client_address):
            with serving:
                super().process_request(request, client_address)

    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        original_server, original_teardown = LiveServerThread.server_class, TransactionTestCase._fixture_teardown

        def fixture_teardown_between_requests(self):
            with serving:
                original_teardown(self)

        def wait_for_the_request_in_hand(sender, connection, **kwargs):
            if one_at_a_time not in connection.execute_wrappers:
                connection.execute_wrappers.append(one_at_a_time)

        wrapper_class = type(connections["default"])
        original_set_autocommit = wrapper_class.set_autocommit
        in_transaction = threading.local()  # per thread: the live server's thread shares the test's connection

        def set_autocommit_holding_the_lock(self, autocommit, *args, **kwargs):
            """Off (a transaction begins): take the lock; on again (it committed or rolled back): let it go."""
            if not autocommit and not getattr(in_transaction, "holds", False):
                serving.acquire()
                in_transaction.holds = True
            try:
                return original_set_autocommit(self, autocommit, *args, **kwargs)
            finally:
                if autocommit and getattr(in_transaction, "holds", False):
                    in_transaction.holds = False
                    serving.release()

        LiveServerThread.server_class = SerialWSGIServer
        TransactionTestCase._fixture_teardown = fixture_teardown_between_requests
        wrapper_class.set_autocommit = set_autocommit_holding_the_lock
        connection_created.connect(wait_for_the_request_in_hand)
        with connection.execute_wrapper(one_at_a_time):
            yield serving
        connection_created.disconnect(wait_for_the_request_in_hand)
        wrapper_class.set_autocommit = original_set_autocommit
        LiveServerThread.server_class, TransactionTestCase._fixture_teardown = original_server, original_teardown
    else:
        yield None


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium-headless-shell")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.stash[BODY_DONE] = True
        if report.failed:
            item.stash[FAILED] = True
    return report


FAILED = pytest.StashKey[bool]()
BODY_DONE = pytest.StashKey[bool]()  # the test's own steps are over: its fixtures are being torn down
# A server fixture torn down before the pages (its name after new_page's in a test's arguments) cuts the
# pages' open live streams: the browser then reports the stream's end, and, a second later (the stream's
# retry), its reconnection refused by the stopped server: the test stopping, not a page.
CUT_BY_TEARDOWN = re.compile(r"^Failed to load resource: net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED)")


ANSWERS_KEPT = 40  # the last answers a failed test prints (its pages', oldest first)


def _leave_evidence(request, pages, requests_in_flight, answers) -> None:
    """A failed test leaves each of its pages' screenshot and HTML in test-artifacts/, and prints the
    requests that never got an answer and the last ones answered, with their status: enough to tell a page
    that never sent from a server that never answered, or refused."""
    ARTIFACTS.mkdir(exist_ok=True)
    stem = re.sub(r"[^\w.-]+", "-", request.node.name)
    for number, page in enumerate(pages, 1):
        try:
            page.screenshot(path=str(ARTIFACTS / f"failed-{stem}-{number}.png"), full_page=True)
            (ARTIFACTS / f"failed-{stem}-{number}.html").write_text(page.content())
        except Exception as error:  # a closed page or a crashed browser: nothing to keep
            print(f"page {number}: no evidence ({error})")
    for line in requests_in_flight.values():
        print("no answer:", line)
    for line in answers:
        print("answered:", line)


class _Handling:
    """Counts the requests Django's live server is handling: accepted, not yet answered (a thread each on
    PostgreSQL; on SQLite the serial server handles each in its own thread). A page closed at a test's end may
    have sent one a moment before (a service worker's refresh of a static file behind its copy): handled after
    the test's database was emptied and closed to it, it printed "Database access not allowed" in the middle
    of the run, and could have read a half-emptied one."""

    def __init__(self, httpd):
        self.count = 0
        self.lock = threading.Lock()
        self.listening = httpd.socket
        accept, process = httpd.get_request, httpd.process_request
        # A thread per request (PostgreSQL), or each handled in the server's own thread (SQLite, serial).
        threaded = hasattr(httpd, "process_request_thread")

        def get_request():  # counted before the connection leaves the queue, so none is ever in neither place
            with self.lock:
                self.count += 1
            try:
                return accept()
            except BaseException:
                self.done()
                raise

        def process_request(sent, client_address):  # in the server's own thread, once accepted
            handed_on = False
            try:
                process(sent, client_address)
                handed_on = threaded
            finally:
                if not handed_on:
                    self.done()

        httpd.get_request = get_request
        httpd.process_request = process_request
        if threaded:
            handle = httpd.process_request_thread

            def process_request_thread(sent, client_address):  # the request's own thread
                try:
                    handle(sent, client_address)
                finally:
                    self.done()

            httpd.process_request_thread = process_request_thread

    def done(self) -> None:
        with self.lock:
            self.count -= 1

    def settled(self, seconds: float = 30.0) -> None:
        """Return once nothing has been handled, nor waited to be accepted, for a moment (a request sent just before
        its page closed is accepted a little after), or after ``seconds`` (a busy machine's slowest answer)."""
        deadline = time.monotonic() + seconds
        quiet_since = None
        while time.monotonic() < deadline:
            # A connection the page made before it closed, waiting to be accepted, is a request still to come: on a
            # busy machine the server's thread can take more than the quiet moment below to accept it.
            if self.count or select.select([self.listening], [], [], 0)[0]:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= 0.05:
                return
            time.sleep(0.01)
        raise AssertionError(f"the live server still had {self.count} request(s) in hand {seconds:.0f} s after a test")


@pytest.fixture(autouse=True)
def _live_server_settled(request):
    """A test with Django's live server ends only once the server has answered every request its pages sent,
    whether they were new_page's or contexts of the test's own: torn down after the test's fixtures (its pages
    closed) and before its database is emptied (pytest-django's fixtures are set up before this one)."""
    if "live_server" not in request.fixturenames:
        yield
        return
    httpd = request.getfixturevalue("live_server").thread.httpd
    if not hasattr(httpd, "ginleague_handling"):
        httpd.ginleague_handling = _Handling(httpd)
    yield
    httpd.ginleague_handling.settled()


@pytest.fixture
def new_page(browser, request):
    """Factory: ``new_page(viewport=..., java_script_enabled=...)`` -> a page in its own context.

    Every page fails the test on a JavaScript error or a CSP violation
    reported to the console. A failed test leaves its pages' screenshots and HTML.
    """
    contexts = []
    pages = []
    problems: list[str] = []
    requests_in_flight: dict[int, str] = {}
    answers: collections.deque[str] = collections.deque(maxlen=ANSWERS_KEPT)

    def make(*, viewport=None, java_script_enabled=True, **options):
        context = browser.new_context(viewport=viewport or PHONE, java_script_enabled=java_script_enabled, **options)
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        pages.append(page)
        page.on(
            "request",
            lambda sent: requests_in_flight.__setitem__(id(sent), f"{time.strftime('%X')} {sent.method} {sent.url}"),
        )
        page.on("requestfinished", lambda sent: requests_in_flight.pop(id(sent), None))
        page.on(
            "response",
            lambda answer: answers.append(
                f"{time.strftime('%X')} {answer.status} {answer.request.method} {answer.url}"
                + (" (the service worker's)" if answer.from_service_worker else "")
            ),
        )
        page.on("requestfailed", lambda sent: requests_in_flight.pop(id(sent), None))
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on(
            "console",
            lambda message: (
                problems.append(f"console {message.type}: {message.text} (at {message.location.get('url') or '?'})")
                if message.type == "error"
                and not BENIGN_CONSOLE.match(message.text)
                and not (request.node.stash.get(BODY_DONE, False) and CUT_BY_TEARDOWN.match(message.text))
                else None
            ),
        )
        return page

    yield make
    if request.node.stash.get(FAILED, False):
        _leave_evidence(request, pages, requests_in_flight, answers)
    for context in contexts:
        context.close()
    assert not problems, "browser reported problems:\n" + "\n".join(problems)


@pytest.fixture
def page(new_page):
    """A phone-sized page (360 px wide) with JavaScript on."""
    return new_page()


def login(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Sign in through the sign-in form and wait for the redirect."""
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login/" not in url)


class Held:
    """The first request of ``page`` to an address matching ``pattern``, held unanswered until the test lets it
    go (``asked().continue_()``): a script or an answer that comes late, as on a slow phone or a busy server."""

    def __init__(self, page, pattern: re.Pattern):
        self.page, self.pattern, self.routes = page, pattern, []
        page.route(pattern, lambda route: self.routes.append(route))

    def asked(self, seconds: float = 20):
        """The held request's route, once the page has sent it; fails the test after ``seconds`` without it."""
        until = time.monotonic() + seconds
        while not self.routes and time.monotonic() < until:
            self.page.wait_for_timeout(20)
        assert self.routes, f"the page never asked for {self.pattern.pattern}"
        return self.routes[0]


def sign_in(page, base_url: str, username: str) -> None:
    """Signed in as ``username`` by the session cookie the sign-in form would have set, for the tests whose
    subject is not signing in (three page loads saved each time; the form is tried by the tests that
    call ``login``). Only for a server that shares this process's database."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    cookie = {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base_url,
        "expires": time.time() + settings.SESSION_COOKIE_AGE,  # kept across a browser restart, as the form's is
        "httpOnly": True,
        "sameSite": settings.SESSION_COOKIE_SAMESITE,
    }
    page.context.add_cookies([cookie])


KEPT_BY_THE_WORKER = """async () => {
    const catalog = document.querySelector('script[src^="/jsi18n/"]');
    const wanted = [location.href.split('#')[0]];
    if (catalog) { wanted.push(new URL(catalog.getAttribute('src'), location.href).href); }
    let kept = false;
    for (let tries = 0; tries < 400 && !kept; tries++) {
        const hits = await Promise.all(wanted.map((url) => caches.match(url)));
        kept = hits.every(Boolean);
        if (!kept) { await new Promise((resolve) => setTimeout(resolve, 25)); }
    }
    if (!kept) { return 'not kept after 10 s: ' + wanted.join(', '); }
    // A page whose worker's text changed (a language switch: its shell names the language's catalog) brings
    // a new worker, installed and activated behind the page. Going offline while it comes in is a race of
    // the test's own network switch (the emulation reaches the page and the worker one after the other): a
    // reload then waited for good, or its catalog failed. So the worker's update check is made now, and
    // what it found is waited for, as a phone has it long before its owner walks out of the Wi-Fi.
    const registration = await navigator.serviceWorker.getRegistration();
    if (!registration) { return true; }
    await registration.update().catch(() => null);
    for (let tries = 0; tries < 400; tries++) {
        if (!registration.installing && !registration.waiting && registration.active &&
            registration.active.state === 'activated') { return true; }
        await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return 'a new service worker still coming in after 10 s';
}"""


def kept_by_worker(page) -> None:
    """Wait until the service worker holds this page and its language catalog, and no newer worker is on its
    way in. It writes its copies as it hands the answers on, a moment after the page has them: a test that
    cuts the network at once (under a loaded machine) could otherwise find nothing kept, as a phone switched
    to flight mode that instant would."""
    assert page.evaluate(KEPT_BY_THE_WORKER) is True


# Screenshots are for looking at the pages (`make screenshots`); a plain run takes none but a failed test's
# (_leave_evidence): drawing and encoding a full page costs about 0.3 s of CPU, and a run took over a hundred.
SCREENSHOTS = os.environ.get("GINLEAGUE_SCREENSHOTS", "") not in ("", "0")


def screenshot(target, name: str, *, full_page: bool = True, **options) -> Path | None:
    """Save a screenshot of a page or of a locator's element as ``test-artifacts/name.png`` when screenshots
    are asked for (GINLEAGUE_SCREENSHOTS=1), and return its path; otherwise take none and return None."""
    if not SCREENSHOTS:
        return None
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if hasattr(target, "goto"):  # a page; a locator has no full page
        options["full_page"] = full_page
    target.screenshot(path=str(path), **options)
    return path
