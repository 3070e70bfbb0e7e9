"""One tournament as a pure state machine: money in, places, money out.

Every operation checks the rules, changes the state and returns the money
it moves as `Transfer`s between roles:

    player:<id>   the player's gaming account
    pool          the prize pool (liability)
    bounties      bounties on the players' heads (liability)
    fees          the house's tournament fees (revenue)
    house         the house's prize funding (HexaPro pools above the buy-ins)

The app replays a tournament's events through the same operations to load
it, and turns each transfer into a pair of postings. Tournament chips are
never money and appear here only as stacks given for ranking and splits
(000:L3266-3267, 002:L299).

Phases (000 §4, 001 §5-6):

    announced -> registering -> running -> pool_fixed -> in_the_money -> finished
    announced | registering -> cancelled           (refund in full, 001:L419-421)
    running | pool_fixed | in_the_money -> interrupted   (001:L423-444)

Money rules:
- An entry, late registration or re-entry costs the entry price (prize
  part + fee + bounty part; a re-entry includes the fee, 000:L3297-3300); a
  rebuy costs the rebuy price, normally without the fee (000:L3313-3315,
  002:L3281); an add-on its announced price (000:L3326-3330).
- Bounties: the eliminator takes the eliminated player's bounty; in a
  progressive bounty tournament `progressive_basis_points` of it goes onto
  the eliminator's own bounty and the rest is paid in cash (000:L3365-3377:
  600 + 70 -> 400 pool, 200 bounty, 70 fee; 100 paid, 100 onto the head).
  Split pots share a bounty in whole tokens, never broken: equally, the
  odd token to the first eliminator listed (the first sharing player
  after the button, 000:L3361-3364; `money.split_tokens`). A token is the
  entry's bounty part; tournaments announced before this rule
  (`bounty_split` "cents") split in cents, odd cents to the first.
- Special prizes (000:L3410-3413): a tournament's structure may announce
  prizes such as "the first player out" or "the first to reach a count",
  each a share of the pool (`special_prizes`, name -> basis points). When
  the pool is fixed each share is set aside in the pool; the director
  awards each prize once, to an entrant not disqualified, while play runs
  after that (`award_special_prize`); the payout table shares the rest.
  Decision tournaments.special_prizes.unawarded: a prize not awarded when
  a deal is made, or at the finish or an interruption, goes back to the
  pool and is paid by the payout table.
- A disqualified player's money stays in the pool (000:L3577-3578,
  004:L177); so does the bounty on their head (decision
  `tournaments.bounty.unclaimed`), and an excluded player's.
- Prizes are paid once, when the tournament finishes or is interrupted
  (decision `tournaments.prizes.paid_at_end`): a disqualification found
  after a player busted moves the places below up (000:L3614-3618), which
  a prize already paid could not follow. Online (`prizes_paid_at` "bust",
  figure `tournament.prizes.paid_at`, 001:L366) a player busting in a paid
  place is paid that place's prize at once (`prizes_paid`); the finish pays
  the rest, a player moved up the difference. Decision
  tournaments.prizes.paid_at_bust: a player paid so cannot be disqualified
  (`prize_already_paid`); satellites (seats) and HexaPro (its interruption
  shares the whole drawn pool, 001:L436-442) pay at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from .cancellation import CancellationTerms
from .errors import EngineError
from .icm import icm_split
from .money import Price, allocate, by_basis_points, split_equally, split_tokens
from .payouts import PayoutStructure, paid_field
from .places import EliminationRules, Out, assign_prizes, standings


class Phase(StrEnum):
    ANNOUNCED = "announced"
    REGISTERING = "registering"
    RUNNING = "running"
    POOL_FIXED = "pool_fixed"
    IN_THE_MONEY = "in_the_money"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


PLAYING = (Phase.RUNNING, Phase.POOL_FIXED, Phase.IN_THE_MONEY)
UNREGISTRATION_POLICIES = ("not_offered", "open", "manager_approval")
FORMATS = ("freezeout", "rebuy", "re_entry", "bounty", "progressive_bounty", "satellite",
           "sit_and_go", "hexapro")
ENTRY_KINDS = ("entry", "late_entry", "re_entry")


@dataclass(frozen=True, slots=True)
class Transfer:
    source: str
    target: str
    amount_minor: int
    reason: str


@dataclass(frozen=True, slots=True)
class Config:
    """What a tournament announces before it opens (000:L3247-3254)."""

    format: str
    entry: Price
    payout: PayoutStructure
    rebuy: Price | None = None
    add_on: Price | None = None
    re_entry: bool = False
    entries_per_player_max: int = 1           # 001:L306
    rebuys_per_player_max: int | None = None  # 000:L3318-3320
    re_entries_per_paid_field_step: int | None = None  # 000:L3302-3304
    progressive_basis_points: int = 0         # share of a bounty onto one's own
    min_entrants: int = 2                     # 003:L163
    seats_per_table: int = 9                  # the final table, for interruptions
    # Players every table must have before the start (000:L3240; figure
    # tournament.start.min_players_per_table); 0 where the rulebook is silent.
    min_players_per_table: int = 0
    elimination: EliminationRules = EliminationRules()
    satellite_seat_minor: int | None = None   # the target's entry price
    # How eliminators who share a pot share a bounty: "tokens" whole tokens
    # (000:L3361-3364); "cents" is how tournaments announced before that
    # rule split it, kept so their streams fold as they were decided.
    bounty_split: str = "tokens"
    # When prizes are paid: "end" (finish or interruption) or "bust" (each
    # player as they bust in a paid place, 001:L366).
    prizes_paid_at: str = "end"
    # How an interruption shares the pool, from the rulebook (None: the
    # online policy, cancellation.ONLINE_POLICY).
    cancellation: CancellationTerms | None = None
    # Unregistering before the start: "not_offered", "open" (online,
    # 001:L310-312) or "manager_approval" (Tallinn, 003:L174).
    unregistration: str = "not_offered"
    # A prize pool the house guarantees, topping up the entries when the
    # pool is fixed (001:L580; 002:L323 "a fixed amount"); a freeroll's
    # whole pool (001:L330-332, L602).
    guaranteed_pool_minor: int = 0
    # A share of the pool set aside for a later tournament when the pool is
    # fixed, and money from that reserve added to this pool (000:L3386-3388).
    reserved_basis_points: int = 0
    reserve_added_minor: int = 0
    # Seats of a HexaPro game (001:L458, figure hexapro.players).
    hexapro_players: int = 3
    # Whether the players left may make a deal (004:L19, figure deals.allowed).
    deals_allowed: bool = True
    # Special prizes announced in the structure: (name, share of the pool in
    # basis points), set aside when the pool is fixed (000:L3410-3413).
    special_prizes: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise EngineError("invalid_format", f"unknown format {self.format!r}",
                              formats=list(FORMATS))
        if self.format == "freezeout" and (self.rebuy or self.add_on or self.re_entry):
            raise EngineError("invalid_format", "a freezeout has no rebuys, add-ons or"
                              " re-entries (000:L3337)")
        if self.entry.bounty_minor and self.format not in ("bounty", "progressive_bounty"):
            raise EngineError("invalid_format", "only bounty formats carry a bounty part")
        if self.format in ("bounty", "progressive_bounty") and not self.entry.bounty_minor:
            raise EngineError("invalid_format", "a bounty format needs a bounty part")
        if self.format == "satellite" and not self.satellite_seat_minor:
            raise EngineError("invalid_format", "a satellite needs the seat's value")
        if self.bounty_split not in ("tokens", "cents"):
            raise EngineError("invalid_format", "a bounty is split in tokens or cents",
                              bounty_split=self.bounty_split)
        if type(self.guaranteed_pool_minor) is not int or self.guaranteed_pool_minor < 0:
            raise EngineError("invalid_format", "a guaranteed pool is a whole number of"
                              " cents, zero or more")
        if (type(self.reserved_basis_points) is not int
                or not 0 <= self.reserved_basis_points < 10_000
                or type(self.reserve_added_minor) is not int or self.reserve_added_minor < 0):
            raise EngineError("invalid_format", "a reserved share is 0 to under 100 % and"
                              " money from the reserve zero or more")
        if ((self.reserved_basis_points or self.reserve_added_minor)
                and self.format in ("hexapro", "satellite")):
            raise EngineError("invalid_format", "a HexaPro or satellite pool neither keeps"
                              " a reserve nor takes one")
        self._check_special_prizes()
        if self.guaranteed_pool_minor and self.format in ("hexapro", "satellite"):
            raise EngineError("invalid_format", "a HexaPro pool is drawn and a satellite's"
                              " pays seats: neither takes a guaranteed pool")
        for name in ("rebuy", "add_on"):
            price = getattr(self, name)
            if price is not None and price.total_minor <= 0:
                raise EngineError("invalid_price", f"a {name.replace('_', '-')} must cost"
                                  " something")
        if self.entry.total_minor <= 0 and not self.guaranteed_pool_minor:
            raise EngineError("invalid_price", "an entry must cost something; a freeroll"
                              " (no entry price) needs the pool the house guarantees"
                              " (001:L602)")
        if self.entry.total_minor <= 0 and (self.rebuy or self.add_on or self.re_entry
                                            or self.entry.bounty_minor):
            raise EngineError("invalid_format", "a freeroll sells no rebuys, add-ons or"
                              " re-entries")
        if self.unregistration not in UNREGISTRATION_POLICIES:
            raise EngineError("invalid_format", "unregistration is not_offered, open or"
                              " manager_approval", unregistration=self.unregistration)
        if self.prizes_paid_at not in ("end", "bust"):
            raise EngineError("invalid_format", "prizes are paid at the end or at the bust",
                              prizes_paid_at=self.prizes_paid_at)
        if (type(self.min_players_per_table) is not int
                or not 0 <= self.min_players_per_table <= self.seats_per_table):
            raise EngineError("invalid_format", "the players a table needs to start are"
                              " 0 to the seats of a table",
                              min_players_per_table=self.min_players_per_table,
                              seats_per_table=self.seats_per_table)
        if not 0 <= self.progressive_basis_points <= 10_000:
            raise EngineError("invalid_format", "the progressive share is 0 to 100 %")
        if (self.format == "progressive_bounty") != (self.progressive_basis_points > 0):
            raise EngineError("invalid_format", "a progressive bounty needs the share added"
                              " to the eliminator's bounty, and only it has one")

    def _check_special_prizes(self) -> None:
        names = [name for name, _ in self.special_prizes]
        if any(type(name) is not str or not name.strip() for name in names) \
                or len(set(names)) != len(names):
            raise EngineError("invalid_special_prizes", "each special prize has a name of"
                              " its own", names=names)
        shares = [share for _, share in self.special_prizes]
        if any(type(share) is not int or share <= 0 for share in shares):
            raise EngineError("invalid_special_prizes", "a special prize is a share of the"
                              " pool above 0 basis points", shares=shares)
        if sum(shares) + self.reserved_basis_points >= 10_000:
            raise EngineError("invalid_special_prizes", "special prizes and the reserve"
                              " take less than the whole pool: the payout table shares"
                              " the rest", special_basis_points=sum(shares),
                              reserved_basis_points=self.reserved_basis_points)
        if self.special_prizes and self.format in ("hexapro", "satellite"):
            raise EngineError("invalid_special_prizes", "a HexaPro pool is drawn and a"
                              " satellite's pays seats: neither has special prizes")


@dataclass(slots=True)
class Player:
    player_id: str
    entries: int = 0
    re_entries: int = 0
    rebuys: int = 0
    add_ons: int = 0
    paid_prize_minor: int = 0
    paid_fee_minor: int = 0
    paid_bounty_minor: int = 0
    bounty_minor: int = 0        # on the player's head now
    alive: bool = False
    disqualified: bool = False
    excluded: bool = False
    purchases: list[Price] = field(default_factory=list)
    paid_by: str | None = None   # who paid the entry, when not the player


@dataclass(frozen=True, slots=True)
class Payout:
    """What a finish or an interruption pays, per player."""

    prizes_minor: Mapping[str, int]
    places: Mapping[str, int]
    bounties_minor: Mapping[str, int]
    fees_refunded_minor: Mapping[str, int]
    seats: tuple[str, ...] = ()
    method: str = "payout_table"


class Tournament:
    """The state of one tournament; every method is one rule-checked step."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.phase = Phase.ANNOUNCED
        self.players: dict[str, Player] = {}
        self.groups: list[list[Out]] = []  # eliminations, in order
        self.pool_minor = 0
        self.fees_minor = 0
        self.bounties_minor = 0
        self.entries = 0
        self.re_entries = 0
        self.fixed_field: int | None = None
        self.deal: dict[str, int] | None = None
        self.payout: Payout | None = None
        self.drawn_shares: tuple[int, ...] | None = None  # HexaPro
        self.house_funded_minor = 0
        self.bounties_won: dict[str, int] = {}
        # Prizes already paid as players busted (001:L366); the pool's total
        # stays in `pool_minor` until the payout.
        self.prizes_paid: dict[str, int] = {}
        # Special prizes (000:L3410-3413): each one's amount, set aside when
        # the pool is fixed; who was awarded which; whether the ones not
        # awarded went back to the pool (decision
        # tournaments.special_prizes.unawarded).
        self.special_minor: dict[str, int] = {}
        self.special_awarded: dict[str, str] = {}
        self.special_released = False

    # -- views -------------------------------------------------------------

    @property
    def alive(self) -> list[str]:
        return [p.player_id for p in self.players.values() if p.alive]

    @property
    def paid_field(self) -> int:
        if self.fixed_field is not None:
            return self.fixed_field
        return paid_field(self.entries, self.re_entries,
                          self.config.re_entries_per_paid_field_step)

    @property
    def special_open_minor(self) -> int:
        """Money set aside in the pool for special prizes not awarded yet."""
        if self.special_released:
            return 0
        return sum(amount for name, amount in self.special_minor.items()
                   if name not in self.special_awarded)

    def prizes(self) -> list[int]:
        """The prize of each paid place for the pool as it stands.

        Special prizes not awarded yet are set aside (000:L3410-3413).
        """
        if self.config.format == "satellite":
            return self._satellite_prizes()
        if self.drawn_shares is not None:
            return by_basis_points(self.pool_minor, self.drawn_shares)
        return self.config.payout.prizes(self.pool_minor - self.special_open_minor,
                                         max(self.paid_field, 1))

    def _satellite_prizes(self) -> list[int]:
        """Seats of the target's value, then the rest in cash to the next place.

        Decision (tournaments.satellite.remainder): a pool that does not
        buy a whole number of seats pays its remainder in cash to the place
        after the last seat.
        """
        seat = self.config.satellite_seat_minor or 1
        seats, rest = divmod(self.pool_minor, seat)
        return [seat] * seats + ([rest] if rest else [])

    # -- registration and purchases -----------------------------------------

    def open_registration(self) -> list[Transfer]:
        self._require(Phase.ANNOUNCED)
        self.phase = Phase.REGISTERING
        return []

    def enter(self, player_id: str, kind: str = "entry", paid_by: str | None = None
              ) -> list[Transfer]:
        """An entry (registering), a late entry (running, before the pool is
        fixed, 000:L3288-3290) or a re-entry of a busted player (000:L3297-3301).

        `paid_by` names the role that pays instead of the player: a seat won
        in a satellite is `satellite:<id>`, paid from that satellite's pool
        (000:L3344-3345, 002:L2993, 002:L3293: the seat enters without a
        separate fee from the player; 001:L314: seated directly, also as a
        late entry). Only an entry or a late entry may be paid so.
        """
        if kind not in ENTRY_KINDS:
            raise EngineError("invalid_operation", f"unknown entry kind {kind!r}")
        # A ticket (a seat not used) is the player's own entry right, used
        # personally (000:L3344-3345, 001:L312).
        if paid_by is not None and (kind == "re_entry" or not (
                paid_by.startswith("satellite:") or paid_by == f"ticket:{player_id}")):
            raise EngineError("invalid_operation", "only a satellite seat or the player's own"
                              " ticket pays an entry for the player, and never a re-entry",
                              paid_by=paid_by)
        player = self.players.get(player_id)
        if kind == "entry":
            self._require(Phase.REGISTERING)
            if player is not None:
                raise EngineError("already_registered", "the player is registered already"
                                  " (one entry per player, 001:L306)", player_id=player_id)
        elif kind == "late_entry":
            self._require(Phase.RUNNING)
            if player is not None:
                raise EngineError("already_registered", "the player has entered already;"
                                  " a busted player re-enters", player_id=player_id)
        else:
            self._require(Phase.RUNNING)
            if not self.config.re_entry:
                raise EngineError("re_entry_not_offered", "this tournament has no re-entry"
                                  " (001:L306)")
            if player is None or player.alive or player.disqualified or player.excluded:
                raise EngineError("not_busted", "only a player who has busted may re-enter"
                                  " (000:L3297)", player_id=player_id)
            if player.entries >= self.config.entries_per_player_max:
                raise EngineError("entries_exhausted", "the player has used every entry",
                                  entries_max=self.config.entries_per_player_max)
        seats = self.config.hexapro_players
        if (kind != "re_entry" and self.config.format == "hexapro"
                and len(self.players) >= seats):
            raise EngineError("tournament_full", f"a HexaPro game seats {seats} (001:L458)",
                              players_max=seats)
        grown = (self.entries + (kind != "re_entry"), self.re_entries + (kind == "re_entry"))
        if self.config.format != "satellite":
            self.config.payout.bracket_for(
                paid_field(*grown, self.config.re_entries_per_paid_field_step))
        if player is None:
            player = self.players[player_id] = Player(player_id)
        if kind == "re_entry":
            self._undo_bust(player_id)
            self.re_entries += 1
            player.re_entries += 1
        else:
            self.entries += 1
        player.entries += 1
        player.alive = True
        if kind != "re_entry":
            player.paid_by = paid_by
        return self._buy(player, self.config.entry, kind, paid_by)

    def unregister(self, player_id: str, approved_by: str | None = None) -> list[Transfer]:
        """Withdraw an entry before the start, refunded the way it was paid.

        001:L310-312: online, registration may be withdrawn before the
        start; the buy-in comes back by the means it was paid (the account,
        or a ticket), and a seat won in a satellite comes back as a ticket.
        003:L174: in Tallinn only with the poker manager's approval
        (`approved_by`). Elsewhere the rulebooks offer no withdrawal (decision
        tournaments.unregistration).
        """
        self._require(Phase.REGISTERING)
        policy = self.config.unregistration
        if policy == "not_offered":
            raise EngineError("unregistration_not_offered", "this tournament's rules offer"
                              " no withdrawal of a registration")
        if policy == "manager_approval" and not approved_by:
            raise EngineError("approval_required", "withdrawing a registration needs the"
                              " poker manager's approval (003:L174)", cite="003:L174")
        player = self._player(player_id)
        # A satellite seat or a ticket pays back as the player's ticket (001:L312).
        target = f"player:{player_id}" if player.paid_by is None else f"ticket:{player_id}"
        transfers = [Transfer(source, target, amount, "unregistered") for source, amount in (
            ("pool", player.paid_prize_minor), ("fees", player.paid_fee_minor),
            ("bounties", player.paid_bounty_minor)) if amount]
        self.pool_minor -= player.paid_prize_minor
        self.fees_minor -= player.paid_fee_minor
        self.bounties_minor -= player.paid_bounty_minor
        self.entries -= player.entries
        del self.players[player_id]
        return transfers

    def rebuy(self, player_id: str) -> list[Transfer]:
        """Extra chips during the rebuy period (000:L3313-3320, 002:L3281-3283)."""
        self._require(Phase.RUNNING)
        if self.config.rebuy is None:
            raise EngineError("rebuy_not_offered", "this tournament has no rebuys")
        player = self._alive(player_id)
        limit = self.config.rebuys_per_player_max
        if limit is not None and player.rebuys >= limit:
            raise EngineError("rebuys_exhausted", "the player has used every rebuy",
                              rebuys_max=limit)
        player.rebuys += 1
        return self._buy(player, self.config.rebuy, "rebuy")

    def add_on(self, player_id: str) -> list[Transfer]:
        """One add-on after the last rebuy hand (000:L3326-3330).

        Decision (tournaments.add_on.once): one add-on per player; a busted
        player must rebuy first, which `_alive` enforces (000:L3326-3328).
        """
        self._require(Phase.RUNNING)
        if self.config.add_on is None:
            raise EngineError("add_on_not_offered", "this tournament has no add-on")
        player = self._alive(player_id)
        if player.add_ons:
            raise EngineError("add_on_taken", "one add-on per player")
        player.add_ons += 1
        return self._buy(player, self.config.add_on, "add_on")

    def _buy(self, player: Player, price: Price, reason: str, paid_by: str | None = None
             ) -> list[Transfer]:
        player.purchases.append(price)
        player.paid_prize_minor += price.prize_minor
        player.paid_fee_minor += price.fee_minor
        player.paid_bounty_minor += price.bounty_minor
        player.bounty_minor += price.bounty_minor
        self.pool_minor += price.prize_minor
        self.fees_minor += price.fee_minor
        self.bounties_minor += price.bounty_minor
        source = paid_by or f"player:{player.player_id}"
        return [Transfer(source, target, amount, reason) for target, amount in (
            ("pool", price.prize_minor), ("fees", price.fee_minor),
            ("bounties", price.bounty_minor)) if amount]

    # -- the clock ------------------------------------------------------------

    def start(self) -> list[Transfer]:
        """Start play; fewer than the minimum entrants may not start (003:L163)."""
        self._require(Phase.REGISTERING)
        if self.entries < self.config.min_entrants:
            raise EngineError("too_few_entrants", f"{self.entries} entrants, fewer than the"
                              f" minimum {self.config.min_entrants}; cancel and refund"
                              " (003:L163, L173)", entrants=self.entries,
                              min_entrants=self.config.min_entrants)
        self._check_players_per_table()
        self.phase = Phase.RUNNING
        return []

    def _check_players_per_table(self) -> None:
        """Refuse a start that leaves a table with fewer than the minimum (000:L3240).

        The entrants sit at as few tables as hold them (`seats_per_table`
        each), balanced, so the smallest table has entrants // tables
        players: the start needs at least `min_players_per_table` times the
        tables. Not a cancellation: more players may still register, or the
        director cancels.
        """
        per_table = self.config.min_players_per_table
        if not per_table:
            return
        tables = -(-self.entries // self.config.seats_per_table)
        if self.entries < per_table * max(tables, 1):
            raise EngineError("too_few_players_per_table",
                              f"{self.entries} entrants at {tables} table(s) of"
                              f" {self.config.seats_per_table} seats leave a table with"
                              f" fewer than {per_table} players; a tournament starts only"
                              f" when every table has at least {per_table} (000:L3240)",
                              entrants=self.entries, tables=tables,
                              min_players_per_table=per_table, cite="000:L3240")

    def fix_pool(self) -> list[Transfer]:
        """Close late registration, re-entry, rebuys and add-ons; the payout
        table in money is published now (000:L3384-3386, 002:L2997)."""
        self._require(Phase.RUNNING)
        self.fixed_field = self.paid_field
        self.phase = Phase.POOL_FIXED
        transfers = []
        # A share kept for a later tournament, and what an earlier one kept
        # for this one (000:L3386-3388), before the house's guarantee.
        reserved = self.pool_minor * self.config.reserved_basis_points // 10_000
        if reserved:
            self.pool_minor -= reserved
            transfers.append(Transfer("pool", "reserve", reserved, "reserved"))
        if self.config.reserve_added_minor:
            self.pool_minor += self.config.reserve_added_minor
            transfers.append(Transfer("reserve", "pool", self.config.reserve_added_minor,
                                      "reserve_added"))
        # The house tops the pool up to its guarantee (001:L580, 002:L323).
        overlay = self.config.guaranteed_pool_minor - self.pool_minor
        if overlay > 0:
            self.pool_minor += overlay
            self.house_funded_minor += overlay
            transfers.append(Transfer("house", "pool", overlay, "overlay"))
        # The special prizes' shares of the pool as fixed (000:L3410-3413).
        self.special_minor = {name: self.pool_minor * share // 10_000
                              for name, share in self.config.special_prizes}
        self._check_in_the_money()
        return transfers

    def award_special_prize(self, name: str, player_id: str) -> list[Transfer]:
        """Pay a special prize announced in the structure to its winner (000:L3410-3413).

        Once the pool is fixed (the amount is known), while play runs; each
        prize once; to an entrant who is not disqualified (a disqualified
        player wins nothing, 000:L3577-3578, 004:L177), in play or out.
        """
        self._require(Phase.POOL_FIXED, Phase.IN_THE_MONEY)
        if name not in self.special_minor:
            raise EngineError("unknown_special_prize", f"the structure announces no special"
                              f" prize {name!r} (000:L3410-3413)", name=name,
                              announced=sorted(self.special_minor))
        if name in self.special_awarded:
            raise EngineError("special_prize_awarded", f"the special prize {name!r} was"
                              " awarded already", name=name,
                              player_id=self.special_awarded[name])
        if self.special_released:
            raise EngineError("special_prize_released", "the special prizes not awarded"
                              " went back to the pool with the deal", name=name)
        player = self._player(player_id)
        if player.disqualified:
            raise EngineError("not_in_play", "a disqualified player wins no prize"
                              " (000:L3577-3578)", player_id=player_id)
        amount = self.special_minor[name]
        self.special_awarded[name] = player_id
        self.pool_minor -= amount
        self._check_in_the_money()
        return [Transfer("pool", f"player:{player_id}", amount, "special_prize")] \
            if amount else []

    def _release_special_prizes(self) -> None:
        """Special prizes not awarded go back to the pool (decision
        tournaments.special_prizes.unawarded)."""
        self.special_released = True

    def draw_prize_pool(self, prize_pool_minor: int, shares_basis_points: Sequence[int]
                        ) -> list[Transfer]:
        """Set a HexaPro game's drawn prize pool and its split (001:L454-493).

        The three buy-ins are in the pool; the house adds what the draw
        gives above them, or keeps what it gives below them as its fee: over
        many games the house keeps 6.853 % (001:L489). The pool is fixed at
        once and every player is in the money.
        """
        self._require(Phase.RUNNING)
        if self.config.format != "hexapro":
            raise EngineError("invalid_operation", "only HexaPro draws its prize pool")
        if self.drawn_shares is not None:
            raise EngineError("already_drawn", "the prize pool is drawn already")
        if type(prize_pool_minor) is not int or prize_pool_minor <= 0:
            raise EngineError("invalid_operation", "the drawn pool must be positive")
        by_basis_points(prize_pool_minor, shares_basis_points)  # checks the shares
        difference = prize_pool_minor - self.pool_minor
        transfers = []
        if difference > 0:
            transfers.append(Transfer("house", "pool", difference, "hexapro_draw"))
        elif difference < 0:
            transfers.append(Transfer("pool", "fees", -difference, "hexapro_draw"))
        self.pool_minor = prize_pool_minor
        self.fees_minor -= min(difference, 0)
        self.house_funded_minor = max(difference, 0)
        self.drawn_shares = tuple(shares_basis_points)
        self.fix_pool()
        return transfers

    def _check_in_the_money(self) -> None:
        if self.phase == Phase.POOL_FIXED and len(self.alive) <= len(self.prizes()):
            self.phase = Phase.IN_THE_MONEY

    # -- eliminations -----------------------------------------------------------

    def eliminate(self, outs: Sequence[Out], eliminators: Mapping[str, Sequence[str]]
                  ) -> list[Transfer]:
        """Players out in one hand; `eliminators[player]` took their chips."""
        self._require(*PLAYING)
        ids = [o.player_id for o in outs]
        if not ids or len(set(ids)) != len(ids):
            raise EngineError("invalid_operation", "name each eliminated player once")
        for player_id in ids:
            self._alive(player_id)
        if len(self.alive) - len(ids) < 1:
            raise EngineError("last_player", "someone must be left: the last player wins")
        for player_id in ids:
            for taker in eliminators.get(player_id, ()):
                if taker in ids or taker not in self.players or not self.players[taker].alive:
                    raise EngineError("invalid_eliminator", "an eliminator must still be in"
                                      " the tournament", player_id=taker)
        transfers: list[Transfer] = []
        for player_id in ids:
            self.players[player_id].alive = False
        for player_id in ids:
            transfers += self._collect_bounty(player_id, list(eliminators.get(player_id, ())))
        self.groups.append(list(outs))
        transfers += self._pay_at_bust(ids)
        self._check_in_the_money()
        return transfers

    def _pay_at_bust(self, ids: Sequence[str]) -> list[Transfer]:
        """Pay the players just out the prizes of the places they hold (001:L366).

        Only with `prizes_paid_at` "bust", once the pool is fixed (the
        prizes are known), and not in a satellite or HexaPro (module
        docstring). The places are those a finish now would give them.
        """
        if (self.config.prizes_paid_at != "bust" or self.fixed_field is None
                or self.config.format in ("satellite", "hexapro")):
            return []
        disqualified = frozenset(p for p, s in self.players.items() if s.disqualified)
        still_in = [Out(p) for p in self.alive]
        blocks = standings([*self.groups, still_in], self.config.elimination, disqualified)
        _, paid = assign_prizes(blocks, self.prizes())
        transfers = []
        for player_id in ids:
            due = paid.get(player_id, 0) - self.prizes_paid.get(player_id, 0)
            if due > 0:
                self.prizes_paid[player_id] = self.prizes_paid.get(player_id, 0) + due
                transfers.append(Transfer("pool", f"player:{player_id}", due, "prize"))
        return transfers

    def _collect_bounty(self, player_id: str, takers: Sequence[str]) -> list[Transfer]:
        head = self.players[player_id].bounty_minor
        self.players[player_id].bounty_minor = 0
        if not head:
            return []
        if not takers:
            return self._bounty_to_pool(head)
        if self.config.bounty_split == "tokens":
            shares = split_tokens(head, self.config.entry.bounty_minor, len(takers))
        else:
            shares = split_equally(head, len(takers))
        transfers = []
        for taker, share in zip(takers, shares):
            onto = share * self.config.progressive_basis_points // 10_000
            cash = share - onto
            self.players[taker].bounty_minor += onto
            if cash:
                self.bounties_minor -= cash
                self.bounties_won[taker] = self.bounties_won.get(taker, 0) + cash
                transfers.append(Transfer("bounties", f"player:{taker}", cash, "bounty"))
        return transfers

    def _bounty_to_pool(self, amount: int) -> list[Transfer]:
        self.bounties_minor -= amount
        self.pool_minor += amount
        return [Transfer("bounties", "pool", amount, "bounty_unclaimed")]

    def disqualify(self, player_id: str) -> list[Transfer]:
        """Chips out of play, money stays in the pool, no prize; players who
        finished below move up (000:L3577-3578, L3614-3618; 004:L177)."""
        self._require(*PLAYING)
        player = self._player(player_id)
        if player.disqualified:
            raise EngineError("already_disqualified", "the player is disqualified already")
        if self.prizes_paid.get(player_id):
            # Decision tournaments.prizes.paid_at_bust (001:L366).
            raise EngineError("prize_already_paid", "the player's prize was paid when they"
                              " busted (001:L366); it cannot be taken back by a"
                              " disqualification", player_id=player_id,
                              prize_minor=self.prizes_paid[player_id])
        if player.alive and len(self.alive) == 1:
            raise EngineError("last_player", "the last player left cannot be disqualified")
        player.disqualified = True
        player.alive = False
        transfers = []
        if player.bounty_minor:
            head, player.bounty_minor = player.bounty_minor, 0
            transfers = self._bounty_to_pool(head)
        self._check_in_the_money()
        return transfers

    def exclude(self, player_id: str) -> list[Transfer]:
        """Removed, but keeps the place held at that moment (004:L175-176)."""
        self._require(*PLAYING)
        player = self._alive(player_id)
        if len(self.alive) == 1:
            raise EngineError("last_player", "the last player left cannot be excluded")
        player.excluded = True
        player.alive = False
        head, player.bounty_minor = player.bounty_minor, 0
        self.groups.append([Out(player_id)])
        transfers = self._bounty_to_pool(head) if head else []
        self._check_in_the_money()
        return transfers

    def _undo_bust(self, player_id: str) -> None:
        """A re-entry takes the player's earlier bust off the record: the
        place is decided by the last bust."""
        self.groups = [[o for o in g if o.player_id != player_id] for g in self.groups]
        self.groups = [g for g in self.groups if g]

    # -- the end ------------------------------------------------------------------

    def record_deal(self, amounts: Mapping[str, int], consents: Iterable[str],
                    pay_by_table: bool = False) -> list[Transfer]:
        """A deal among the players still in (004:L19, 000:L3401-3403).

        Every remaining player must consent, and the amounts must share
        exactly the prizes of the places still to be decided. The venue may
        still pay by the original table (`pay_by_table`).
        """
        self._require(Phase.POOL_FIXED, Phase.IN_THE_MONEY)
        if not self.config.deals_allowed:
            raise EngineError("deals_not_allowed", "this tournament's rules allow no deal"
                              " (figure deals.allowed)")
        alive = set(self.alive)
        if set(consents) != alive:
            raise EngineError("deal_without_consent", "every remaining player must agree"
                              " to a deal", missing=sorted(alive - set(consents)))
        if set(amounts) != alive or any(type(a) is not int or a < 0 for a in amounts.values()):
            raise EngineError("invalid_deal", "a deal names an amount for each remaining"
                              " player and no one else")
        # Special prizes not awarded go back to the pool with the deal
        # (decision tournaments.special_prizes.unawarded).
        released = self.special_released
        self.special_released = True
        at_stake = sum(self.prizes()[:len(alive)])
        self.special_released = released
        if sum(amounts.values()) != at_stake:
            raise EngineError("invalid_deal", "a deal shares exactly the prize money of the"
                              " places still open", at_stake_minor=at_stake,
                              dealt_minor=sum(amounts.values()))
        self.deal = None if pay_by_table else dict(amounts)
        self._release_special_prizes()
        return []

    def finish(self, final_stacks: Mapping[str, int] | None = None) -> list[Transfer]:
        """Pay the prizes and the bounties left; the pool and bounties end at 0.

        With more than one player left it needs a deal or the final chip
        counts (a time tournament, 003:L153; 002:L299), which rank them.
        """
        self._require(Phase.POOL_FIXED, Phase.IN_THE_MONEY)
        alive = self.alive
        if len(alive) > 1 and self.deal is None and not final_stacks:
            raise EngineError("not_finished", "more than one player is left: record the"
                              " last elimination, a deal or the final chip counts",
                              remaining=len(alive))
        self._release_special_prizes()
        stacks = dict(final_stacks or {})
        last = [Out(p, stacks.get(p, 0)) for p in alive]
        blocks = standings([*self.groups, last], self.config.elimination,
                           frozenset(p for p, s in self.players.items() if s.disqualified))
        prizes = self.prizes()
        if self.deal is not None:
            places, paid = assign_prizes(blocks, prizes)
            for player_id, amount in self.deal.items():
                paid[player_id] = amount
        else:
            places, paid = assign_prizes(blocks, prizes)
        seats: tuple[str, ...] = ()
        if self.config.format == "satellite":
            seat = self.config.satellite_seat_minor
            seats = tuple(p for p, amount in paid.items() if amount == seat
                          and places[p] <= self.pool_minor // seat)
        bounties = {p: self.players[p].bounty_minor for p in alive
                    if self.players[p].bounty_minor}
        self.payout = Payout(prizes_minor=paid, places=places, bounties_minor=bounties,
                             fees_refunded_minor={}, seats=seats,
                             method="deal" if self.deal is not None else "payout_table")
        self.phase = Phase.FINISHED
        return self._pay_out(self.payout)

    def _pay_out(self, payout: Payout) -> list[Transfer]:
        transfers = []
        for player_id, amount in payout.prizes_minor.items():
            # A prize paid at the bust (001:L366) is paid no second time.
            due = amount - self.prizes_paid.get(player_id, 0)
            if due < 0:
                raise EngineError("payout_mismatch", "a payout may not pay a player less"
                                  " than the prize paid at the bust", player_id=player_id,
                                  prize_minor=amount,
                                  paid_minor=self.prizes_paid[player_id])
            if due:
                reason = "seat" if player_id in payout.seats else "prize"
                transfers.append(Transfer("pool", f"player:{player_id}", due, reason))
        unpaid = set(self.prizes_paid) - set(payout.prizes_minor)
        if unpaid:
            raise EngineError("payout_mismatch", "a payout must include every prize paid"
                              " at a bust", players=sorted(unpaid))
        for player_id, amount in payout.bounties_minor.items():
            transfers.append(Transfer("bounties", f"player:{player_id}", amount, "bounty"))
            self.players[player_id].bounty_minor = 0
        for player_id, amount in payout.fees_refunded_minor.items():
            if amount:
                transfers.append(Transfer("fees", f"player:{player_id}", amount,
                                          "fee_refund"))
        paid_pool = sum(payout.prizes_minor.values())
        paid_bounties = sum(payout.bounties_minor.values())
        if paid_pool != self.pool_minor or paid_bounties != self.bounties_minor:
            raise EngineError("payout_mismatch", "a payout must empty the pool and the"
                              " bounties exactly", pool_minor=self.pool_minor,
                              paid_minor=paid_pool, bounties_minor=self.bounties_minor,
                              bounties_paid_minor=paid_bounties)
        self.pool_minor = 0
        self.bounties_minor = 0
        self.fees_minor -= sum(payout.fees_refunded_minor.values())
        return transfers

    def cancel(self, stacks: Mapping[str, int] | None = None) -> list[Transfer]:
        """Cancel: before the start refund in full; after it, interrupt and
        pay by the online cancellation policy (001:L417-444)."""
        if self.phase in (Phase.ANNOUNCED, Phase.REGISTERING):
            return self._refund_all()
        self._require(*PLAYING)
        from .cancellation import interruption_payout

        self._release_special_prizes()
        self.payout = interruption_payout(self, dict(stacks or {}))
        self.phase = Phase.INTERRUPTED
        return self._pay_out(self.payout)

    def _refund_all(self) -> list[Transfer]:
        """Every purchase back in full, several entries included (001:L419-421,
        003:L171-174)."""
        transfers = []
        for player in self.players.values():
            for target, amount in (("pool", player.paid_prize_minor),
                                   ("fees", player.paid_fee_minor),
                                   ("bounties", player.paid_bounty_minor)):
                if amount:
                    transfers.append(Transfer(target, f"player:{player.player_id}", amount,
                                              "refund"))
            player.bounty_minor = 0
            player.alive = False
        self.pool_minor = self.fees_minor = self.bounties_minor = 0
        self.payout = Payout(prizes_minor={}, places={}, bounties_minor={},
                             fees_refunded_minor={}, method="refund")
        self.phase = Phase.CANCELLED
        return transfers

    # -- helpers ------------------------------------------------------------------

    def _require(self, *phases: Phase) -> None:
        if self.phase not in phases:
            raise EngineError("wrong_phase", f"not allowed while the tournament is"
                              f" {self.phase}", phase=str(self.phase),
                              allowed=[str(p) for p in phases])

    def _player(self, player_id: str) -> Player:
        player = self.players.get(player_id)
        if player is None:
            raise EngineError("not_entered", "the player has not entered this tournament",
                              player_id=player_id)
        return player

    def _alive(self, player_id: str) -> Player:
        player = self._player(player_id)
        if not player.alive:
            raise EngineError("not_in_play", "the player is not in play",
                              player_id=player_id)
        return player


def shares_by_chips(total_minor: int, stacks: Sequence[int]) -> list[Fraction]:
    chips = sum(stacks)
    return [Fraction(total_minor * s, chips) for s in stacks]


__all__ = ["Config", "Payout", "Phase", "Player", "Tournament", "Transfer", "allocate",
           "icm_split", "shares_by_chips"]
