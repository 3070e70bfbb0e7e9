"""Every write operation of the OpenAPI schema walked through the Idempotency-Key cases.

Issue 13, point 2: under one key,
- the same client with the same request gets the original status and body
  again, marked `Idempotent-Replayed: true`, and nothing is written;
- the same client with another request gets 409 `idempotency_key_reused`,
  and nothing is written;
- another client (another token's principal, same role) with the same
  request is an independent request: its own 2xx and events, or, where a
  business rule refuses a second identical request, that rule's code, never
  the first client's answer replayed.

The write operations come from the generated schema, so a write added
without a row here fails `test_every_write_operation_has_a_row`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from drf_spectacular.generators import SchemaGenerator

from casino.roles import Role
from ledger.models import Event
from tests.casino.conftest import make_player

from . import walk_back_office as back
from tests.casino.privacy import walk as privacy_walk
from tests.casino.webhooks import walk as webhooks_walk
from . import walk_world as w
from .walk_world import AlreadyDone, Independent, NoOtherRequest, Refused, Row

WRITE_METHODS = ("post", "put", "patch", "delete")
KEY = "walk-key-1"
REPLAYED = "Idempotent-Replayed"


@dataclass(frozen=True)
class Entry:
    build: Callable[[], Row]
    other_client: Independent | Refused | AlreadyDone = Independent()
    other_request: NoOtherRequest | None = None     # None: a 409 is expected


def _taken(code: str, why: str, status: int = 409) -> Refused:
    return Refused(status, code, why)


# operationId -> how to build its preconditions, and what another client's
# identical request meets.
WALK: dict[str, Entry] = {
    # cage
    "v1_cage_deposits_create": Entry(w.cage("deposits", "method")),
    "v1_cage_withdrawals_create": Entry(w.cage("withdrawals", "method")),
    "v1_cage_chip_purchases_create": Entry(w.cage("chip-purchases", "paid_with")),
    "v1_cage_chip_redemptions_create": Entry(w.cage("chip-redemptions", "paid_to")),
    # players
    "v1_players_create": Entry(w.register, _taken(
        "players.duplicate_identity", "one player per identity document")),
    "v1_players_verification_create": Entry(w.verify, _taken(
        "players.already_verified", "a player's identity is verified once")),
    "v1_players_self_exclusion_create": Entry(w.self_exclude, _taken(
        "players.self_exclusion_active", "a running self-exclusion cannot be changed (002:L3086)")),
    "v1_players_limits_create": Entry(w.set_limit),
    # compliance: corrections, cases, alerts, the chain
    "v1_corrections_create": Entry(w.propose),
    "v1_corrections_approve_create": Entry(w.decide_correction("approve"), _taken(
        "compliance.correction_not_pending", "a correction is decided once")),
    "v1_corrections_reject_create": Entry(w.decide_correction("reject"), _taken(
        "compliance.correction_not_pending", "a correction is decided once")),
    "v1_compliance_cases_create": Entry(w.open_case, _taken(
        "compliance.alert_already_handled", "an alert is handled by one case")),
    "v1_compliance_cases_state_create": Entry(w.case_state, _taken(
        "compliance.case_transition_not_allowed", "the case is already investigating")),
    "v1_compliance_cases_notes_create": Entry(w.case_note),
    "v1_compliance_cases_events_create": Entry(w.case_events, AlreadyDone(
        "the positions are linked to the case already")),
    "v1_compliance_alert_dismissals_create": Entry(w.dismiss_alert, _taken(
        "compliance.alert_already_handled", "an alert is dismissed once")),
    "v1_compliance_chain_verifications_create": Entry(
        w.verify_chain, Independent(),
        NoOtherRequest("POST takes no body and no path parameter: one request only")),
    # games
    "v1_games_tables_create": Entry(w.game_table),
    "v1_games_tables_rounds_create": Entry(w.game_round, _taken(
        "games.round_running", "one round at a time at a table")),
    "v1_games_rounds_bets_create": Entry(w.game_bet),
    "v1_games_rounds_close_create": Entry(w.game_close, _taken(
        "games.wrong_state", "betting closes once")),
    "v1_games_rounds_outcome_create": Entry(w.game_outcome, _taken(
        "games.wrong_state", "a round has one outcome")),
    "v1_games_rounds_settle_create": Entry(w.game_settle, _taken(
        "games.wrong_state", "a round settles once")),
    "v1_games_rounds_void_create": Entry(w.game_void, _taken(
        "games.wrong_state", "a round is voided once")),
    # jackpots
    "v1_jackpots_pools_create": Entry(w.open_pool, AlreadyDone(
        "a venue has one pool of a kind: opening it again answers the pool")),
    "v1_jackpots_pools_rollups_create": Entry(w.rollup, _taken(
        "jackpots.gaming_day_already_rolled_up", "a day rolls up once, never twice")),
    "v1_jackpots_hits_approve_create": Entry(w.hit_decision("approve"), _taken(
        "jackpots.hit_not_pending", "a hit is decided once")),
    "v1_jackpots_hits_reject_create": Entry(w.hit_decision("reject"), _taken(
        "jackpots.hit_not_pending", "a hit is decided once")),
    "v1_jackpots_hits_pay_create": Entry(w.hit_decision("pay"), _taken(
        "jackpots.hit_not_approved", "a hit is paid once")),
    "v1_jackpots_pools_terms_create": Entry(w.post_jackpot_terms),   # posted again, recorded
    "v1_sitngo_series_create": Entry(w.post_sitngo_series),
    "v1_sitngo_series_tournaments_create": Entry(w.record_sitngo_tournament, _taken(
        "sitngo.already_recorded", "a finished sit'n'go counts once")),
    "v1_tournaments_unregistrations_create": Entry(w.unregister, _taken(
        "tournaments.not_entered", "a player withdraws once", 422)),
    # reports
    "v1_reports_closes_create": Entry(w.close_day, AlreadyDone(
        "a venue's gaming day closes once: closing it again answers the close")),
    # tournaments
    "v1_tournaments_create": Entry(w.announce),
    "v1_tournaments_registration_create": Entry(w.open_registration, _taken(
        "tournaments.wrong_phase", "registration opens once")),
    "v1_tournaments_entries_create": Entry(w.enter, _taken(
        "tournaments.already_registered", "one entry a player (001:L306)", 422)),
    "v1_tournaments_rebuys_create": Entry(w.rebuy, _taken(
        "tournaments.rebuys_exhausted", "one rebuy a player", 422)),
    "v1_tournaments_add_ons_create": Entry(w.add_on, _taken(
        "tournaments.add_on_taken", "one add-on a player", 422)),
    "v1_tournaments_start_create": Entry(w.start, _taken(
        "tournaments.wrong_phase", "a tournament starts once")),
    "v1_tournaments_prize_pool_create": Entry(w.fix_prize_pool, _taken(
        "tournaments.wrong_phase", "the pool is fixed once")),
    "v1_tournaments_draw_create": Entry(w.draw, _taken(
        "tournaments.wrong_phase", "a HexaPro pool is drawn once")),
    "v1_tournaments_eliminations_create": Entry(w.eliminate, _taken(
        "tournaments.not_in_play", "a player is eliminated once", 422)),
    "v1_tournaments_disqualifications_create": Entry(w.disqualify, _taken(
        "tournaments.already_disqualified", "a player is disqualified once", 422)),
    "v1_tournaments_exclusions_create": Entry(w.exclude, _taken(
        "tournaments.not_in_play", "a player is excluded once", 422)),
    "v1_tournaments_deals_create": Entry(w.deal),   # recorded again, as agreed again
    "v1_tournaments_special_prizes_create": Entry(w.award_special_prize, _taken(
        "tournaments.special_prize_awarded", "a special prize is paid once", 422)),
    "v1_tournaments_finish_create": Entry(w.finish, _taken(
        "tournaments.wrong_phase", "a tournament is paid out once")),
    "v1_tournaments_cancel_create": Entry(w.cancel, _taken(
        "tournaments.wrong_phase", "a tournament is cancelled once")),
    # machines
    "v1_machine_premises_create": Entry(w.machine_premises),   # posted again
    "v1_machines_create": Entry(w.register_machine, _taken(
        "machines.machine_exists", "a machine id is registered once")),
    # Another client's batch replays each round (keyed by the machine's round
    # id, not by client) and records its own batch answer.
    "v1_machines_rounds_create": Entry(w.machine_rounds),
    "v1_machines_cash_ins_create": Entry(w.machine_cash_in),
    "v1_machines_cash_outs_create": Entry(w.machine_cash_out, _taken(
        "machines.nothing_to_cash_out", "the credit went out on the first voucher")),
    "v1_vouchers_redemptions_create": Entry(w.voucher_redemption, _taken(
        "machines.voucher_redeemed", "a voucher is redeemed exactly once")),
    "v1_machine_jackpots_create": Entry(w.configure_machine_jackpot, _taken(
        "machines.jackpot_exists", "a jackpot id is posted once")),
    "v1_machine_jackpots_hits_create": Entry(w.machine_jackpot_hit, _taken(
        "machines.jackpot_already_paid", "a round's hit of a jackpot is paid once")),
    "v1_machines_malfunction_credits_create": Entry(w.propose_malfunction_credit),
    "v1_malfunction_credits_approve_create": Entry(w.decide_malfunction_credit("approve"),
                                                   _taken("machines.malfunction_credit_decided",
                                                          "a malfunction credit is decided once")),
    "v1_malfunction_credits_reject_create": Entry(w.decide_malfunction_credit("reject"),
                                                  _taken("machines.malfunction_credit_decided",
                                                         "a malfunction credit is decided once")),
    "v1_slot_tournaments_create": Entry(w.announce_slot_tournament, _taken(
        "machines.slot_tournament_exists", "a slot tournament id is announced once")),
    "v1_slot_tournaments_prizes_create": Entry(w.publish_slot_prizes),  # published again
    "v1_slot_tournaments_entries_create": Entry(w.enter_slot_tournament),  # another entry
    "v1_slot_tournaments_start_create": Entry(w.start_slot_tournament, _taken(
        "machines.slot_tournament_state", "a slot tournament starts once")),
    "v1_slot_tournaments_finish_create": Entry(w.finish_slot_tournament, _taken(
        "machines.slot_tournament_state", "a slot tournament is paid out once")),
    "v1_machine_meters_reconciliations_create": Entry(w.reconcile_machine_meters),  # again
    "v1_machines_pay_outs_create": Entry(w.machine_pay_out, _taken(
        "machines.nothing_to_cash_out", "the credit went out on the first pay-out")),
    # venues
    "v1_venues_create": Entry(w.register_venue, _taken(
        "rules.venue_exists", "a venue code is registered once")),
    "v1_venues_changes_create": Entry(w.change_venue),   # changed again
    # poker
    "v1_poker_tables_create": Entry(w.poker_table),
    "v1_poker_tables_buy_ins_create": Entry(w.buy_in),   # the seated player tops up
    "v1_poker_tables_cash_outs_create": Entry(w.cash_out, _taken(
        "poker.seat_empty", "a player cashes out once")),
    "v1_poker_tables_time_charges_create": Entry(w.time_charge),
    "v1_poker_tables_hands_create": Entry(w.start_hand, _taken(
        "poker.hand_in_progress", "one hand at a time at a table")),
    "v1_poker_tables_hand_histories_create": Entry(w.hand_history),
    "v1_poker_hands_actions_create": Entry(w.act, _taken(
        "poker.not_your_turn", "seat 1 has acted; seat 2 is to act", 422)),
    "v1_poker_hands_showdown_create": Entry(w.showdown, _taken(
        "poker.hand_finished", "a hand shows down once")),
    "v1_poker_hands_void_create": Entry(w.void_hand, _taken(
        "poker.hand_finished", "a hand is voided once")),
    "v1_poker_hands_decision_create": Entry(w.decide_dispute, _taken(
        "poker.hand_finished", "a dispute is decided once")),
    # cashier windows and table-games accounting (issue 17)
    "v1_cashier_shifts_create": Entry(back.open_window, Refused(
        409, "cashier.window_busy", "a window holds one open shift")),
    "v1_cashier_shift_closes_create": Entry(back.close_window, Refused(
        409, "cashier.no_open_shift", "a shift closes once")),
    "v1_cashier_transfers_create": Entry(back.transfer, Refused(
        400, "cashier.signatures_required", "the other user did not sign the slip")),
    "v1_tablegames_openings_create": Entry(lambda: back.table_write("openings"), Refused(
        409, "tablegames.table_open", "a table opens once")),
    "v1_tablegames_fills_create": Entry(lambda: back.table_write("fills"), Refused(
        400, "tablegames.signatures_required", "the other user did not sign the slip")),
    "v1_tablegames_credits_create": Entry(lambda: back.table_write("credits"), Refused(
        400, "tablegames.signatures_required", "the other user did not sign the slip")),
    "v1_tablegames_closes_create": Entry(lambda: back.table_write("closes"), Refused(
        409, "tablegames.table_not_open", "a table closes once")),
    "v1_tablegames_soft_counts_create": Entry(lambda: back.table_write("soft-counts"), Refused(
        409, "tablegames.nothing_to_count", "a drop box is counted once")),
    # webhooks (issue 18 item 2)
    "v1_webhooks_subscriptions_create": Entry(webhooks_walk.subscribe),
    "v1_webhooks_subscriptions_secrets_create": Entry(webhooks_walk.rotate_secret, Refused(
        404, "webhooks.unknown_subscription", "a client rotates only its own subscription")),
    # erasure of personal data (issue 18 item 8)
    "v1_players_erasures_create": Entry(privacy_walk.propose, _taken(
        "privacy.erasure_exists", "a player's erasure is proposed once")),
    "v1_players_erasures_approve_create": Entry(privacy_walk.approve, _taken(
        "privacy.erasure_not_proposed", "an erasure is approved once")),
}
NAMES = sorted(WALK)
# POSTs that are queries: they write nothing and take no Idempotency-Key, so
# there is no key to walk; checked below rather than left out silently.
QUERIES = {
    "v1_checks_stake_create": ("/api/v1/checks/stake", {
        "venue": "casino-helsinki", "game": "roulette", "bet_unit": "numbers_1",
        "currency": "EUR", "amount": "600.00"}),
}


def _write_operations() -> dict[str, tuple[str, str, dict]]:
    """operationId -> (method, path template, operation) of every write under /api/v1/."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {operation["operationId"]: (method, path, operation)
            for path, operations in schema["paths"].items() if path.startswith("/api/v1/")
            for method, operation in operations.items() if method in WRITE_METHODS}


