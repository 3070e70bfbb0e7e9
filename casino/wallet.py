"""Credits to a gaming account that respect its ceiling: wins, prizes, jackpots, cash-outs.

Every player's gaming account `player/<id>/account` opens with the online
ceiling as its ledger maximum (`online.account.balance_max`, EUR 5,000,
002:L3070; wallet.account_ceiling). Decision
`online.account.balance_overflow` of the ray-online rulebook
(002:L3068-3070): a deposit over the ceiling is refused (the pipeline and
the ledger do that), but a win cannot be refused, so a credit that would
take the balance over the ceiling is split: up to the ceiling into the
gaming account, the rest to `bank/<venue>/payouts_due` (casino.accounts.payouts_due),
a liability of the venue, owed to the player's bank account until the
cage transfers it (that transfer is not modelled yet). The event that posts
the split carries
an `overflow` list in its payload, one block per player whose credit was
split (`overflow_block`), so the officer and the transfer know whose money
the liability holds.

Decision (what counts as a win): every credit to a gaming account that is
not a deposit: a house-game settlement, a tournament prize, bounty or
refund, a jackpot payment, a poker cash-out to the account. Reason: none of
them can be refused without keeping the player's money at a table or in a
pool; only money the player chooses to bring in (a deposit, chips redeemed
into the account) is refused at the ceiling.

Concurrency. `credit_player` reads the account's committed balance; the
caller appends afterwards. A deposit committed in between makes the
ledger's writer (which re-checks every maximum under its lock, L4) refuse
the append with BalanceMaxExceeded, and the caller starts again from the
read, a bounded number of times (casino.runner's ATTEMPTS_MAX for a
converted caller, whose Command.load calls `credit_players(...,
open_payouts_due=False)` and whose Decision opens `accounts_to_open`),
then answers `request.concurrent_update`. So nothing is ever posted above the ceiling; a
withdrawal in between only means the split left headroom unused, never an
overdraft. Shared by casino.cage, casino.games, casino.tournaments, casino.jackpots,
casino.machines and casino.poker (cash_out).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from casino import clock
from casino.rules import queries as rules
from ledger import InvariantViolation, Metadata, Posting, open_account
from ledger import AccountExists
from ledger.read import Account, AccountType

from casino.accounts import gaming_account, payouts_due
from casino.errors import CodedError

DECISION = "online.account.balance_overflow"
CITE = "002:L3068-3070"
SOURCE = "casino.cage"
CEILING_FIGURE = "online.account.balance_max"
# 002:L3068 "Voitto maksetaan pelaajan pelitilille tai pankkitilille": a win
# is paid to the gaming account or to a bank account. The split above the
# ceiling sends the rest to the bank only where the ceiling's rulebook says so.
BANK_PAYOUT_FIGURE = "online.winnings.payout_to_bank_allowed"
# No play on credit (002:L3033 online; chips, 002:L135 and L1541).
CREDIT_FIGURE = "credit.allowed"
# A credit refused because its overflow has nowhere to go (the cage's code:
# the wallet credits for the cage and the apps alike).
ACCOUNT_CEILING = "cage.account_ceiling"


class WalletError(CodedError):
    """A credit to a gaming account that cannot be posted; nothing was written."""


@dataclass(frozen=True, slots=True)
class PlayerCredit:
    """How one credit to a player is posted: the account's share and the overflow."""

    player_id: str
    venue: str
    currency: str
    amount_minor: int               # the whole credit (the win)
    account: str                    # player/<id>/account
    account_minor: int              # credited to the gaming account
    overflow_minor: int             # credited to bank/<venue>/payouts_due
    balance_before_minor: int       # the account's balance read
    balance_max_minor: int | None   # its ceiling (None: no ceiling)
    postings: tuple[Posting, ...]   # credits (negative amounts), debit positive

    @property
    def overflow(self) -> dict[str, Any] | None:
        """The payload block describing the split, or None if nothing overflowed."""
        if not self.overflow_minor:
            return None
        return {
            "player_id": self.player_id,
            "account": self.account,
            "amount_minor": self.amount_minor,
            "credited_minor": self.account_minor,
            "overflow_minor": self.overflow_minor,
            "balance_before_minor": self.balance_before_minor,
            "balance_max_minor": self.balance_max_minor,
            "payouts_due_account": payouts_due(self.venue),
            "decision": DECISION,
            "cite": CITE,
        }


