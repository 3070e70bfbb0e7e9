"""The chart the reports read: account-code patterns, lines and GL codes.

Pure (no Django): one table, `CHART`, says for every account-code pattern of
the project which line of the daily close its postings go to, whether that
line is a balance (money held: cash, the chip float, liabilities to players)
or a flow (revenue and expense of the day), and which general-ledger account
a journal export maps it to. Apps name their accounts in their events.py
(casino/cage, poker, games, tournaments, jackpots); the patterns here restate
those names. A code that matches no pattern is never dropped: the close puts
it in the `other` line and the journal maps it to the suspense account 9999,
so a new app's accounts show up, unclassified, until a row is added here.

Patterns are `/`-separated segments; `*` matches any one segment and `<venue>`
matches any one segment that must also be the venue of the close (a posting
to another venue's cage inside this venue's event is `other`, not this
venue's cash).

GL codes (a small chart in the usual ranges: 1xxx assets, 2xxx liabilities,
4xxx revenue, 5xxx expense, 9xxx suspense), first matching row wins:

    pattern                                   GL    meaning
    cage/<venue>/cash                         1000  cash in the cage
    bank/<venue>/clearing                     1100  bank clearing
    player/*/account                          2100  player account liabilities
    cage/<venue>/chips                        2200  chips outstanding (float)
    table/*/stacks                            2210  chips on poker tables
    games/*/stakes                            2220  stakes on house-game tables
    tournament/*/prize_pool                   2300  tournament prize pools
    tournament/*/bounties                     2310  tournament bounties
    jackpot/<venue>/*/pending                 2400  jackpot contributions pending
    jackpot/<venue>/*/pool                    2410  jackpot pools
    house/<venue>/rake                        4000  poker rake and time charges
    house/<venue>/games/*/commission          4110  house-game commissions
    house/<venue>/games/*                     4100  house-game results
    house/<venue>/tournament_fees             4200  tournament fees
    house/<venue>/jackpot_funding             5100  jackpot base top-ups
    house/<venue>/tournament_prizes           5200  tournament prize overlays
    machine/*/cash                            1050  cash in machines' cash boxes
    machine/*/credit                          2230  players' credit on machines
    voucher/<venue>/*                         2240  machine vouchers outstanding
    machine/*/coin_in                         4300  machine coin in (stakes)
    machine/*/coin_out                        5300  machine coin out (wins)
    machine/*/jackpot_contributions           5310  machine jackpot contributions
    machine/*/malfunction_credits             5320  machine malfunction credits
    cage/<venue>/vault                        1010  cage vault (casino.cashier)
    cage/<venue>/windows/*                    1020  cashier windows
    cage/<venue>/chip_bank                    1030  the cage's own chips
    cage/<venue>/trays/*                      1040  table chip trays
    house/<venue>/table_win                   4400  table games win (drop, count)
    cage/<venue>/over_short                   5400  cashier over/short
    clearing/*/*/*                            1900  due from/to other books (issue 19)
    pending/*/*/*                             1910  held for other books (issue 19)
    (anything else)                           9999  suspense: unclassified

Decision (GL codes): the seeds name no chart of accounts; these codes are
the reports app's own, documented here and in the export's header, so an
accountant can map them onto the operator's chart in one table. Reason: a
general ledger imports a stable numeric code per row; the ledger's own codes
(`player/42/account`) are per player and per table, far too fine for a GL.
"""

from __future__ import annotations

import datetime as dt

from dataclasses import dataclass
from typing import Mapping

BALANCE = "balance"
FLOW = "flow"
OTHER_LINE = "other"
SUSPENSE_GL = ("9999", "Suspense: unclassified accounts")
VENUE = "<venue>"


@dataclass(frozen=True, slots=True)
class ChartRow:
    """One account-code pattern: its close line, kind and GL account."""

    pattern: tuple[str, ...]
    line: str           # the close line; "{1}" etc. name a matched segment
    kind: str           # BALANCE | FLOW
    gl_code: str
    gl_name: str
    label: str

    def match(self, parts: tuple[str, ...], venue: str | None) -> bool:
        if len(parts) != len(self.pattern):
            return False
        for want, have in zip(self.pattern, parts):
            if want == "*":
                continue
            if want == VENUE:
                if venue is not None and have != venue:
                    return False
                continue
            if want != have:
                return False
        return True

    def line_of(self, parts: tuple[str, ...]) -> str:
        return self.line.format(*parts)


def _row(pattern: str, line: str, kind: str, gl_code: str, gl_name: str, label: str):
    return ChartRow(tuple(pattern.split("/")), line, kind, gl_code, gl_name, label)


