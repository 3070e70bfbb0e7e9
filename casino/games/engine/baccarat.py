"""Punto Banco (house-banked) and Baccara (player-banked): coups and bets (pure).

Card points: 10 and faces 0, ace 1, others their pips; a total is mod 10
(002:L2752). The drawing tables are rulebook rows (`games.punto_banco.drawing`
002:L2777-2797, `games.baccara.drawing` 002:L2840-2867): `punto_action` and
`banco_action` read them, and `check_coup` verifies that the cards recorded
for a coup are the ones those tables make each side take, so a coup dealt
against the rules is refused rather than settled.

Punto Banco settlement (002:L2765-2773): the higher total wins; on a tie
égalité pays 8:1 and punto and banco push; banco pays 1:1 less 5 %
commission, or in the no-commission version 1:1 except 1:2 on a banco win
with 6 (or 5) (decision games.punto_banco.no_commission). A table may post a
minimum commission (`commission_minor_min`, 002:L2799): a banco win's
commission is then at least that amount, never more than the win itself
(decision games.punto_banco.commission_min).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .common import (
    BetInvalid,
    BetKind,
    OutcomeInvalid,
    Row,
    Settled,
    commission_of,
    find_row,
    lose,
    parse_cards,
    passed_of,
    passes_due,
    pay,
    push,
    result_of,
)

PAYOUTS = "games.punto_banco.payouts"
DRAWING = "games.punto_banco.drawing"
BACCARA_DRAWING = "games.baccara.drawing"
BANCO_RULES = ("commission", "no_commission_6", "no_commission_5")


def points(card: str) -> int:
    special = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
    return special[card[0]] if card[0] in special else int(card[0])


def total(cards: Sequence[str]) -> int:
    return sum(points(c) for c in cards) % 10


def _row(rows: Sequence[Row], side: str, two_card_total: int) -> Row:
    for row in rows:
        if row["side"] == side and two_card_total in row["totals"]:
            return row
    raise KeyError(f"the drawing table has no {side} row for {two_card_total}")


def punto_action(rows: Sequence[Row], two_card_total: int) -> str:
    """draw | stand | natural | option (Baccara's 5) for punto's first two cards."""
    return _row(rows, "punto", two_card_total)["action"]


def banco_action(rows: Sequence[Row], two_card_total: int, punto_third: int | None,
                 punto_natural: bool = False) -> str:
    """draw | stand | natural | option for banco, given punto's third card's points.

    `punto_third` is None when punto stood; a punto natural ends the coup
    (002:L2783: no card for banco).
    """
    row = _row(rows, "banco", two_card_total)
    if row.get("action") == "natural":
        return "natural"
    if punto_natural:
        return "stand"
    if punto_third is None:
        return row["punto_stood"]
    if punto_third in row.get("options_on", ()):
        return "option"
    return "draw" if punto_third in row["draws_on"] else "stand"


def check_coup(rows: Sequence[Row], punto: Sequence[str], banco: Sequence[str],
               choices: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """Verify a coup's cards against the drawing table; return both totals.

    `choices` gives, where the table leaves the side a choice ('option'),
    whether it drew ({"punto": True}); the cards must agree with it.
    """
    choices = choices or {}
    if len(punto) not in (2, 3) or len(banco) not in (2, 3):
        raise OutcomeInvalid("punto and banco each hold two or three cards")
    p2, b2 = total(punto[:2]), total(banco[:2])
    p_action = punto_action(rows, p2)
    b_first = _row(rows, "banco", b2).get("action")
    if b_first == "natural":
        p_action = "stand" if p_action != "natural" else p_action
    if p_action == "option":
        p_action = "draw" if choices.get("punto", len(punto) == 3) else "stand"
    if (len(punto) == 3) != (p_action == "draw"):
        raise OutcomeInvalid(f"punto with {p2} must {'draw' if p_action == 'draw' else 'stand'}"
                             " by the drawing table")
    third = points(punto[2]) if len(punto) == 3 else None
    b_action = banco_action(rows, b2, third, punto_natural=p_action == "natural")
    if b_action == "option":
        b_action = "draw" if choices.get("banco", len(banco) == 3) else "stand"
    if (len(banco) == 3) != (b_action == "draw"):
        raise OutcomeInvalid(f"banco with {b2} must {'draw' if b_action == 'draw' else 'stand'}"
                             f" (punto's third card: {third}) by the drawing table")
    return {"punto": list(punto), "banco": list(banco),
            "punto_total": total(punto), "banco_total": total(banco)}


class PuntoBanco:
    id = "punto_banco"
    tables = (PAYOUTS, DRAWING)

    def configure(self, config, tables):
        unknown = set(config) - {"banco", "commission_minor_min"}
        if unknown:
            raise BetInvalid(f"punto banco takes banco and commission_minor_min, got"
                             f" {sorted(unknown)}")
        banco = config.get("banco", "commission")
        if banco not in BANCO_RULES:
            raise BetInvalid(f"banco must be one of {', '.join(BANCO_RULES)}")
        clean: dict[str, Any] = {"banco": banco}
        if "commission_minor_min" in config:
            # 002:L2799: a minimum the table posts; only where a commission is taken.
            minimum = config["commission_minor_min"]
            if type(minimum) is not int or minimum <= 0:
                raise BetInvalid("commission_minor_min must be a positive whole number of"
                                 " cents")
            if banco != "commission":
                raise BetInvalid("a minimum commission needs the commission version"
                                 " (banco: commission)")
            clean["commission_minor_min"] = minimum
        return clean

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind not in ("punto", "banco", "egalite"):
            raise BetInvalid(f"punto banco has no bet {kind!r}")
        row = find_row(tables[PAYOUTS], kind)
        return BetKind(kind, {}, row["bet_unit"], kind)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        punto = parse_cards(outcome.get("punto"), what="punto")
        banco = parse_cards(outcome.get("banco"), what="banco")
        return check_coup(tables[DRAWING], punto, banco)

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        rows = tables[PAYOUTS]
        p, b = outcome["punto_total"], outcome["banco_total"]
        facts = {"punto_total": p, "banco_total": b}
        settled = []
        for bet in bets:
            if bet.kind == "egalite":
                row = find_row(rows, "egalite")
                settled.append(pay(bet, PAYOUTS, row, **facts) if p == b
                               else lose(bet, PAYOUTS, row, row["cite"], **facts))
                continue
            row = self._row(rows, bet.kind, config["banco"], b)
            if p == b:
                settled.append(push(bet, PAYOUTS, row, row["cite"], **facts))
            elif (p > b) == (bet.kind == "punto"):
                won = pay(bet, PAYOUTS, row,
                          commission_basis_points=row.get("commission_basis_points", 0),
                          **facts)
                settled.append(self._minimum_commission(won, config))
            else:
                settled.append(lose(bet, PAYOUTS, row, row["cite"], **facts))
        return settled

    @staticmethod
    def _minimum_commission(won: Settled, config: Mapping[str, Any]) -> Settled:
        """A banco win's commission raised to the table's posted minimum (002:L2799).

        Decision games.punto_banco.commission_min: never more than the win,
        so a winning banco stake always comes back whole.
        """
        minimum = config.get("commission_minor_min", 0)
        if not won.commission_minor or won.commission_minor >= minimum:
            return won
        win = won.returned_minor + won.commission_minor - won.stake_minor
        commission = min(minimum, win)
        return Settled(won.bet_id, won.stake_minor, won.stake_minor + win - commission,
                       result_of(won.stake_minor, won.stake_minor + win - commission),
                       won.table, won.row, won.cite, commission,
                       {**won.detail, "commission_minor_min": minimum,
                        "commission_min_cite": "002:L2799"})

    @staticmethod
    def _row(rows, kind: str, banco_rule: str, banco_total: int) -> Row:
        if kind == "punto" or banco_rule == "commission":
            return find_row(rows, kind)
        on = int(banco_rule[-1])
        return find_row(rows, f"banco_no_commission_on_{on}" if banco_total == on
                        else "banco_no_commission")


# ---------------------------------------------------------------------------
# Baccara: player-banked (002:L2801-2869)
# ---------------------------------------------------------------------------

BACCARA_PAYOUTS = "games.baccara.payouts"


PUNTO_SIDE = ("punto", "banco_solo", "avec_la_table")
SEATS_MAX = 12         # a chemin-de-fer table's seats (a named bound)
BANK_SIDE = ("banco", "banco_avec")


class Baccara:
    """Baccara, chemin-de-fer style: one player holds the bank, the others play punto.

    The casino only organises and takes 5 % of the punto stakes the bank
    wins (002:L2803, L2813). The bank (`banco`, one player, placed first)
    covers the punto side: together its stakes may not exceed it, the part
    above is void (002:L2811, decision games.baccara.cover). A bank win takes
    the punto side's stakes less the commission; a punto win is paid 1:1 out
    of the bank and the bank gets back what was not needed (002:L2815); a tie
    pushes every stake (decision games.baccara.tie). The coup follows the
    Baccara drawing table, with the options of punto on 5 and banco on 3-vs-9
    and 5-vs-4 given as `choices` {"punto": drew?, "banco": drew?}.

    The bank rules (002:L2817-2827, decision games.baccara.player_bank), read
    against the table's previous settled round (decision games.previous_round):
    a banker who won or tied and keeps the bank stakes exactly the previous
    bank plus its winnings (what the bank got back); after a punto win the
    banker passes the bank; `banco_avec` joins the bank with exactly half the
    banker's stake and shares its result pro rata; `banco_solo` plays the
    whole bank alone (no other punto stake), and then both sides draw or
    stand freely unless one holds a natural (002:L2869); `avec_la_table`
    stakes exactly half the bank against it, the others together the rest.
    The house's result is the commission alone.

    A table may post its seats (`seats`, 2-12): the bank then goes round in
    seat order (decision games.baccara.bank_rotation, 002:L2819 "the bank
    passes to the next player"). The `banco` bet names the banker's seat
    (`spec.seat`); a banker who keeps the bank stays at the seat; otherwise
    (punto won, or the banker gave it up) the next seat after the last
    bank's takes it or passes it on, and the bank bet lists the seats that
    passed since (`spec.passed`). Without posted seats the bank's seat is
    not kept and only the continuation rules hold.
    """

    id = "baccara"
    tables = (BACCARA_PAYOUTS, BACCARA_DRAWING)

    def configure(self, config, tables):
        if set(config) - {"seats"}:
            raise BetInvalid("baccara takes only `seats` (2-12: the bank goes round them)")
        if "seats" in config:
            seats = config["seats"]
            if type(seats) is not int or not 2 <= seats <= SEATS_MAX:
                raise BetInvalid(f"seats is a whole number from 2 to {SEATS_MAX}")
            return {"seats": seats}
        return {}

    @staticmethod
    def looks_back(phase: str, config) -> bool:
        """The bank rules read the previous round when a stake is placed."""
        return phase == "bet"

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind not in BANK_SIDE + PUNTO_SIDE:
            raise BetInvalid(f"baccara has no bet {kind!r}; one of"
                             f" {', '.join(BANK_SIDE + PUNTO_SIDE)}")
        row = find_row(tables[BACCARA_PAYOUTS], "banco" if kind in BANK_SIDE else "punto")
        seats = config.get("seats")
        if kind != "banco" or seats is None:
            return BetKind(kind, {}, row["bet_unit"], kind)
        seat = (spec or {}).get("seat")
        if type(seat) is not int or not 1 <= seat <= seats:
            raise BetInvalid(f"the bank names its seat: spec.seat from 1 to {seats}")
        passed = passed_of(spec, seats)
        clean = {"seat": seat, **({"passed": passed} if passed is not None else {})}
        return BetKind(kind, clean, row["bet_unit"], kind)

    @staticmethod
    def rotation_refusal(kind, spec, previous, config, player_id=None):
        """The bank's turn in seat order at a table with posted seats (002:L2819)."""
        seats = config.get("seats")
        if kind != "banco" or seats is None:
            return None
        passed = list(spec.get("passed", ()))
        last = next((b for b in (previous or {}).get("bets", ())
                     if b["kind"] == "banco" and "seat" in (b.get("spec") or {})), None)
        if last is None:
            if passed:
                return {"message": "the table's first bank follows no one: no seat passed it",
                        "cite": "002:L2819", "decision": "games.baccara.bank_rotation"}
            return None
        held, seat = int(last["spec"]["seat"]), int(spec["seat"])
        keeps = last["player_id"] == player_id and last["result"] != "lose"
        if keeps:
            if seat != held or passed:
                return {"message": f"the banker keeping the bank stays at seat {held}",
                        "cite": "002:L2817", "decision": "games.baccara.bank_rotation"}
            return None
        due = passes_due(held, seat, seats)
        if passed != due:
            return {"message": f"the bank goes round in seat order: after seat {held} it is"
                               f" seat {held % seats + 1}'s to take or pass; seat {seat}"
                               f" takes it with seats {due or 'none'} passed (listed:"
                               f" {passed or 'none'})", "cite": "002:L2819",
                    "decision": "games.baccara.bank_rotation", "previous_bank_seat": held,
                    "passed_due": due}
        return None

    def bank_refusal(self, kind, player_id, stake_minor, placed, previous, config):
        """The bank's rules (002:L2811, L2817-2827); None when the stake may go on."""
        banco = [(p, s) for p, k, s in placed if k == "banco"]
        avec = [s for _, k, s in placed if k == "banco_avec"]
        punto_side = [(p, k, s) for p, k, s in placed if k in PUNTO_SIDE]
        bank = sum(s for _, s in banco) + sum(avec)
        if kind == "banco":
            if banco and banco[0][0] != player_id:
                return {"message": "the bank is already held this coup", "cite": "002:L2811"}
            if banco or avec or punto_side:
                return {"message": "the bank is put up once, before the other stakes",
                        "cite": "002:L2811", "decision": "games.baccara.cover"}
            return self._continuation(player_id, stake_minor, previous)
        if not banco:
            return {"message": "no bank to play against", "cite": "002:L2811"}
        if any(p == player_id for p, _ in banco):
            return {"message": "the banker plays no other stake in the coup",
                    "cite": "002:L2811", "decision": "games.baccara.cover"}
        half = banco[0][1] // 2
        if kind == "banco_avec":
            if avec or punto_side or stake_minor != half:
                return {"message": f"banco avec is placed once, before the punto side, with"
                                   f" exactly half the bank ({half})", "cite": "002:L2825",
                        "limit_minor": half, "decision": "games.baccara.player_bank"}
            return None
        if any(k == "banco_solo" for _, k, _ in punto_side):
            return {"message": "banco solo plays the whole bank alone", "cite": "002:L2823"}
        if kind == "banco_solo":
            if punto_side or stake_minor != bank:
                return {"message": f"banco solo is the first punto stake and the whole bank"
                                   f" ({bank})", "cite": "002:L2823", "limit_minor": bank,
                        "decision": "games.baccara.player_bank"}
            return None
        if kind == "avec_la_table":
            if (any(k == "avec_la_table" for _, k, _ in punto_side)
                    or stake_minor != bank // 2):
                return {"message": f"avec la table is one stake of exactly half the bank"
                                   f" ({bank // 2})", "cite": "002:L2827",
                        "limit_minor": bank // 2, "decision": "games.baccara.player_bank"}
        return None

    @staticmethod
    def _continuation(player_id, stake_minor, previous):
        """002:L2817-2819: continue at bank plus winnings; pass after a punto win."""
        if previous is None:
            return None
        last = next((b for b in previous["bets"] if b["kind"] == "banco"), None)
        if last is None or last["player_id"] != player_id:
            return None
        if last["result"] == "lose":
            return {"message": "punto won the last coup: the bank passes to the next player",
                    "cite": "002:L2819", "previous_round": previous["round_id"]}
        if stake_minor != last["returned_minor"]:
            return {"message": f"a continuing bank stakes the previous bank plus its winnings"
                               f" ({last['returned_minor']})", "cite": "002:L2817",
                    "limit_minor": last["returned_minor"],
                    "previous_round": previous["round_id"]}
        return None

    def stake_room(self, kind: str, player_id: str, placed: Sequence[tuple[str, str, int]],
                   config: Mapping[str, Any] | None = None) -> tuple[int, str] | None:
        """How much more this stake may be: the bank bounds the punto side.

        `placed` lists (player_id, kind, stake) of the round's bets so far.
        """
        if kind in BANK_SIDE:
            return None
        bank = sum(s for _, k, s in placed if k in BANK_SIDE)
        covered = sum(s for _, k, s in placed if k in PUNTO_SIDE)
        return max(bank - covered, 0), "002:L2811"

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        punto = parse_cards(outcome.get("punto"), what="punto")
        banco = parse_cards(outcome.get("banco"), what="banco")
        choices = outcome.get("choices") or {}
        if not isinstance(choices, Mapping) or not all(
                k in ("punto", "banco") and isinstance(v, bool) for k, v in choices.items()):
            raise OutcomeInvalid("choices maps punto and/or banco to whether it drew")
        if any(b.kind in PUNTO_SIDE for b in bets) and not any(b.kind == "banco" for b in bets):
            raise OutcomeInvalid("punto stakes without a bank")
        if any(b.kind == "banco_solo" for b in bets):
            return {**_free_coup(punto, banco), "choices": {}, "banco_solo": True}
        coup = check_coup(tables[BACCARA_DRAWING], punto, banco, choices)
        return {**coup, "choices": dict(choices)}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        rows = tables[BACCARA_PAYOUTS]
        p, b = outcome["punto_total"], outcome["banco_total"]
        facts = {"punto_total": p, "banco_total": b}
        punto_total = sum(bet.stake_minor for bet in bets if bet.kind in PUNTO_SIDE)
        bank_bets = [bet for bet in bets if bet.kind in BANK_SIDE]
        bank_total = sum(bet.stake_minor for bet in bank_bets)
        banco_row, punto_row, tie_row = (find_row(rows, k) for k in ("banco", "punto", "tie"))
        settled = []
        for bet in bets:
            if p == b:
                settled.append(push(bet, BACCARA_PAYOUTS, tie_row, tie_row["cite"], **facts))
            elif bet.kind in PUNTO_SIDE:
                settled.append(pay(bet, BACCARA_PAYOUTS, punto_row, **facts) if p > b
                               else lose(bet, BACCARA_PAYOUTS, punto_row, punto_row["cite"],
                                         **facts))
        if p == b:
            return settled
        # The bank's result, shared by banco and banco avec pro rata (002:L2825).
        won = punto_total * int(banco_row["pays"]) if b > p else -punto_total
        commission = (commission_of(won, int(banco_row["commission_basis_points"]))
                      if won > 0 else 0)
        shares = _pro_rata(won - commission, bank_bets, bank_total)
        commissions = _pro_rata(commission, bank_bets, bank_total)
        row = banco_row if b > p else punto_row
        for bet in bank_bets:
            returned = bet.stake_minor + shares[bet.bet_id]
            result = (result_of(bet.stake_minor, returned) if won >= 0
                      else ("lose" if punto_total else "push"))
            settled.append(Settled(bet.bet_id, bet.stake_minor, returned, result,
                                   BACCARA_PAYOUTS, row["id"], row["cite"],
                                   commissions[bet.bet_id],
                                   {**facts, "punto_covered_minor": punto_total,
                                    "bank_minor": bank_total}))
        order = {bet.bet_id: n for n, bet in enumerate(bets)}
        return sorted(settled, key=lambda s: order[s.bet_id])


def _pro_rata(amount: int, bank_bets, bank_total: int) -> dict[str, int]:
    """`amount` split by stake; the banker (the banco bet) takes the odd cents."""
    shares = {bet.bet_id: (amount * bet.stake_minor // bank_total
                           if bet.kind == "banco_avec" else 0) for bet in bank_bets}
    banker = next(bet for bet in bank_bets if bet.kind == "banco")
    shares[banker.bet_id] = amount - sum(shares.values())
    return shares


def _free_coup(punto: Sequence[str], banco: Sequence[str]) -> dict[str, Any]:
    """Banco solo (002:L2869): each side draws or stands freely, but a two-card 8 or 9
    ends the coup for both."""
    if len(punto) not in (2, 3) or len(banco) not in (2, 3):
        raise OutcomeInvalid("punto and banco each hold two or three cards")
    if max(total(punto[:2]), total(banco[:2])) >= 8 and (len(punto) == 3 or len(banco) == 3):
        raise OutcomeInvalid("a two-card 8 or 9 ends the coup: no third card (002:L2869)")
    return {"punto": list(punto), "banco": list(banco),
            "punto_total": total(punto), "banco_total": total(banco)}
