"""The served ASGI application (ginleague/asgi.py): each request handled whole in one pooled thread.

Driven through the ASGI protocol itself (asgiref's ApplicationCommunicator), with views of this
module as the URLconf: a plain answer, a stream, and a stream that never ends (a wall screen).
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.testing import ApplicationCommunicator
from django.core import signals
from django.http import JsonResponse, StreamingHttpResponse
from django.urls import path

from ginleague.asgi import OneThreadASGIHandler

seen: dict[str, list] = {"started": [], "view": [], "finished": [], "stream_closed": [], "export": []}


def where(request):
    seen["view"].append(threading.current_thread().name)
    return JsonResponse({"path": request.path})


def stream(request):
    async def parts():
        for part in ("one ", "two ", "three"):
            yield part

    return StreamingHttpResponse(parts(), content_type="text/plain")


def export(request):
    def lines():
        seen["export"].append(threading.current_thread().name)
        yield from ("name,points\n", "Ann,12\n")

    return StreamingHttpResponse(lines(), content_type="text/csv")


def endless(request):
    async def parts():
        try:
            while True:
                yield "tick\n"
                await asyncio.sleep(0.01)
        finally:
            seen["stream_closed"].append(True)

    return StreamingHttpResponse(parts(), content_type="text/event-stream")


urlpatterns = [path("where/", where), path("stream/", stream), path("export/", export), path("endless/", endless)]


@pytest.fixture
def application(settings):
    settings.ROOT_URLCONF = __name__
    for record in seen.values():
        record.clear()

    def started(**kwargs):
        seen["started"].append(threading.current_thread().name)

    def finished(**kwargs):
        seen["finished"].append(threading.current_thread().name)

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    handler = OneThreadASGIHandler()
    yield handler
    signals.request_started.disconnect(started)
    signals.request_finished.disconnect(finished)
    handler.close()


def run(coroutine):
    """``asyncio.run`` in a thread of its own: a browser test earlier in this worker can leave
    Playwright's event loop running in this one."""
    outcome = {}

    def target():
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=60)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def scope(path: str) -> dict:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": [],
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }  # fmt: skip


async def get(application, path: str) -> tuple[int, bytes]:
    communicator = ApplicationCommunicator(application, scope(path))
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(timeout=10)
    body = b""
    while True:
        message = await communicator.receive_output(timeout=10)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await communicator.wait(timeout=10)
    return start["status"], body


def test_a_request_is_handled_in_one_thread_from_start_to_finish(application):
    async def twenty():
        return [await get(application, "/where/") for _ in range(20)]

    answers = run(twenty())
    assert answers == [(200, b'{"path": "/where/"}')] * 20
    # Signals and view of each request ran in the same thread, and that thread was not the loop's.
    for started, view, finished in zip(seen["started"], seen["view"], seen["finished"], strict=True):
        assert started == view == finished != threading.current_thread().name
    # Twenty requests, one after the other, reused the pool's threads instead of starting one each
    # (a thread's id is reused once it ends; its name is not).
    assert len(set(seen["view"])) <= application.threads._max_workers


def test_concurrent_requests_are_served_side_by_side(application):
    async def together():
        return await asyncio.gather(*(get(application, "/where/") for _ in range(6)))

    assert [status for status, _ in run(together())] == [200] * 6
    assert len(seen["finished"]) == 6


def test_a_stream_is_sent_whole_then_closed(application):
    status, body = run(get(application, "/stream/"))
    assert (status, body) == (200, b"one two three")
    assert len(seen["finished"]) == 1  # request_finished once the stream was sent, not before


def test_a_generator_stream_is_read_in_the_request_thread_without_a_warning(application, recwarn):
    status, body = run(get(application, "/export/"))
    assert (status, body) == (200, b"name,points\nAnn,12\n")
    # The generator (an export's queries) ran in the thread that started and finished the request.
    assert seen["export"] == seen["started"] == seen["finished"]
    assert not [warning for warning in recwarn if "synchronous iterators" in str(warning.message)]


def test_a_client_that_goes_away_ends_its_stream(application):
    async def watch_then_leave():
        communicator = ApplicationCommunicator(application, scope("/endless/"))
        await communicator.send_input({"type": "http.request", "body": b""})
        assert (await communicator.receive_output(timeout=10))["status"] == 200
        assert b"tick" in (await communicator.receive_output(timeout=10))["body"]
        await communicator.send_input({"type": "http.disconnect"})
        await communicator.wait(timeout=10)  # the application returns: the stream did not run on

    run(watch_then_leave())
    assert seen["stream_closed"] == [True]
    assert len(seen["finished"]) == 1