@pytest.fixture(scope="module")
def write_operations() -> dict[str, tuple[str, str, dict]]:
    return _write_operations()


def _events() -> int:
    return Event.objects.count()


def _send(client, url: str, body, key: str = KEY):
    return client.post(url, body, format="json", headers={"Idempotency-Key": key})


def _json(response):
    return response.json() if response.content else None


def _code(body) -> str | None:
    return body.get("code") if isinstance(body, dict) else None


def _first(row: Row):
    """The first request: a success that writes."""
    before = _events()
    first = _send(row.client, row.url, row.body)
    assert 200 <= first.status_code < 300, (first.status_code, _json(first))
    assert not first.has_header(REPLAYED)
    assert _events() > before, "the first request wrote no event"
    return first


def test_every_write_operation_has_a_row(write_operations):
    """A write in the schema without a row in the walk (or a row for a write
    that no longer exists) fails here."""
    assert sorted(write_operations) == sorted([*WALK, *QUERIES])
    # + issue 15's machines and venues, issue 17's cashier and table games,
    # issue 14's posted terms, withdrawals and special prizes, issue 22's
    # sit'n'go jackpots, issue 18's webhooks and erasures
    assert len(write_operations) == 61 + 14 + 8 + 5 + 2 + 2


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_query_posted_takes_no_key_and_writes_nothing(venues, name, write_operations):
    """The stake check is a dry run: no Idempotency-Key parameter, no event."""
    _, _, operation = write_operations[name]
    assert "Idempotency-Key" not in {p["name"] for p in operation.get("parameters", [])}
    url, body = QUERIES[name]
    player = make_player()
    before = _events()
    response = w.client_for(Role.TABLE_CONTROLLER).post(
        url, {**body, "player_id": player.id}, format="json")
    assert response.status_code == 200, _json(response)
    assert _events() == before


