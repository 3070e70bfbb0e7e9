"""Every variant a table offers, shown down end to end through the API.

Both showdown endpoints (a running hand's showdown, and a complete hand
history) take Double Flop's two boards as `boards` (000:L2017-2034); every
other game takes its one `board`. For each variant: a correct claim settles,
a wrong one is disputed.
"""

from __future__ import annotations

import native_eval
import pytest

from casino.poker import commands, engine
from casino.roles import Role
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import funded_player, key

BOARD = "2c 7d 9h Js 4c"
# Seat 1 scoops in every game, high and low, except Double Flop.
CARDS = {
    2: {1: "As Ah", 2: "Kd Kc"},
    4: {1: "As Ah 3d 8s", 2: "Kd Kc Qh Th"},
    5: {1: "As Ah 3d 8s 5h", 2: "Kd Qc Jh 6h Tc"},
    7: {1: "As Ah Ad 2c 3c 4d 5h", 2: "Kd Kc Qh Th Tc 9s 8s"},
}
STUD_CARDS = {1: "As Ah Ad 2c 3c", 2: "Kd Kc Qh Th Tc"}   # Soko and draw: no board
DOUBLE_FLOP = {"boards": ["Ah Kd 7c 2s 3h", "Qs Jd 9c 5h 4d"],
               "hands": {1: "As Ad", 2: "Qh Qd"}}
VARIANTS = [v for v in engine.VARIANTS if v in native_eval.VARIANTS]


def _terms(variant):
    family = engine.family_of(variant)
    if family is engine.Family.STUD:
        return {"structure": "fixed_limit", "ante": "0.10", "bring_in": "0.50",
                "small_bet": "1.00", "big_bet": "2.00"}
    structure = "pot_limit" if "omaha" in variant or variant in (
        "courchevel", "sviten") else "no_limit"
    return {"structure": structure, "small_blind": "1.00", "big_blind": "2.00"}


def _open_and_seat(client, variant):
    response = post(client, "/api/v1/poker/tables", {
        "venue": "poker-helsinki", "variant": variant, "seats_max": 6,
        "buy_in_min": "50.00", "buy_in_max": "200.00", **_terms(variant)}, key=key())
    assert response.status_code == 201, response.content
    table_id = response.json()["table_id"]
    for seat in (1, 2):
        response = post(client, f"/api/v1/poker/tables/{table_id}/buy-ins",
                        {"seat": seat, "player_id": funded_player().id, "amount": "100.00"},
                        key=key())
        assert response.status_code == 201, response.content
    return table_id


def _showdown_body(variant):
    if variant == "double_flop":
        return {"boards": DOUBLE_FLOP["boards"],
                "hands": {str(s): c for s, c in DOUBLE_FLOP["hands"].items()}}
    if variant in ("stud", "stud_hilo", "razz"):
        hands, board = CARDS[7], ""
    elif variant in ("soko", "five_card_draw"):
        hands, board = STUD_CARDS, ""
    else:
        hands, board = CARDS[_hole_cards(variant)], BOARD
    return {"board": board, "hands": {str(s): c for s, c in hands.items()}}


def _hole_cards(variant):
    return {"omaha": 4, "omaha_hilo": 4}.get(
        variant, 5 if variant in ("omaha5", "omaha5_hilo", "courchevel", "sviten") else 2)


def _play_to_showdown(client, table_id, variant):
    """Start a hand and check or call it down through the API."""
    stud = engine.family_of(variant) is engine.Family.STUD
    body = {"button": 2, **({"first_seat": 1} if stud else {})}
    response = post(client, f"/api/v1/poker/tables/{table_id}/hands", body, key=key())
    assert response.status_code == 201, response.content
    hand_id = response.json()["hand_id"]
    for _ in range(40):
        state = commands.load_hand(hand_id).state
        if state.phase is engine.Phase.SHOWDOWN:
            return hand_id
        if state.phase is engine.Phase.AWAITING_STREET:
            action = {"seat": 1, "kind": "open_street"}
        elif state.bring_in_open:
            action = {"seat": state.to_act, "kind": "bring_in"}
        else:
            player = state.player(state.to_act)
            action = {"seat": player.seat,
                      "kind": "call" if player.bet_minor < state.high_bet_minor else "check"}
        response = post(client, f"/api/v1/poker/hands/{hand_id}/actions", action, key=key())
        assert response.status_code == 201, response.content
    raise AssertionError(f"{variant}: no showdown after 40 steps")