def split_credit(amount_minor: int, *, balance_minor: int,
                 balance_max_minor: int | None) -> tuple[int, int]:
    """Return (to the gaming account, to payouts due) of a credit (pure).

    The account takes what fits under its ceiling, to the cent; a balance
    already at or over the ceiling (a ceiling lowered later) takes nothing.
    """
    if type(amount_minor) is not int or amount_minor < 0:
        raise InvariantViolation(f"a credit is a non-negative integer, not {amount_minor!r}")
    if balance_max_minor is None:
        return amount_minor, 0
    headroom = max(0, balance_max_minor - balance_minor)
    to_account = min(amount_minor, headroom)
    return to_account, amount_minor - to_account


def credit_player(*, player_id: str, amount_minor: int, currency: str, venue: str,
                  on: dt.date | None = None, metadata: Metadata | None = None
                  ) -> PlayerCredit:
    """Split one credit to a player's gaming account at its ceiling.

    Reads the account's balance and maximum now (an account not opened yet
    starts at 0 with the ceiling it would open with on `on`, the venue's
    local date by default). If anything overflows, opens
    `bank/<venue>/payouts_due` (idempotently) so the caller's append finds
    it. Returns the postings to add to the caller's event (credits only:
    the caller debits the source of the money) and the overflow block for
    its payload. On BalanceMaxExceeded from the append, call again.
    """
    return credit_players({player_id: amount_minor}, currency=currency, venue=venue, on=on,
                          metadata=metadata)[player_id]


def credit_players(amounts: Mapping[str, int], *, currency: str, venue: str,
                   on: dt.date | None = None, metadata: Metadata | None = None,
                   open_payouts_due: bool = True) -> dict[str, PlayerCredit]:
    """`credit_player` for several players at once (one read of their accounts).

    Each player appears once: sum a player's credits in one append first, as
    the ceiling bounds their total. A command run by casino.runner passes
    `open_payouts_due=False` (its load only reads) and puts
    `accounts_to_open(credits)` in its Decision, so the runner opens
    `bank/<venue>/payouts_due` in the append's transaction.
    """
    codes = {player_id: gaming_account(player_id) for player_id in amounts}
    rows = {code: (balance, maximum) for code, balance, maximum in Account.objects.filter(
        code__in=list(codes.values())).values_list("code", "balance_minor", "balance_max_minor")}
    ceiling_new: list[int | None] = []   # computed once, only if an account is missing

    def ceiling_for_new() -> int | None:
        if not ceiling_new:
            ceiling_new.append(account_ceiling(on or _local_today(venue)))
        return ceiling_new[0]

    credits = {}
    for player_id, amount in amounts.items():
        code = codes[player_id]
        balance, maximum = rows[code] if code in rows else (0, ceiling_for_new())
        to_account, overflow = split_credit(amount, balance_minor=balance,
                                            balance_max_minor=maximum)
        postings = []
        if to_account:
            postings.append(Posting(code, -to_account, currency))
        if overflow:
            postings.append(Posting(payouts_due(venue), -overflow, currency))
        credits[player_id] = PlayerCredit(
            player_id=player_id, venue=venue, currency=currency, amount_minor=amount,
            account=code, account_minor=to_account, overflow_minor=overflow,
            balance_before_minor=balance, balance_max_minor=maximum,
            postings=tuple(postings))
    split = [c for c in credits.values() if c.overflow_minor]
    if split and not bank_payout_allowed(on or _local_today(venue)):
        first = split[0]
        raise WalletError(ACCOUNT_CEILING,
                        f"the credit would take {first.account} over its ceiling"
                        f" {first.balance_max_minor} and the rulebook pays no win to a bank"
                        f" account ({BANK_PAYOUT_FIGURE})", player=first.player_id,
                        amount_minor=first.amount_minor, overflow_minor=first.overflow_minor,
                        cite=CITE)
    if open_payouts_due and split:
        ensure_payouts_due(venue=venue, currency=currency, metadata=metadata)
    return credits