@pytest.mark.parametrize("name", NAMES)
def test_the_same_key_and_request_answers_the_first_answer_again(venues, name):
    """The original status and body, `Idempotent-Replayed: true`, no event."""
    row = WALK[name].build()
    first = _first(row)
    written = _events()
    again = _send(row.client, row.url, row.body)
    assert (again.status_code, _json(again)) == (first.status_code, _json(first))
    assert again.get(REPLAYED) == "true", (again.status_code, _events() - written)
    assert _events() == written


@pytest.mark.parametrize("name", NAMES)
def test_the_same_key_with_another_request_is_a_409(venues, name, write_operations):
    """409 `idempotency_key_reused`, and nothing written."""
    entry = WALK[name]
    row = entry.build()
    if entry.other_request is not None:
        # The claim that there is no other request is checked against the schema.
        _, path, operation = write_operations[name]
        assert "requestBody" not in operation
        assert "{" not in path
        assert row.other_body is None
        _first(row)
        return
    _first(row)
    written = _events()
    response = _send(row.client, row.other_url, row.other_body)
    body = _json(response)
    assert (response.status_code, _code(body)) == (409, "request.idempotency_key_reused"), \
        (response.status_code, body, _events() - written)
    assert not response.has_header(REPLAYED)
    assert _events() == written


@pytest.mark.parametrize("name", NAMES)
def test_the_same_key_from_another_client_is_an_independent_request(venues, name):
    """Another principal's key is its own: its own answer, never the first replayed."""
    entry = WALK[name]
    row = entry.build()
    first = _first(row)
    written = _events()
    response = _send(row.other_client, row.url, row.body)
    body, wrote = _json(response), _events() - written
    assert not response.has_header(REPLAYED), (response.status_code, body, wrote)
    expected = entry.other_client
    if isinstance(expected, Independent):
        assert 200 <= response.status_code < 300 and wrote > 0, (response.status_code, body, wrote)
    elif isinstance(expected, AlreadyDone):
        assert 200 <= response.status_code < 300 and wrote == 0, (response.status_code, body, wrote)
    else:
        assert (response.status_code, _code(body)) == (
            expected.status, expected.code), (response.status_code, body, wrote)
        assert body != _json(first)
