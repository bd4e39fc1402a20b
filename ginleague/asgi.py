"""The ASGI application `make run` serves: Django's handler, each request handled whole in one worker thread.

Every middleware and view of the project is synchronous. Django's own ASGI handler still runs them
the async way: it starts a new thread for each request (a per-request ``ThreadSensitiveContext``),
runs the middleware chain there, hops back to the event loop for the handler inside it, and into the
thread again for the view, with more hops for the request_started and request_finished signals.
Measured on a hand POST under load (py-spy, 2 uvicorn workers), those hand-offs were about a fifth
of the workers' time. Here a request is handled as a WSGI server handles it: one call, in a thread
of a pool, from request_started to request_finished; only reading the body and sending the answer
stay on the event loop. An async stream (a wall screen's events) is still iterated on the loop and
closed after it ends, as Django does; a stream from a file or a generator is read in the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import uvicorn.server
from asgiref.sync import sync_to_async

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginleague.settings")

import django  # noqa: E402 (the settings module is named first)
from django.conf import settings  # noqa: E402
from django.core import signals  # noqa: E402
from django.core.exceptions import RequestAborted  # noqa: E402
from django.core.handlers.asgi import ASGIHandler, get_script_prefix  # noqa: E402
from django.db import connections  # noqa: E402
from django.http import FileResponse, HttpResponseBase  # noqa: E402
from django.urls import set_script_prefix  # noqa: E402

from ginleague.checks import log_start_up_problems  # noqa: E402


def request_threads() -> int:
    """As many request threads as the process may hold database connections: a request in a thread
    needs one, and more threads than connections would only wait for the pool."""
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    return pool["max_size"] if isinstance(pool, dict) and "max_size" in pool else 8


async def _already_read(chunks: list[bytes]):
    for chunk in chunks:
        yield chunk


class _Answered(Exception):
    """The answer is sent: leave the task group (ends the wait for a disconnect)."""


class OneThreadASGIHandler(ASGIHandler):
    def __init__(self):
        super().__init__()
        self.threads = ThreadPoolExecutor(max_workers=request_threads(), thread_name_prefix="request")

    def close(self) -> None:
        """Hand back the database connections this handler's threads hold, and stop them: for a
        server started and stopped inside a process that goes on (the tests); a server process
        simply exits."""
        size = self.threads._max_workers
        all_at_once = threading.Barrier(size)

        def close_this_threads_connections():
            with contextlib.suppress(threading.BrokenBarrierError):
                all_at_once.wait(timeout=10)  # each task waits for the others: one in every thread
            connections.close_all()

        for done in [self.threads.submit(close_this_threads_connections) for _ in range(size)]:
            done.result()
        self.threads.shutdown()

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)  # the synchronous chain, as under WSGI

    def respond(self, scope, body_file) -> tuple[HttpResponseBase, bool]:
        """The whole of Django's work for one request, in this thread; whether the answer is closed.

        An answer is closed here (request_finished: the thread's database connection goes back
        before the bytes are sent) unless it is an async stream, which the event loop iterates. A
        stream from a file or a generator (static files, CSV and JSON exports) is read here, where
        its blocking reads and queries belong: Django's own handler reads such a stream whole too,
        in a thread of its own and with a warning in the log."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # the server chunks the body itself
        if response.streaming and response.is_async:
            return response, False
        if response.streaming:
            response.streaming_content = _already_read(list(response.streaming_content))
        response.close()
        return response, True

    async def handle(self, scope, receive, send):
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with contextlib.closing(body_file):
            response, closed = await sync_to_async(self.respond, thread_sensitive=False, executor=self.threads)(
                scope, body_file
            )
            try:
                try:
                    async with asyncio.TaskGroup() as group:
                        group.create_task(self.listen_for_disconnect(receive))  # a closed screen ends its stream
                        await self.send_response(response, send)
                        raise _Answered
                except* (_Answered, RequestAborted):
                    pass
            except BaseExceptionGroup as group:
                if len(group.exceptions) == 1:
                    raise group.exceptions[0] from None
                raise
            finally:
                if not closed:
                    await sync_to_async(response.close)()


def end_live_streams_on_exit(end_streams) -> None:
    """Have uvicorn call ``end_streams`` as it starts to shut down (a signal, or ``should_exit``), so that
    its open event streams end cleanly at once instead of holding the shutdown for its grace time and
    then being cut (which a browser reports as a broken answer). Wraps uvicorn's ``Server.shutdown``
    (the server `make run` and the deployment use; under another server, nothing changes)."""
    if getattr(uvicorn.server.Server.shutdown, "ends_live_streams", False):
        return
    original = uvicorn.server.Server.shutdown

    async def shutdown(self, *args, **kwargs):
        end_streams()
        await original(self, *args, **kwargs)

    shutdown.ends_live_streams = True
    uvicorn.server.Server.shutdown = shutdown


def get_application() -> OneThreadASGIHandler:
    django.setup(set_prefix=False)
    log_start_up_problems()
    from scoring.league.live import end_streams  # needs the apps loaded: after django.setup()

    end_live_streams_on_exit(end_streams)
    return OneThreadASGIHandler()


application = get_application()