def payouts_due_terms(*, venue: str, currency: str) -> dict[str, Any]:
    """The `open_account` terms of `bank/<venue>/payouts_due` (for Decision.accounts)."""
    return dict(code=payouts_due(venue), type=AccountType.LIABILITY, currency=currency,
                name=f"Wins due to players' bank accounts at {venue}",
                must_not_go_negative=True)


def accounts_to_open(credits: Iterable[PlayerCredit]) -> list[dict[str, Any]]:
    """Accounts the credits' postings need that may be missing: payouts_due on overflow."""
    terms = {}
    for credit in credits:
        if credit.overflow_minor:
            terms[credit.venue] = payouts_due_terms(venue=credit.venue, currency=credit.currency)
    return list(terms.values())


def overflow_blocks(credits: Iterable[PlayerCredit]) -> list[dict[str, Any]]:
    """The payload's `overflow` list: one block per player whose credit was split."""
    return [c.overflow for c in credits if c.overflow is not None]


def ensure_payouts_due(*, venue: str, currency: str, metadata: Metadata | None = None) -> str:
    """Open `bank/<venue>/payouts_due` once (a liability that never goes negative)."""
    code = payouts_due(venue)
    if not Account.objects.filter(code=code).exists():
        try:
            open_account(**payouts_due_terms(venue=venue, currency=currency),
                         metadata=metadata or Metadata(actor="system", source=SOURCE),
                         idempotency_key=f"cage/account/{code}")
        except AccountExists:
            pass  # opened meanwhile by another request
    return code


def _local_today(venue: str) -> dt.date:
    place = rules.venue(venue)
    return clock.now().astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()


def bank_payout_allowed(on: dt.date) -> bool:
    """Whether a win above the ceiling may go to the player's bank account (002:L3068).

    Read from the rulebook that states the strictest ceiling (the one
    `account_ceiling` applies); a rulebook with a ceiling and no switch pays
    nothing to a bank (fail closed): the credit is then refused with
    `cage.account_ceiling` and nothing is posted.
    """
    version = _account_rulebook(on)
    if version is None:
        return True
    switch = rules.figure(version, BANK_PAYOUT_FIGURE, on=on)
    return switch is not None and switch.value is True


def account_credit_allowed(on: dt.date) -> bool:
    """Whether a gaming account opened on `on` may go below zero (002:L3033).

    002:L3033 "Internetpelejä ei saa pelata luotolla" (no online play on
    credit): `credit.allowed` of the rulebook that states the strictest
    ceiling (the account's rulebook, ray-online). The ledger fixes it when the
    account opens (must_not_go_negative), as it does the ceiling. No such
    rulebook, or no switch in it: no credit.
    """
    version = _account_rulebook(on)
    switch = rules.figure(version, CREDIT_FIGURE, on=on) if version is not None else None
    return switch is not None and switch.value is True


def _account_rulebook(on: dt.date):
    """The rulebook version in force that states the strictest account ceiling (or None)."""
    stating = [(row.value, version.rulebook_id, version) for version in rules.versions_in_force(on)
               if (row := rules.figure(version, CEILING_FIGURE, on=on)) is not None]
    if not stating:
        return None
    return min(stating, key=lambda s: (s[0], s[1]))[2]


def account_ceiling(on: dt.date) -> int | None:
    """Return the strictest online gaming-account ceiling in force on a day.

    None when no rulebook in force has one (002:L3070 in ray-online). Read
    from the cached rulebooks: no statement once they are cached.
    """
    ceilings = [row.value for version in rules.versions_in_force(on)
                if (row := rules.figure(version, CEILING_FIGURE, on=on)) is not None]
    return min(ceilings, default=None)
