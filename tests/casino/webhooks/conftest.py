"""Fixtures of the webhook tests: a real HTTP receiver, subscribing clients, deposits."""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.test import APIClient

from casino.cage.commands import deposit
from casino.keys.models import ClientKey
from casino.roles import Role, ensure_role_groups
from tests.casino.conftest import make_player, venues  # noqa: F401 - re-exported fixture

_names = itertools.count(1)


@dataclass
class Received:
    position: int
    stream: str
    body: bytes
    headers: dict[str, str]

    @property
    def event(self) -> dict:
        return json.loads(self.body)["event"]


@dataclass
class Receiver:
    """A local HTTP server that records every POST and answers as told.

    `fail[position]` answers that many attempts of a position with 500
    before a 200; `hold` (an Event) makes the next request wait until it
    is set, after setting `holding`.
    """

    url: str = ""
    received: list[Received] = field(default_factory=list)
    fail: dict[int, int] = field(default_factory=dict)
    hold: threading.Event | None = None
    holding: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def positions(self) -> list[int]:
        with self.lock:
            return [r.position for r in self.received]

    def first_receipts(self) -> list[Received]:
        """Each position once, at its first receipt (what a deduplicating receiver keeps)."""
        seen, kept = set(), []
        with self.lock:
            for receipt in self.received:
                if receipt.position not in seen:
                    seen.add(receipt.position)
                    kept.append(receipt)
        return kept


def _handler(receiver: Receiver):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            position = int(self.headers["Casino-Event-Position"])
            stream = json.loads(body)["event"]["stream"]
            with receiver.lock:
                receiver.received.append(Received(position, stream, body, dict(self.headers)))
                failing = receiver.fail.get(position, 0)
                if failing:
                    receiver.fail[position] = failing - 1
                hold, receiver.hold = receiver.hold, None
            if hold is not None:
                receiver.holding.set()
                hold.wait(30)
            self.send_response(500 if failing else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    return Handler


@pytest.fixture
def receiver():
    state = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    if state.hold is not None:
        state.hold.set()
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def webhook_settings(settings):
    """No cache period (a subscription is matched at once), no kicks (tests send)."""
    settings.WEBHOOKS_SUBSCRIPTIONS_CACHE_SECONDS = 0
    settings.WEBHOOKS_KICK = False
    settings.WEBHOOKS_BACKOFF_BASE_SECONDS = 0
    settings.WEBHOOKS_TIMEOUT_SECONDS = 10
    from casino.webhooks.projections import invalidate

    invalidate()
    yield settings
    invalidate()


def client_in(role: Role, venues=()) -> APIClient:
    """A client with a hashed API key (venue-scoped when `venues`), in `role`."""
    ensure_role_groups()
    user = User.objects.create_user(f"{role}-hooks-{next(_names)}")
    user.groups.add(Group.objects.get(name=role))
    _, key = ClientKey.objects.issue(user=user, name="hooks", venues=venues)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.user = user
    return client


def _pk(answer: dict) -> int:
    """The database id of a subscription the API answered (its `id` is the public id)."""
    from casino.webhooks.models import Subscription

    return Subscription.objects.get(public_id=answer["id"]).pk


def subscribe(client: APIClient, url: str, *, key: str = "sub-1", **body):
    return client.post("/api/v1/webhooks/subscriptions", {"url": url, **body}, format="json",
                       headers={"Idempotency-Key": key})


_deposits = itertools.count(1)


def cash_deposit(player_id: str, venue: str = "casino-helsinki", amount_minor: int = 100_00,
                 at=None):
    return deposit(player_id=player_id, venue=venue, amount_minor=amount_minor,
                   currency="EUR", actor="cage-1", idempotency_key=f"dep-{next(_deposits)}",
                   at=at)


@pytest.fixture
def players(venues):  # noqa: F811 - the re-exported fixture
    return [make_player(), make_player()]
