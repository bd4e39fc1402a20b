"""A club night under faults against a real server: tables recording hands through the API and the
HTMX form while the app's database connections are cut and a server worker is killed.

Used by tests/test_load_faults.py (the proof, in the suite's PostgreSQL pass) and
bench/bench_load.py --faults (the figures). Each hand is sent by its phone and, at
the same moment, by a second phone of the table with the same hand number; some are
sent again with the same key. A request that gets no answer, a 502, 503 or 504 is
sent again with the same key until it is answered (as the scoresheet's script does).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import psycopg

ROOT = Path(__file__).resolve().parents[1]
RETRY_STATUSES = {502, 503, 504}
KNOCK = {"ending": "knock", "knocker_deadwood": 8, "defender_deadwood": 10}


def serve(env: dict, workers: int = 2) -> tuple[subprocess.Popen, int]:
    """uvicorn serving the ASGI app (as `make run` does) on a free loopback port, once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [str(ROOT / ".venv/bin/uvicorn"), "ginleague.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--workers", str(workers), "--lifespan", "off", "--log-level", "warning", "--no-access-log",
         "--timeout-graceful-shutdown", "2"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/")
            connection.getresponse().read()
            return server, port
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not start")


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def worker_pids(server: subprocess.Popen) -> list[int]:
    """The uvicorn workers: the server process's children."""
    try:
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    except OSError:
        return []
    return [int(pid) for pid in children if "uvicorn" in _cmdline(int(pid)) or "multiprocessing" in _cmdline(int(pid))]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def kill_a_worker(server: subprocess.Popen) -> int | None:
    """SIGKILL one worker (uvicorn starts a new one); its pid, or None if there was none."""
    pids = worker_pids(server)
    if not pids:
        return None
    os.kill(pids[0], signal.SIGKILL)
    return pids[0]


def terminate_connections(conninfo: dict, database: str) -> int:
    """Cut every connection to ``database`` but the cutting one: what a failover or database restart does."""
    with psycopg.connect(**conninfo, dbname="postgres", autocommit=True) as killer:
        return len(killer.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchall())  # fmt: skip


@dataclass
class Answer:
    status: int
    body: bytes
    elapsed_ms: float
    replayed: bool = False


@dataclass
class Outcome:
    """Everything the clients saw."""

    statuses: list[int] = field(default_factory=list)  # every answer, retried ones included
    retry_after_missing: int = 0
    no_answer: int = 0  # requests that got no answer (sent again)
    latencies: list[float] = field(default_factory=list)  # per hand request, retries included
    acknowledged: dict = field(default_factory=dict)  # (game, number) -> set of hand ids (None for the form)
    unanswered: int = 0  # requests still unanswered at the deadline
    lock: threading.Lock = field(default_factory=threading.Lock)


class Phone:
    """One phone: a token (API) or a signed-in session with its CSRF token (the form)."""

    def __init__(self, port: int, *, token: str | None = None, session: str | None = None):
        self.port, self.token, self.session, self.csrf = port, token, session, None

    def _send(self, method: str, path: str, body: bytes | None, headers: dict) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        started = time.perf_counter()
        try:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            data = response.read()
            replayed = response.getheader("Idempotent-Replayed") == "true"
            answer = Answer(response.status, data, (time.perf_counter() - started) * 1000, replayed)
            answer.retry_after = response.getheader("Retry-After")
            answer.set_cookie = response.getheader("Set-Cookie") or ""
            return answer
        finally:
            connection.close()

    def send(self, method: str, path: str, body: bytes | None, headers: dict, outcome: Outcome,
             deadline: float) -> Answer | None:  # fmt: skip
        """Send until answered with something other than a retryable status (same body, same key)."""
        started = time.perf_counter()
        pause = 0.1
        while time.monotonic() < deadline:
            try:
                answer = self._send(method, path, body, headers)
            except (OSError, http.client.HTTPException):
                with outcome.lock:
                    outcome.no_answer += 1
                time.sleep(pause)
                pause = min(1.0, pause * 2)
                continue
            with outcome.lock:
                outcome.statuses.append(answer.status)
                if answer.status == 503 and not (answer.retry_after or "").isdigit():
                    outcome.retry_after_missing += 1
            if answer.status in RETRY_STATUSES:
                time.sleep(pause)
                pause = min(1.0, pause * 2)
                continue
            answer.elapsed_ms = (time.perf_counter() - started) * 1000
            return answer
        with outcome.lock:
            outcome.unanswered += 1
        return None

    def sign_in_page(self, game: int, outcome: Outcome, deadline: float) -> None:
        """Open the scoresheet once for its CSRF token, as the browser does."""
        answer = self.send("GET", f"/games/{game}/", None, {"Cookie": f"sessionid={self.session}"}, outcome, deadline)
        self.csrf = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', answer.body).group(1).decode()
        cookie = re.search(r"csrftoken=([^;]+)", answer.set_cookie)
        self.csrf_cookie = cookie.group(1) if cookie else None

    def record(self, game: int, number: int, facts: dict, key: str, outcome: Outcome, deadline: float):
        """Send one hand; (acknowledged?, hand id or None)."""
        if self.token:
            body = json.dumps({**facts, "number": number}).encode()
            headers = {"Authorization": f"Token {self.token}", "Content-Type": "application/json",
                       "Idempotency-Key": key}  # fmt: skip
            answer = self.send("POST", f"/api/games/{game}/hands/", body, headers, outcome, deadline)
            if answer is None:
                return answer, False, None
            ok = answer.status == 201
            return answer, ok, json.loads(answer.body)["hand"]["id"] if ok else None
        form = {**facts, "action": "save", "expected_number": number, "idempotency_key": key,
                "csrfmiddlewaretoken": self.csrf}  # fmt: skip
        cookies = f"sessionid={self.session}" + (f"; csrftoken={self.csrf_cookie}" if self.csrf_cookie else "")
        headers = {"Cookie": cookies, "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true",
                   "X-CSRFToken": self.csrf}  # fmt: skip
        answer = self.send("POST", f"/games/{game}/hands/", urlencode(form).encode(), headers, outcome, deadline)
        if answer is None:
            return answer, False, None
        return answer, answer.status == 200 and f"Hand {number} saved".encode() in answer.body, None


def drive_table(table: dict, port: int, outcome: Outcome, deadline: float, hands: int, acked: threading.Semaphore):
    """Record ``hands`` hands on the table's game from two phones at once; every fourth is sent again."""
    phones = [Phone(port, **credentials) for credentials in table["phones"]]
    for phone in phones:
        if phone.session:
            phone.sign_in_page(table["game"], outcome, deadline)
    pair = ThreadPoolExecutor(2)
    try:
        for number in range(1, hands + 1):
            if time.monotonic() >= deadline:
                return
            facts = {**KNOCK, "by": table["players"][number % 2]}
            first, second = phones[number % 2], phones[(number + 1) % 2]
            keys = [uuid.uuid4().hex, uuid.uuid4().hex]
            sent = [
                pair.submit(phone.record, table["game"], number, facts, key, outcome, deadline)
                for phone, key in ((first, keys[0]), (second, keys[1]))
            ]
            answers = [future.result() for future in sent]
            if number % 4 == 0:  # the phone did not see its answer: it sends again with the same key
                answers.append(first.record(table["game"], number, facts, keys[0], outcome, deadline))
            for answer, ok, hand_id in answers:
                if answer is not None:
                    with outcome.lock:
                        outcome.latencies.append(answer.elapsed_ms)
                if ok:
                    with outcome.lock:
                        outcome.acknowledged.setdefault((table["game"], number), set()).add(hand_id)
            if not any(ok for _, ok, _ in answers):
                return  # the hand was not recorded by anyone (deadline): the table stops
            acked.release()
    finally:
        pair.shutdown()


def run(tables: list[dict], port: int, *, hands: int, seconds: float, faults=None) -> tuple[Outcome, dict]:
    """Drive every table at once; ``faults(count_of_hands_acknowledged)`` is polled while they run."""
    outcome = Outcome()
    acked = threading.Semaphore(0)
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(target=drive_table, args=(table, port, outcome, deadline, hands, acked), daemon=True)
        for table in tables
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    done = 0
    while any(thread.is_alive() for thread in threads):
        if acked.acquire(timeout=0.05):
            done += 1
            if faults:
                faults(done)
    for thread in threads:
        thread.join()
    return outcome, {"wall": time.monotonic() - started, "hands": done}
