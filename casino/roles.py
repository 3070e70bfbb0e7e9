"""The roles people and client systems act in, as Django groups.

One role matrix (MATRIX) names, for every API operation, the roles allowed;
HasRole reads it and `tests/casino/test_roles.py` walks every operation of
the OpenAPI schema with every role against it. The two-person rules
(TWO_PERSON_RULES) are enforced by the commands they name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from rest_framework.permissions import BasePermission
from rest_framework.throttling import SimpleRateThrottle


class Role(StrEnum):
    CAGE = "cage"
    TABLE_CONTROLLER = "table_controller"
    COMPLIANCE_OFFICER = "compliance_officer"
    ACCOUNTANT = "accountant"
    AUDITOR = "auditor"


def roles_of(user) -> frozenset[str]:
    if user is None or not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_casino_roles", None)
    if cached is None:
        cached = frozenset(user.groups.values_list("name", flat=True)) & set(Role)
        user._casino_roles = cached
    return cached


def has_role(user, *roles: Role) -> bool:
    return bool(roles_of(user) & set(roles))


def ensure_role_groups() -> None:
    """Create one Django group per role (idempotent)."""
    from django.contrib.auth.models import Group

    for role in Role:
        Group.objects.get_or_create(name=role.value)


# ---------------------------------------------------------------------------
# The role matrix: every operation of the API (as the OpenAPI schema names
# it, "<METHOD> <path>") and the roles allowed to call it. HasRole reads it;
# tests/casino/test_roles.py walks every operation of the schema with every
# role and with none against it, and checks the README's table, which is
# generated from it (`python -m casino.roles`).
#
# Decisions (the README's table is the intent; the views had drifted from
# it in 26 operations, issue 16):
# - roles.tournaments.cage_money: besides the table controller, the cage may
#   take a tournament's money at its desk (entries, rebuys, add-ons); every
#   other tournament step (registration, start, prize pool, draw,
#   eliminations, disqualifications, exclusions, deals, finish, cancel) is
#   the table controller's. The cage and accountants read a tournament (to
#   sell entries; to reconcile prize pools).
# - House games are dealt by table controllers only (officers read).
# - Jackpot pools and hits are read by officers, accountants and auditors,
#   opened and rolled up by officers only (a table's display is not a
#   reader of the API).
# - Chain verifications are recorded by officers and read by officers and
#   auditors (an auditor verifies with the standalone tools; a POST here
#   writes an event, which a read-only role may not).
# - The catch-up feed and account balances are open to any authenticated
#   client; the feed shows each role only what it may read elsewhere
#   (FEED_READS below).

CAGE, TC, CO, ACC, AUD = (Role.CAGE, Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER,
                          Role.ACCOUNTANT, Role.AUDITOR)
# Any authenticated client, a user in no role included.
ANY_CLIENT = "any authenticated client"

MATRIX: dict[str, frozenset[Role] | str] = {
    "GET /api/v1/accounts/{code}": ANY_CLIENT,
    "GET /api/v1/alerts": frozenset({CO, AUD}),
    "GET /api/v1/alerts/{alert_id}": frozenset({CO, AUD}),
    "POST /api/v1/cage/chip-purchases": frozenset({CAGE}),
    "POST /api/v1/cage/chip-redemptions": frozenset({CAGE}),
    "POST /api/v1/cage/deposits": frozenset({CAGE}),
    "GET /api/v1/cage/venues/{venue}/float": frozenset({CAGE, CO, ACC, AUD}),
    "POST /api/v1/cage/withdrawals": frozenset({CAGE}),
    # issue 17: cashier windows and table-games accounting
    "POST /api/v1/cashier/shift-closes": frozenset({CAGE}),
    "GET /api/v1/cashier/shifts": frozenset({CAGE, CO, ACC, AUD}),
    "POST /api/v1/cashier/shifts": frozenset({CAGE}),
    "POST /api/v1/cashier/transfers": frozenset({CAGE}),
    "POST /api/v1/tablegames/{table}/closes": frozenset({CAGE, TC}),
    "POST /api/v1/tablegames/{table}/credits": frozenset({CAGE, TC}),
    "POST /api/v1/tablegames/{table}/fills": frozenset({CAGE, TC}),
    "POST /api/v1/tablegames/{table}/openings": frozenset({CAGE, TC}),
    "POST /api/v1/tablegames/{table}/soft-counts": frozenset({CAGE, TC}),
    "POST /api/v1/checks/stake": frozenset({CAGE, TC, CO, AUD}),
    "POST /api/v1/compliance/alert-dismissals": frozenset({CO}),
    "GET /api/v1/compliance/cases": frozenset({CO, AUD}),
    "POST /api/v1/compliance/cases": frozenset({CO}),
    "GET /api/v1/compliance/cases/{case_id}": frozenset({CO, AUD}),
    "POST /api/v1/compliance/cases/{case_id}/events": frozenset({CO}),
    "POST /api/v1/compliance/cases/{case_id}/notes": frozenset({CO}),
    "POST /api/v1/compliance/cases/{case_id}/state": frozenset({CO}),
    "GET /api/v1/compliance/chain-verifications": frozenset({CO, AUD}),
    "POST /api/v1/compliance/chain-verifications": frozenset({CO}),
    "GET /api/v1/corrections": frozenset({CO, ACC, AUD}),
    "POST /api/v1/corrections": frozenset({CO, ACC}),
    "GET /api/v1/corrections/{correction_id}": frozenset({CO, ACC, AUD}),
    "POST /api/v1/corrections/{correction_id}/approve": frozenset({CO}),
    "POST /api/v1/corrections/{correction_id}/reject": frozenset({CO}),
    "GET /api/v1/events": ANY_CLIENT,
    "GET /api/v1/games/rounds/{round_id}": frozenset({TC, CO, AUD}),
    "POST /api/v1/games/rounds/{round_id}/bets": frozenset({TC}),
    "POST /api/v1/games/rounds/{round_id}/close": frozenset({TC}),
    "POST /api/v1/games/rounds/{round_id}/outcome": frozenset({TC}),
    "POST /api/v1/games/rounds/{round_id}/settle": frozenset({TC}),
    "POST /api/v1/games/rounds/{round_id}/void": frozenset({TC}),
    "POST /api/v1/games/tables": frozenset({TC}),
    "GET /api/v1/games/tables/{table_id}": frozenset({TC, CO, AUD}),
    "POST /api/v1/games/tables/{table_id}/rounds": frozenset({TC}),
    "GET /api/v1/jackpots/hits": frozenset({CO, ACC, AUD}),
    "GET /api/v1/jackpots/hits/{hit_id}": frozenset({CO, ACC, AUD}),
    "POST /api/v1/jackpots/hits/{hit_id}/approve": frozenset({CO}),
    "POST /api/v1/jackpots/hits/{hit_id}/pay": frozenset({CO}),
    "POST /api/v1/jackpots/hits/{hit_id}/reject": frozenset({CO}),
    "GET /api/v1/jackpots/pools": frozenset({CO, ACC, AUD}),
    "POST /api/v1/jackpots/pools": frozenset({CO}),
    "GET /api/v1/jackpots/pools/{venue}/{kind}": frozenset({CO, ACC, AUD}),
    "GET /api/v1/jackpots/pools/{venue}/{kind}/rollups": frozenset({CO, ACC, AUD}),
    "POST /api/v1/jackpots/pools/{venue}/{kind}/rollups": frozenset({CO}),
    "GET /api/v1/jackpots/pools/{venue}/{kind}/terms": frozenset({CO, ACC, AUD}),
    "POST /api/v1/jackpots/pools/{venue}/{kind}/terms": frozenset({CO}),
    "POST /api/v1/machine-premises": frozenset({CO}),
    "POST /api/v1/machines": frozenset({CO}),
    "GET /api/v1/machines/{machine_id}": frozenset({TC, CO, ACC, AUD}),
    "POST /api/v1/machines/{machine_id}/cash-ins": frozenset({TC}),
    "POST /api/v1/machines/{machine_id}/cash-outs": frozenset({TC}),
    "GET /api/v1/machines/{machine_id}/meters": frozenset({TC, CO, ACC, AUD}),
    "POST /api/v1/machines/{machine_id}/rounds": frozenset({TC}),
    "POST /api/v1/players": frozenset({CAGE}),
    "GET /api/v1/players/{player_id}": frozenset({CAGE, CO, AUD}),
    "GET /api/v1/players/{player_id}/limits": frozenset({CAGE, CO, AUD}),
    "POST /api/v1/players/{player_id}/limits": frozenset({CAGE, CO}),
    "POST /api/v1/players/{player_id}/self-exclusion": frozenset({CAGE, CO}),
    "POST /api/v1/players/{player_id}/verification": frozenset({CAGE, CO}),
    "GET /api/v1/poker/hands/{hand_id}": frozenset({TC, CO, AUD}),
    "POST /api/v1/poker/hands/{hand_id}/actions": frozenset({TC}),
    "POST /api/v1/poker/hands/{hand_id}/decision": frozenset({CO}),
    "POST /api/v1/poker/hands/{hand_id}/showdown": frozenset({TC}),
    "POST /api/v1/poker/hands/{hand_id}/void": frozenset({TC}),
    "POST /api/v1/poker/tables": frozenset({TC}),
    "GET /api/v1/poker/tables/{table_id}": frozenset({TC, CO, AUD}),
    "POST /api/v1/poker/tables/{table_id}/buy-ins": frozenset({TC}),
    "POST /api/v1/poker/tables/{table_id}/cash-outs": frozenset({TC}),
    "POST /api/v1/poker/tables/{table_id}/hand-histories": frozenset({TC}),
    "POST /api/v1/poker/tables/{table_id}/hands": frozenset({TC}),
    "POST /api/v1/poker/tables/{table_id}/time-charges": frozenset({TC}),
    "GET /api/v1/reports/closes": frozenset({ACC, AUD, CO}),
    "GET /api/v1/reports/closes/{venue}/{day}": frozenset({ACC, AUD, CO}),
    "POST /api/v1/reports/closes/{venue}/{day}": frozenset({ACC, CO}),
    "GET /api/v1/reports/exports": frozenset({ACC, AUD, CO}),
    "GET /api/v1/reports/journal": frozenset({ACC, AUD, CO}),
    "GET /api/v1/reports/seals": frozenset({ACC, AUD, CO}),
    "GET /api/v1/rulebooks": frozenset({CAGE, TC, CO, ACC, AUD}),
    "GET /api/v1/rulebooks/{rulebook_id}/{version}": frozenset({CAGE, TC, CO, ACC, AUD}),
    "POST /api/v1/sitngo/series": frozenset({TC}),
    "GET /api/v1/sitngo/series/{series_id}": frozenset({TC, CO, AUD}),
    "POST /api/v1/sitngo/series/{series_id}/tournaments": frozenset({TC}),
    "POST /api/v1/tournaments": frozenset({TC}),
    "GET /api/v1/tournaments/{tournament_id}": frozenset({CAGE, TC, CO, ACC, AUD}),
    "POST /api/v1/tournaments/{tournament_id}/add-ons": frozenset({CAGE, TC}),
    "POST /api/v1/tournaments/{tournament_id}/cancel": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/deals": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/disqualifications": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/draw": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/eliminations": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/entries": frozenset({CAGE, TC}),
    "POST /api/v1/tournaments/{tournament_id}/exclusions": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/finish": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/prize-pool": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/rebuys": frozenset({CAGE, TC}),
    "POST /api/v1/tournaments/{tournament_id}/registration": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/special-prizes": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/start": frozenset({TC}),
    "POST /api/v1/tournaments/{tournament_id}/unregistrations": frozenset({CAGE, TC}),
    "GET /api/v1/venues": frozenset({CAGE, TC, CO, ACC, AUD}),
    "POST /api/v1/venues": frozenset({CO}),
    "GET /api/v1/venues/{code}": frozenset({CAGE, TC, CO, ACC, AUD}),
    "POST /api/v1/venues/{code}/changes": frozenset({CO}),
    # Issue 15: machine jackpots, malfunction credits, slot tournaments, meters.
    "POST /api/v1/machine-jackpots": frozenset({CO}),
    "POST /api/v1/machine-jackpots/{jackpot_id}/hits": frozenset({TC}),
    "POST /api/v1/machine-meters/reconciliations": frozenset({CO, ACC}),
    "POST /api/v1/machines/{machine_id}/malfunction-credits": frozenset({TC, CO}),
    "POST /api/v1/machines/{machine_id}/pay-outs": frozenset({TC}),
    "POST /api/v1/malfunction-credits/{credit_id}/approve": frozenset({CO}),
    "POST /api/v1/malfunction-credits/{credit_id}/reject": frozenset({CO}),
    "POST /api/v1/slot-tournaments": frozenset({CO}),
    "POST /api/v1/slot-tournaments/{tournament_id}/entries": frozenset({CAGE, TC}),
    "POST /api/v1/slot-tournaments/{tournament_id}/finish": frozenset({CO}),
    "POST /api/v1/slot-tournaments/{tournament_id}/prizes": frozenset({CO}),
    "POST /api/v1/slot-tournaments/{tournament_id}/start": frozenset({CO}),
    "POST /api/v1/vouchers/{voucher_id}/redemptions": frozenset({CAGE, TC}),
    # issue 18 item 2: a client in any role subscribes to what it reads in
    # the feed (casino.webhooks; the feed's rules decide what each delivery holds)
    "POST /api/v1/webhooks/subscriptions": frozenset(Role),
    "GET /api/v1/webhooks/subscriptions/{subscription_id}": frozenset(Role),
    "POST /api/v1/webhooks/subscriptions/{subscription_id}/secrets": frozenset(Role),
    # issue 18 item 8: erasure of a player's personal data, by two officers
    "POST /api/v1/players/{player_id}/erasures": frozenset({CO}),
    "POST /api/v1/players/{player_id}/erasures/approve": frozenset({CO}),
}


def operation(method: str, route: str) -> str:
    """The matrix key of a request: "GET /api/v1/players/{player_id}".

    `route` is Django's (resolver_match.route, "api/v1/players/<str:player_id>").
    HEAD and OPTIONS are reads, keyed as GET.
    """
    method = "GET" if method.upper() in ("HEAD", "OPTIONS") else method.upper()
    path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
    return f"{method} /{path.lstrip('/')}"


def allowed_roles(key: str) -> frozenset[Role] | str | None:
    """The roles the matrix allows for an operation (None: not in the matrix)."""
    return MATRIX.get(key)


class HasRole(BasePermission):
    """Admit a request when the matrix allows one of the user's roles.

    Every API view's permission classes include it (the REST framework's
    default too, so the ledger's read views are under the matrix without
    the ledger knowing the casino). An operation missing from the matrix
    falls back to the view's own `roles_read` / `roles_write` while a new
    endpoint is being built, and the role test fails until its row is
    added; an operation with neither is refused.
    """

    message = "your role does not allow this"

    def has_permission(self, request, view) -> bool:
        match = getattr(request, "resolver_match", None)
        route = getattr(match, "route", "") or ""
        if not route.startswith("api/v1/"):
            return True
        allowed = allowed_roles(operation(request.method, route))
        if allowed is None and not hasattr(view, request.method.lower()):
            return True     # the view answers 405 for a method it does not implement
        if allowed is None:
            allowed = getattr(view, "roles_read" if request.method in ("GET", "HEAD", "OPTIONS")
                              else "roles_write", None)
            if allowed is None:
                return False
        if allowed == ANY_CLIENT:
            admitted = bool(request.user and request.user.is_authenticated)
        else:
            admitted = has_role(request.user, *allowed)
        if not admitted:
            return False
        outside = venues_outside_scope(request, view)
        if outside:
            self.message = (f"this API key does not serve {', '.join(outside)}"
                            " (casino.keys: a key is scoped to its venues)")
            return False
        return True


def request_venues(request, view) -> set[str]:
    """The venues a request names: in its URL, its query, or its body's `venue`."""
    named = set()
    kwargs = getattr(view, "kwargs", None) or {}
    if kwargs.get("venue"):
        named.add(str(kwargs["venue"]))
    if request.query_params.get("venue"):
        named.add(request.query_params["venue"])
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        data = request.data     # a malformed body raises its 400 here, as in the view
        if isinstance(data, dict) and isinstance(data.get("venue"), str):
            named.add(data["venue"])
    return named


