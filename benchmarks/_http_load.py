"""The HTTP load both API benchmarks share: gunicorn's shape and the client loop.

`api_load.py` (the product's API) and `api_floor.py` (a minimal DRF endpoint,
the floor on this box) must be measured the same way for their ratio to
mean anything, so the server's start, the client processes and the summary
live here once. A benchmark supplies only a picklable *mix*: an object whose
`next_request()` returns `(kind, token, path, body)` for the next request.

Each client is a process with one keep-alive HTTP connection, sending
requests back to back until its time is up; every request carries its own
Idempotency-Key, and latency is measured by the client from send to last
byte. A request counts as written only on 201; a 409 (a conflict) is counted
apart from the other errors, and both count as errors in the figure line.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

ROOT = Path(__file__).resolve().parent.parent

# (kind, seconds from send to last byte, HTTP status)
Sample = tuple[str, float, int]


class Mix(Protocol):
    def next_request(self) -> tuple[str, str, str, dict]:
        """Return (kind, token, path, JSON body) of the next request."""


def free_port() -> int:
    """Return a TCP port on loopback that is free now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_gunicorn(app: str, *, port: int, workers: int, threads: int,
                   env: dict[str, str], pythonpath: str | None = None
                   ) -> subprocess.Popen:
    """Start gunicorn (gthread workers) serving `app` on 127.0.0.1:port."""
    command = [sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}",
               "--workers", str(workers), "--worker-class", "gthread",
               "--threads", str(threads), "--log-level", "warning"]
    if pythonpath:
        command += ["--pythonpath", pythonpath]
    return subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)


def wait_for(port: int, process: subprocess.Popen, path: str, timeout: float = 60) -> None:
    """Return once the server answers a GET of `path` (any status)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited before it served")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("gunicorn did not answer")


def stop_gunicorn(server: subprocess.Popen | None) -> None:
    """Stop a server this process started (its own process group)."""
    if server is not None and server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def _client(port: int, seconds: float, mix: Mix, results: multiprocessing.Queue) -> None:
    """One client: one keep-alive connection, requests back to back until time is up."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    samples: list[Sample] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        kind, token, path, body = mix.next_request()
        payload = json.dumps(body)
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json",
                   "Idempotency-Key": uuid.uuid4().hex}
        began = time.perf_counter()
        conn.request("POST", path, payload, headers)
        response = conn.getresponse()
        response.read()
        samples.append((kind, time.perf_counter() - began, response.status))
    conn.close()
    results.put(samples)


def run_clients(port: int, seconds: float, mixes: list[Mix]) -> tuple[list[Sample], float]:
    """Run one client process per mix, all at once; return samples and wall time."""
    results: multiprocessing.Queue = multiprocessing.Queue()
    clients = [multiprocessing.Process(target=_client, args=(port, seconds, mix, results))
               for mix in mixes]
    began = time.perf_counter()
    for process in clients:
        process.start()
    samples = [sample for _ in clients for sample in results.get()]
    for process in clients:
        process.join()
    return samples, time.perf_counter() - began


def percentile(values: list[float], fraction: float) -> float:
    """Return the value at `fraction` of the sorted values (0.0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass(frozen=True)
class Summary:
    writes_per_s: float
    p50_ms: float
    p99_ms: float
    errors: int
    conflicts: int


def report(samples: list[Sample], elapsed: float, kinds: tuple[str, ...], *,
           clients: int, workers: int, threads: int) -> Summary:
    """Print the per-kind table and the statuses; return the run's summary.

    Latency percentiles are over the written (201) requests. `errors` counts
    every other answer, 409s included; `conflicts` counts the 409s alone.
    """
    ok = [s for s in samples if s[2] == 201]
    print(f"{'kind':<11} {'written':>8} {'409':>6} {'other':>6} {'p50 ms':>8}"
          f" {'p99 ms':>8} {'mean ms':>8}")
    for kind in kinds:
        of_kind = [s for s in samples if s[0] == kind]
        latencies = [1000 * s[1] for s in of_kind if s[2] == 201]
        conflicts = sum(1 for s in of_kind if s[2] == 409)
        other = len(of_kind) - len(latencies) - conflicts
        mean = sum(latencies) / len(latencies) if latencies else 0.0
        print(f"{kind:<11} {len(latencies):>8} {conflicts:>6} {other:>6}"
              f" {percentile(latencies, 0.5):>8.1f} {percentile(latencies, 0.99):>8.1f}"
              f" {mean:>8.1f}")
    statuses: dict[int, int] = {}
    for _, _, status in samples:
        statuses[status] = statuses.get(status, 0) + 1
    print(f"statuses: {dict(sorted(statuses.items()))}; {clients} clients,"
          f" gunicorn {workers} x {threads} threads, {elapsed:.1f} s", flush=True)
    latencies = [1000 * s[1] for s in ok]
    return Summary(writes_per_s=len(ok) / elapsed, p50_ms=percentile(latencies, 0.5),
                   p99_ms=percentile(latencies, 0.99), errors=len(samples) - len(ok),
                   conflicts=statuses.get(409, 0))