CHART: tuple[ChartRow, ...] = (
    _row("cage/<venue>/cash", "cage_cash", BALANCE, "1000", "Cash in cage",
         "Cage cash"),
    # Cashier windows and table-games accounting (casino.cashier,
    # casino.tablegames; issue 17 items 2-3).
    _row("cage/<venue>/vault", "cage_vault", BALANCE, "1010", "Cage vault", "Cage vault"),
    _row("cage/<venue>/windows/*", "cashier_windows", BALANCE, "1020", "Cashier windows",
         "Cashier windows"),
    _row("cage/<venue>/chip_bank", "chip_bank", BALANCE, "1030", "Cage chip bank",
         "Cage chip bank"),
    _row("cage/<venue>/trays/*", "table_trays", BALANCE, "1040", "Table chip trays",
         "Table chip trays"),
    _row("house/<venue>/table_win", "table_win", FLOW, "4400",
         "Table games win (drop and count)", "Table games win"),
    _row("cage/<venue>/over_short", "cage_over_short", FLOW, "5400", "Cashier over/short",
         "Cashier over/short"),
    _row("bank/<venue>/clearing", "bank_clearing", BALANCE, "1100", "Bank clearing",
         "Bank clearing"),
    _row("player/*/account", "player_accounts", BALANCE, "2100",
         "Player account liabilities", "Player accounts"),
    _row("cage/<venue>/chips", "chip_float", BALANCE, "2200", "Chips outstanding",
         "Chip float (chips outstanding)"),
    _row("table/*/stacks", "table_stacks", BALANCE, "2210", "Chips on poker tables",
         "Poker table stacks"),
    _row("games/*/stakes", "game_stakes", BALANCE, "2220", "Stakes on house-game tables",
         "House-game stakes in play"),
    _row("tournament/*/prize_pool", "tournament_prize_pools", BALANCE, "2300",
         "Tournament prize pools", "Tournament prize pools"),
    _row("tournament/*/bounties", "tournament_bounties", BALANCE, "2310",
         "Tournament bounties", "Tournament bounties"),
    _row("jackpot/<venue>/*/pending", "jackpot_pending/{2}", BALANCE, "2400",
         "Jackpot contributions pending", "Jackpot contributions pending"),
    _row("jackpot/<venue>/*/pool", "jackpot_pool/{2}", BALANCE, "2410", "Jackpot pools",
         "Jackpot pool"),
    _row("house/<venue>/rake", "rake", FLOW, "4000", "Poker rake revenue", "Poker rake"),
    _row("house/<venue>/games/*/commission", "commission/{3}", FLOW, "4110",
         "House-game commission revenue", "Commission"),
    _row("house/<venue>/games/*", "games/{3}", FLOW, "4100", "House-game results",
         "House-game result"),
    _row("house/<venue>/tournament_fees", "tournament_fees", FLOW, "4200",
         "Tournament fee revenue", "Tournament fees"),
    _row("house/<venue>/jackpot_funding", "jackpot_funding", FLOW, "5100",
         "Jackpot funding expense", "Jackpot base top-ups"),
    _row("house/<venue>/tournament_prizes", "tournament_prizes", FLOW, "5200",
         "Tournament prize overlays", "Tournament prize overlays"),
    # Gaming machines (casino/machines/events.py): their meters as flows of
    # the day, so the close shows each venue's coin in and out beside the
    # machines' own meters (casino/machines/meters.py).
    _row("machine/*/cash", "machine_cash", BALANCE, "1050", "Machine cash boxes",
         "Cash in machines' cash boxes"),
    _row("machine/*/credit", "machine_credit", BALANCE, "2230", "Credit on machines",
         "Players' credit on machines"),
    _row("voucher/<venue>/*", "vouchers", BALANCE, "2240", "Vouchers outstanding",
         "Machine vouchers outstanding"),
    _row("machine/*/coin_in", "machine_coin_in", FLOW, "4300", "Machine coin in",
         "Machine coin in"),
    _row("machine/*/coin_out", "machine_coin_out", FLOW, "5300", "Machine coin out",
         "Machine coin out"),
    _row("machine/*/jackpot_contributions", "machine_jackpot_contributions", FLOW, "5310",
         "Machine jackpot contributions", "Machine jackpot contributions"),
    _row("machine/*/malfunction_credits", "machine_malfunction_credits", FLOW, "5320",
         "Machine malfunction credits", "Machine malfunction credits"),
    # Books (issue 19, ledger.transfers, ledger.crossbook): a book's clearing
    # account with another book (`clearing/<book>/<other>/<CUR>`, an asset:
    # what the other book owes this one) and its hold for pending two-phase
    # transfers (`pending/<book>/<other>/<CUR>`). The close shows what moved
    # between books per pair and currency; a pair's two accounts net to zero.
    _row("clearing/*/*/*", "clearing/{1}/{2}", BALANCE, "1900", "Inter-book clearing",
         "Between books"),
    _row("pending/*/*/*", "pending/{1}/{2}", BALANCE, "1910",
         "Inter-book transfers pending", "Held for other books"),
)