def venues_outside_scope(request, view) -> list[str]:
    """The venues a request names that its API key does not serve (none: in scope).

    A key without venues serves every venue; a session (the admin) is not
    scoped. Writes about a table, round or hand are scoped through the venue
    their body or URL names; one that names none is not checked here.
    """
    key = getattr(request, "auth", None)
    if not getattr(key, "venues", None):
        return []       # no key (a session), or a key for every venue
    return sorted(venue for venue in request_venues(request, view) if not key.serves(venue))


# ---------------------------------------------------------------------------
# The event feed by role (GET events). Each event type family is read
# elsewhere through one operation; a client sees an event in the feed only
# when its roles may call that operation, so no role reads through the feed
# what it is refused elsewhere. A family not listed here is shown only to the
# roles that read personal data. Personal data in a payload (names, birth
# dates, documents, nationality) is replaced by None for every other role,
# and the payload names the fields it hid under `redacted`.

PERSONAL_DATA_ROLES = frozenset({CO, AUD})
FEED_READS: dict[str, str] = {
    "players.": "GET /api/v1/players/{player_id}",
    "cage.": "GET /api/v1/cage/venues/{venue}/float",
    "cashier.": "GET /api/v1/cage/venues/{venue}/float",
    "poker.": "GET /api/v1/poker/hands/{hand_id}",
    "games.": "GET /api/v1/games/rounds/{round_id}",
    "tablegames.": "GET /api/v1/games/tables/{table_id}",
    "jackpots.": "GET /api/v1/jackpots/hits",
    "tournaments.": "GET /api/v1/tournaments/{tournament_id}",
    "sitngo.": "GET /api/v1/sitngo/series/{series_id}",
    "machines.": "GET /api/v1/machines/{machine_id}",
    "reports.": "GET /api/v1/reports/closes",
    "rules.": "GET /api/v1/venues",
    "ledger.account_opened": "GET /api/v1/accounts/{code}",
    # Decision (issue 19): money between books (ledger.transfers: sent,
    # pending, received, refused, posted, voided) is read elsewhere as the
    # postings of the journal export, which names each posting's event type,
    # stream and account: accountants, auditors and officers. The cage and
    # table controllers read balances, not the movements between books.
    "ledger.transfer_": "GET /api/v1/reports/journal",
    # The legs of a request written across books (ledger.crossbook): the
    # same postings, read the same way.
    "ledger.crossbook_": "GET /api/v1/reports/journal",
    "compliance.correction_": "GET /api/v1/corrections",
    "compliance.case_": "GET /api/v1/compliance/cases",
    "compliance.chain_": "GET /api/v1/compliance/chain-verifications",
    # alerts, refusals, dismissals, two-person refusals: AML and case content
    "compliance.": "GET /api/v1/alerts",
}
PERSONAL_FIELDS = frozenset({
    "given_name", "family_name", "name", "full_name", "first_name", "last_name",
    "date_of_birth", "born", "birth_date", "document_type", "document_number",
    "document", "documents", "document_hint", "identity_key", "nationality", "address",
    "email", "phone",
})


