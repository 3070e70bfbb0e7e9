"""Exactly one beat, by a PostgreSQL advisory lock (casino/ops/singlebeat.py, issue 18 item 4).

Two wrappers on the same database: the second starts nothing while the
first runs, and takes over when the first stops.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True)


def _wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.05)


def _wrapper(env, flag: Path, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    child = [sys.executable, "-c",
             f"import pathlib, time; pathlib.Path({str(flag)!r}).write_text('x'); time.sleep(600)"]
    return subprocess.Popen([sys.executable, "-m", "casino.ops.singlebeat", *child],
                            env=env, stderr=stderr, text=True)


def test_a_second_beat_waits_for_the_lock_and_takes_over(tmp_path):
    env = {**os.environ, "CASINO_DATABASE_NAME": connection.settings_dict["NAME"],
           "CASINO_BEAT_LOCK_POLL_SECONDS": "0.2"}
    check = [sys.executable, "-m", "casino.ops.singlebeat", "--check"]
    assert subprocess.run(check, env=env).returncode == 1, "no beat yet: unhealthy"
    first_flag, second_flag = tmp_path / "first", tmp_path / "second"
    first = _wrapper(env, first_flag)
    second = None
    try:
        _wait_for(first_flag.exists)
        assert subprocess.run(check, env=env).returncode == 0
        second = _wrapper(env, second_flag, subprocess.PIPE)
        # The second announces that it waits, and starts no beat while the first runs.
        assert "another beat holds the lock; waiting" in second.stderr.readline()
        time.sleep(1.0)  # five polls
        assert second.poll() is None and not second_flag.exists()
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=60)
        # The first's session ended with it: the second takes the lock and starts.
        _wait_for(second_flag.exists)
        assert subprocess.run(check, env=env).returncode == 0
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=60)
            if process is not None and process.stderr is not None:
                process.stderr.close()