def _claims(awards):
    return [{"seat": int(seat), "amount": f"{amount // 100}.{amount % 100:02d}"}
            for seat, amount in awards.items()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_settles_a_correct_claim_and_disputes_a_wrong_one(venues, variant):
    """000:L2017-2034 and each game's rules: through the API, a wrong claimed
    result is disputed with the verified awards; the same hand at a second
    table claimed as verified settles."""
    client = client_for(Role.TABLE_CONTROLLER)
    body = _showdown_body(variant)
    disputed_hand = _play_to_showdown(client, _open_and_seat(client, variant), variant)
    pot = commands.load_hand(disputed_hand).state.pot_minor
    response = post(client, f"/api/v1/poker/hands/{disputed_hand}/showdown",
                    {**body, "claimed_awards": _claims({2: pot})}, key=key())
    assert response.status_code == 201, response.content
    disputed = response.json()
    assert disputed["state"] == "disputed"
    verified = disputed["awards_verified"]
    if variant == "double_flop":
        assert set(verified) == {"1", "2"}   # one board each (000:L2031-2032)
    else:
        assert set(verified) == {"1"}
    settled_hand = _play_to_showdown(client, _open_and_seat(client, variant), variant)
    response = post(client, f"/api/v1/poker/hands/{settled_hand}/showdown",
                    {**body, "claimed_awards": _claims(verified)}, key=key())
    assert response.status_code == 201, response.content
    settled = response.json()
    assert settled["state"] == "settled"
    assert settled["awards_verified"] == settled["awards_claimed"] == verified


def test_double_flop_complete_history_takes_both_boards(venues):
    """000:L2017-2034: a complete Double Flop history with its two boards
    settles a correct claim and disputes a wrong one."""
    client = client_for(Role.TABLE_CONTROLLER)
    actions = [{"seat": 2, "kind": "call"}, {"seat": 1, "kind": "check"},
               *[{"seat": seat, "kind": "check"} for _ in range(3) for seat in (1, 2)]]
    showdown = {"boards": DOUBLE_FLOP["boards"],
                "hands": {str(s): c for s, c in DOUBLE_FLOP["hands"].items()}}
    results = {}
    for claim in ({1: 200, 2: 200}, {1: 400}):
        table_id = _open_and_seat(client, "double_flop")
        response = post(client, f"/api/v1/poker/tables/{table_id}/hand-histories", {
            "button": 2, "actions": actions,
            "showdown": {**showdown, "claimed_awards": _claims(claim)}}, key=key())
        assert response.status_code == 201, response.content
        results[len(claim)] = response.json()
    assert results[2]["state"] == "settled"
    assert results[2]["awards_verified"] == {"1": 200, "2": 200}
    assert results[1]["state"] == "disputed"


@pytest.mark.parametrize("board_body", [
    pytest.param({"board": "Ah Kd 7c 2s 3h Qs Jd 9c 5h 4d"}, id="one_string_case"),
    pytest.param({"board": "Ah Kd 7c 2s 3h", "boards": DOUBLE_FLOP["boards"]},
                 id="both_fields_case"),
    pytest.param({"boards": ["Ah Kd 7c 2s 3h"]}, id="one_board_case"),
])
def test_double_flop_showdown_refuses_boards_in_another_shape(venues, board_body):
    """000:L2017-2034: two boards, given as `boards`; any other shape is a
    400 and the hand stays at its showdown."""
    client = client_for(Role.TABLE_CONTROLLER)
    hand_id = _play_to_showdown(client, _open_and_seat(client, "double_flop"), "double_flop")
    response = post(client, f"/api/v1/poker/hands/{hand_id}/showdown", {
        **board_body, "hands": {"1": "As Ad", "2": "Qh Qd"},
        "claimed_awards": _claims({1: 200, 2: 200})}, key=key())
    assert response.status_code == 400, response.content
    assert commands.load_hand(hand_id).state.phase is engine.Phase.SHOWDOWN