def feed_operation(event_type: str) -> str | None:
    """The operation through which an event type is read elsewhere (longest prefix)."""
    best = None
    for prefix, key in FEED_READS.items():
        if event_type.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, key)
    return best[1] if best else None


def may_read_event(roles: frozenset[str], event_type: str) -> bool:
    """Whether a client in `roles` may see an event of this type in the feed."""
    key = feed_operation(event_type)
    allowed = MATRIX.get(key) if key else None
    if allowed is None:
        return bool(roles & PERSONAL_DATA_ROLES)
    if allowed == ANY_CLIENT:
        return True
    return bool(roles & allowed)


def _redact(value, hidden: set[str]):
    if isinstance(value, dict):
        out = {}
        for name, item in value.items():
            if name in PERSONAL_FIELDS and item is not None:
                hidden.add(name)
                out[name] = None
            else:
                out[name] = _redact(item, hidden)
        return out
    if isinstance(value, list):
        return [_redact(item, hidden) for item in value]
    return value


def feed_filter(request, events):
    """The feed a request may read (settings.LEDGER_FEED_FILTER, called by ledger.api).

    Events of types the client's roles may not read elsewhere are left out;
    personal data is hidden from roles outside PERSONAL_DATA_ROLES.
    """
    from dataclasses import replace

    from casino.privacy.crypto import is_sealed, opened_payload

    roles = roles_of(request.user)
    serves = getattr(getattr(request, "auth", None), "serves", None)
    shown = []
    for event in events:
        if not may_read_event(roles, event.type):
            continue
        if is_sealed(event.payload):
            # Personal data sealed per player (casino.privacy): opened here, then
            # hidden below as any personal data is; "erased" once the key is gone.
            event = replace(event, payload=opened_payload(event.payload))
        venue = event.payload.get("venue") if isinstance(event.payload, dict) else None
        if serves is not None and isinstance(venue, str) and not serves(venue):
            continue        # a venue-scoped key reads its venues' events only
        if not roles & PERSONAL_DATA_ROLES:
            hidden: set[str] = set()
            payload = _redact(dict(event.payload), hidden)
            if hidden:
                payload["redacted"] = sorted(hidden)
                event = replace(event, payload=payload)
        shown.append(event)
    return shown