# Lines of books' clearing and hold accounts: shown with their movement
# only. Decision: such an account is its book's, shared by every venue the
# book holds, so its balance is no one venue's (casino/reports/close.py).
BETWEEN_BOOKS_LINES = frozenset({"clearing", "pending"})
COMPANION_EVENT = "ledger.crossbook_leg"    # ledger.crossbook.CROSSBOOK_LEG

# The rake account also takes poker's time charges (casino/poker/events.py):
# postings of this event type to the rake account are their own line.
TIME_CHARGED = "poker.time_charged"
TIME_CHARGES_LINE = "time_charges"

# Account-code prefixes whose second segment is a venue, and the entity
# kinds whose second segment is an id the log maps to a venue.
VENUE_SEGMENT_ROOTS = frozenset({"cage", "bank", "house", "jackpot", "voucher"})
ENTITY_ACCOUNT_ROOTS = {"table": "poker_table", "games": "game_table",
                        "tournament": "tournament", "machine": "machine"}
ENTITY_STREAM_ROOTS = {"table": "poker_table", "hand": "poker_table",
                       "gametable": "game_table", "round": "game_table",
                       "tournament": "tournament", "machine": "machine"}


def split(code: str) -> tuple[str, ...]:
    return tuple(code.split("/"))


def chart_row(code: str, venue: str | None = None) -> ChartRow | None:
    """Return the first chart row matching the code (venue-checked), or None."""
    parts = split(code)
    for row in CHART:
        if row.match(parts, venue):
            return row
    return None


def gl_account(code: str, on: "dt.date | None" = None) -> tuple[str, str]:
    """Return (GL code, GL name) of a ledger account code; 9999 if unmapped.

    The mapping is data (casino/reports/gl_map.py: the chart-of-accounts
    version in force on gaming day `on`, the latest without one); a pattern
    no version maps keeps the code written here.
    """
    row = chart_row(code)
    if row is None:
        return SUSPENSE_GL
    from .gl_map import gl_of

    return gl_of("/".join(row.pattern), on) or (row.gl_code, row.gl_name)


def close_line(code: str, venue: str | None, event_type: str) -> tuple[str, str]:
    """Return (line, kind) of one posting in the close of `venue` (None: any).

    Unmatched codes, and venue-scoped codes of another venue, go to
    OTHER_LINE (kind FLOW): recorded, never dropped.
    """
    parts = split(code)
    for row in CHART:
        if row.match(parts, venue):
            line = row.line_of(parts)
            if line == "rake" and event_type == TIME_CHARGED:
                return TIME_CHARGES_LINE, FLOW
            return line, row.kind
    return OTHER_LINE, FLOW


def line_label(line: str) -> str:
    """A reader's name for a close line."""
    if line == TIME_CHARGES_LINE:
        return "Poker time charges"
    if line == OTHER_LINE:
        return "Other (unclassified accounts)"
    head, _, sub = line.partition("/")
    for row in CHART:
        if row.line.partition("/")[0] == head:
            return f"{row.label}: {sub}" if sub else row.label
    return line


def event_venue(*, stream: str, payload_venue: object, accounts: tuple[str, ...],
                entities: Mapping[str, Mapping[str, str]]) -> str | None:
    """Return the venue an event with postings belongs to, or None.

    In order: the payload's `venue` (cage, jackpots, tournaments' and tables'
    own events); a venue-scoped account code (`cage/<venue>/...`,
    `house/<venue>/...`); an account of a table or tournament whose opening
    event named its venue (`entities`); the event's stream (`hand/<table>/n`).
    Decision: an event belongs to one venue, never split, so each venue's
    close sums to zero per currency as each event does (ledger L3).
    A companion event of a posting across books (`ledger.crossbook_leg`)
    carries the original's venue in its payload when it had one; else the
    venue of the accounts it posts to, then of the original's stream (the
    caller passes the payload's `stream` as `stream`).
    """
    if isinstance(payload_venue, str) and payload_venue:
        return payload_venue
    for code in accounts:
        parts = split(code)
        if len(parts) >= 3 and parts[0] in VENUE_SEGMENT_ROOTS:
            return parts[1]
    for code in accounts:
        parts = split(code)
        kind = ENTITY_ACCOUNT_ROOTS.get(parts[0])
        if kind and len(parts) >= 3:
            venue = entities.get(kind, {}).get(parts[1])
            if venue:
                return venue
    parts = split(stream)
    kind = ENTITY_STREAM_ROOTS.get(parts[0])
    if kind and len(parts) >= 2:
        venue = entities.get(kind, {}).get(parts[1])
        if venue:
            return venue
    return None


def minor_text(amount_minor: int) -> str:
    """Minor units as a decimal string in major units ("1234.05")."""
    sign = "-" if amount_minor < 0 else ""
    whole, cents = divmod(abs(amount_minor), 100)
    return f"{sign}{whole}.{cents:02d}"
