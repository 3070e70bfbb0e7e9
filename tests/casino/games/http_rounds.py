"""Play a house-game round over HTTP and reconcile it to the ledger (issue 22).

`play` opens a table (or reuses one), opens a round, places the bets, closes
the betting, records the outcome and settles, all through /api/v1/games with
Idempotency-Key headers; `reconcile` then checks the round's projection
against the postings of its stream: every event's postings sum to zero,
the stakes account of the table is back to zero, and what the players got
back, the commission, the pool share and the house result are the sums of
the postings to their accounts.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Q

from casino.accounts import gaming_account
from casino.games.events import house_commission, house_games, round_stream, table_stakes
from casino.games.events import parse_round_id
from ledger.crossbook import CROSSBOOK_LEG
from ledger.models import Posting
from tests.casino.api.conftest import post

from .conftest import key

API = "/api/v1/games"


def open_table(client, game, config=None, venue="casino-helsinki", stake_min="1.00",
               stake_max="1000.00"):
    response = post(client, f"{API}/tables", {"venue": venue, "game": game,
                                              "config": config or {}, "stake_min": stake_min,
                                              "stake_max": stake_max}, key=key("t"))
    assert response.status_code == 201, response.json()
    return response.json()


def play(client, table_id, bets, outcome, *, in_play=()):
    """One round: `bets` before the close, `in_play` after it; returns the round body."""
    response = post(client, f"{API}/tables/{table_id}/rounds", {}, key=key("r"))
    assert response.status_code == 201, response.json()
    round_id = response.json()["round_id"]
    for when, group in (("open", bets), ("closed", in_play)):
        if when == "closed":
            closed = post(client, f"{API}/rounds/{round_id}/close", {}, key=key("c"))
            assert closed.status_code in (200, 201), closed.json()
        for player_id, kind, spec, stake in group:
            placed = post(client, f"{API}/rounds/{round_id}/bets",
                          {"player_id": player_id, "kind": kind, "spec": spec,
                           "stake": stake}, key=key("b"))
            assert placed.status_code == 201, placed.json()
    recorded = post(client, f"{API}/rounds/{round_id}/outcome", {"outcome": outcome},
                    key=key("o"))
    assert recorded.status_code in (200, 201), recorded.json()
    settled = post(client, f"{API}/rounds/{round_id}/settle", {}, key=key("s"))
    assert settled.status_code in (200, 201), settled.json()
    body = client.get(f"{API}/rounds/{round_id}").json()
    assert body["state"] == "settled", body
    return body


def round_postings(round_id) -> list[tuple[str, int]]:
    """The (account, amount) of every posting of the round's stream; each event balances.

    Book-agnostic (issue 19): with venue books the round's stream is on the
    venue's book and a player's account on the main book, so an event's
    postings to the other book are in its companion `ledger.crossbook_leg`
    (payload `stream` = the round's stream). Those count as the event's; the
    `clearing/` postings that balance each book's part are left out.
    """
    stream = round_stream(*parse_round_id(round_id))
    rows = list(Posting.objects.filter(
        Q(event__stream=stream)
        | Q(event__type=CROSSBOOK_LEG, event__payload__stream=stream))
        .values_list("event_id", "account_id", "amount_minor"))
    by_event: dict[int, int] = defaultdict(int)
    for event_id, _, amount in rows:
        by_event[event_id] += amount
    assert rows and all(total == 0 for total in by_event.values()), by_event
    return [(account, amount) for _, account, amount in rows
            if not account.startswith("clearing/")]


def reconcile(body, venue="casino-helsinki", game=None) -> dict[str, int]:
    """The round's projection equals its postings; returns the net per account."""
    legs = round_postings(body["round_id"])
    sums: dict[str, int] = defaultdict(int)
    for account, amount in legs:
        sums[account] += amount
    assert sums.get(table_stakes(body["table_id"]), 0) == 0   # every stake settled out
    accounts = {gaming_account(bet["player_id"]) for bet in body["bets"]}
    # Liability accounts: a stake debits (+), a return credits (-).
    staked = sum(a for account, a in legs if account in accounts and a > 0)
    returned = -sum(a for account, a in legs if account in accounts and a < 0)
    assert staked == body["staked_minor"]
    assert returned == body["returned_minor"]
    if game is not None:
        assert -sums.get(house_commission(venue, game), 0) == body["commission_minor"]
        assert -sums.get(house_games(venue, game), 0) == body["house_minor"]
    pools = -sum(v for account, v in sums.items() if account.startswith(f"jackpot/{venue}/"))
    assert pools == body["contribution_minor"]
    assert (body["staked_minor"] == body["returned_minor"] + body["commission_minor"]
            + body["contribution_minor"] + body["house_minor"])
    return dict(sums)