def readme_table() -> str:
    """The README's role table, generated from the matrix (one row per operation)."""
    names = {CAGE: "cage", TC: "table controller", CO: "compliance officer",
             ACC: "accountant", AUD: "auditor"}
    rows = ["| operation | roles |", "|---|---|"]
    for key in sorted(MATRIX, key=lambda k: (k.split(" ", 1)[1], k.split(" ", 1)[0])):
        allowed = MATRIX[key]
        who = (ANY_CLIENT if allowed == ANY_CLIENT
               else ", ".join(names[role] for role in Role if role in allowed))
        method, path = key.split(" ", 1)
        rows.append(f"| `{method} {path.removeprefix('/api/v1/')}` | {who} |")
    return "\n".join(rows) + "\n"


class ClientRateThrottle(SimpleRateThrottle):
    """Requests per client (its user; its address when unauthenticated), 429 beyond.

    The rate is read from settings.CASINO_API_RATE when asked (not frozen at
    import), "<n>/<s|min|h|d>"; the history is kept in the default cache.
    """

    scope = "client"

    def get_rate(self) -> str | None:
        from django.conf import settings

        return getattr(settings, "CASINO_API_RATE", None)

    def get_cache_key(self, request, view) -> str:
        user = getattr(request, "user", None)
        ident = (f"user:{user.pk}" if user is not None and user.is_authenticated
                 else f"address:{self.get_ident(request)}")
        return f"throttle_{self.scope}_{ident}"


