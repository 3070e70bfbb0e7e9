"""The ledger accounts of jackpot pools, named in one place.

Every app that feeds a jackpot (poker drops, time charges, progressive side
bets of house games) posts its contribution to the pool's pending account;
the daily roll-up moves a gaming day's pending sum to the pool account.
Both are liabilities: the money belongs to future winners, not the house.

    jackpot/<venue>/<kind>/pending   contributions of days not yet rolled up
    jackpot/<venue>/<kind>/pool      the posted pool, paid out on a hit
    house/<venue>/jackpot_funding    expense: the casino's top-ups of a pool
                                     to its guaranteed base (000:L3185-3186)
"""

BAD_BEAT = "bad_beat"
"""The poker room's bad-beat jackpot, fed by per-hand drops (000, 002, 003)."""


def pending_account(venue: str, kind: str) -> str:
    return f"jackpot/{venue}/{kind}/pending"


def pool_account(venue: str, kind: str) -> str:
    return f"jackpot/{venue}/{kind}/pool"


def funding_account(venue: str) -> str:
    """The casino's expense for guaranteed bases at the venue."""
    return f"house/{venue}/jackpot_funding"


def pool_stream(venue: str, kind: str) -> str:
    """The stream of one pool: opening, roll-ups, hits, approvals, payouts."""
    return f"jackpot/{venue}/{kind}"


def pool_key(venue: str, kind: str) -> str:
    return f"{venue}/{kind}"


def parse_pending_account(code: str) -> tuple[str, str] | None:
    """(venue, kind) of a pending account code, or None for any other code."""
    parts = code.split("/")
    if len(parts) != 4 or parts[0] != "jackpot" or parts[3] != "pending":
        return None
    return parts[1], parts[2]