class WriteRateThrottle(ClientRateThrottle):
    """A view's costly writes per client (its `write_rate` setting name); reads are free.

    A chain verification re-reads the whole log: settings.CASINO_VERIFY_RATE
    (default 6 a minute per client) bounds what one client can make it cost.
    """

    scope = "write"

    def allow_request(self, request, view) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        self.scope = f"write:{type(view).__name__}"
        self.rate = self.get_rate_for(view)
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_rate(self) -> str | None:
        return None     # set per view in allow_request

    @staticmethod
    def get_rate_for(view) -> str | None:
        from django.conf import settings

        return getattr(settings, getattr(view, "write_rate", ""), None)


# ---------------------------------------------------------------------------
# Two-person (four-eyes) rules.
#
# Each row names a command and the earlier step of the same record whose
# actor may not take it. The command enforces it in its `check` (so the
# API, the admin actions, the officers' desk and any task get the same
# refusal), records the refusal as an event (the runner appends it under
# the request's key) and raises a coded 403. DESIGN 3: manual corrections
# need two people; decision (officers' desk, casino/officers/jackpots.py):
# a jackpot hit is paid by an officer other than the one who approved it.


@dataclass(frozen=True, slots=True)
class TwoPersonRule:
    command: str        # the runner command refused to the earlier step's actor
    earlier: str        # the step whose actor it is
    actor_field: str    # where the record keeps that actor
    code: str           # the refusal's error code (casino.error_table: 403)
    why: str


TWO_PERSON_RULES: tuple[TwoPersonRule, ...] = (
    TwoPersonRule("jackpots.pay_hit", "jackpots.approve_hit", "approved_by",
                  "jackpots.payer_is_approver",
                  "the approval fixes the amounts and the payment moves the money; one"
                  " person doing both is what the two-person rule prevents"),
    TwoPersonRule("compliance.approve_correction", "compliance.propose_correction",
                  "proposed_by", "compliance.approver_is_proposer",
                  "a manual correction is approved by someone other than its proposer"
                  " (DESIGN 3)"),
    TwoPersonRule("compliance.reject_correction", "compliance.propose_correction",
                  "proposed_by", "compliance.approver_is_proposer",
                  "a manual correction is decided by someone other than its proposer"
                  " (DESIGN 3)"),
    TwoPersonRule("machines.approve_malfunction_credit",
                  "machines.propose_malfunction_credit", "proposed_by",
                  "machines.approver_is_proposer",
                  "a malfunction credit is decided by a person other than its proposer"
                  " (the machines app's decision: credited by two people)"),
    TwoPersonRule("machines.reject_malfunction_credit",
                  "machines.propose_malfunction_credit", "proposed_by",
                  "machines.approver_is_proposer",
                  "a malfunction credit is decided by a person other than its proposer"
                  " (the machines app's decision: credited by two people)"),
    TwoPersonRule("privacy.approve_erasure", "privacy.propose_erasure", "proposed_by",
                  "privacy.approver_is_proposer",
                  "erasing a player's personal data cannot be undone: a second officer"
                  " approves it (issue 18 item 8)"),
)


def two_person_rule(command: str) -> TwoPersonRule:
    """The two-person rule of `command` (KeyError: it has none)."""
    for rule in TWO_PERSON_RULES:
        if rule.command == command:
            return rule
    raise KeyError(command)


def same_person(rule: TwoPersonRule, *, actor: str, earlier_actor: str | None) -> bool:
    """True when `actor` took the earlier step `rule` names (the step is refused)."""
    return bool(earlier_actor) and earlier_actor == actor


def four_eyes_payload(rule: TwoPersonRule, *, actor: str, earlier_actor: str,
                      record: str, message: str) -> dict:
    """The payload of a recorded two-person refusal (every app's `*.four_eyes_refused`)."""
    return {"command": rule.command, "earlier": rule.earlier, "record": record,
            "actor": actor, rule.actor_field: earlier_actor, "rule": rule.code,
            "message": message, "why": rule.why}


if __name__ == "__main__":      # print the README's table
    print(readme_table(), end="")
