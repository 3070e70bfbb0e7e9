"""The one command runner: every write of every casino app goes through `run`.

An app describes a write as a `Command` with three small parts and the
runner does everything else, once, the same way for every write:

    run(command, arguments, call)
      1. idempotency: the key is scoped to the client (`Call.key` is
         `<principal>:<key>`); a recorded key with the same request answers
         the recorded result (`replayed`), or re-raises the recorded
         refusal; with another request it is refused with 409
         `request.idempotency_key_reused`. Optimistically: the writer
         checks the key in its one read under the lock, so a new request
         pays no statement for it; the runner looks the key up itself only
         when a request cannot reach the append (an error in 2-5, or
         nothing to write), so a repeat still answers as it first did;
      2. business time: `Call.at` may not lie more than
         `OCCURRED_AT_SKEW_MAX` in the future (`request.occurred_at_in_future`);
      3. load    -> context        (the app's reads: a snapshot row, cached
                                    rulebooks, the player's state)
      4. check   -> Rejection|None (pure); a rejection's event is appended
                                    under the key, then its error raised
      5. decide  -> Decision       (pure: events, expected stream versions,
                                    accounts to open if missing)
      6. append with the expected versions; a stale version starts again
         from 3 with fresh state, at most `ATTEMPTS_MAX` times, then one
         409 `request.concurrent_update`; a ledger refusal (overdraft, ceiling) is
         turned into the app's coded error by `Command.refusal`;
      7. after commit: the decision's side effects, then `Command.answer`.

The runner imports no casino app: the compliance app registers how a
recorded refusal is raised again (`register_refusal_replayer`).
"""

from __future__ import annotations

import datetime as dt
import time
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Callable, Generic, Mapping, Protocol, Sequence, TypeVar

from django.db import InterfaceError, OperationalError, connection, transaction

from casino import clock
from casino.errors import CodedError
from ledger import InvariantViolation, Metadata, NewEvent, RecordedEvent, open_account
from ledger import request_fingerprint
from ledger import AccountExists, IdempotencyConflict, LedgerError, StaleVersion, UnknownAccount
from ledger.read import Account
from ledger import CROSSBOOK_LEG, append_across
from ledger import recorded_across as recorded_request

from casino import books

# Of n requests racing on one stream at least one wins each round, so each
# needs at most n tries; five covers a player served at the cage and online
# at once, and a busy table's controller beside its cash-outs.
ATTEMPTS_MAX = 5
# A table or cage system that lost its connection sends its buffered
# actions later, so business time may lie in the past; a clock a little
# ahead is tolerated, a time further ahead is a client's error.
# Decision (not in the seeds): 30 seconds, the skew NTP-synchronised hosts
# stay well within.
OCCURRED_AT_SKEW_MAX = dt.timedelta(seconds=30)

# A write under a key whose connection was lost (a failover: the new
# primary takes seconds to be promoted) is run again this many times, after
# a pause that grows by this much each time; then the error goes to the
# client, which retries under the same key. Decision (issue 19 point 7, not
# in the seeds): two retries, 0.5 s and 1 s apart, so a request holds a
# worker at most a few seconds beyond its own time.
CONNECTION_RETRIES_MAX = 2
CONNECTION_RETRY_PAUSE_SECONDS = 0.5

# The business time a client sent with the request being served
# (`occurred_at`, read by casino.api.StrictSerializer); reset for every
# request by casino.middleware.BusinessTimeMiddleware.
_client_time: ContextVar[dt.datetime | None] = ContextVar("casino_client_time", default=None)

# Whether each write run for the request being served was a replay, so the
# API answers `Idempotent-Replayed: true` whatever view served it
# (casino.middleware.WriteRequestMiddleware reads and resets it).
_replays: ContextVar[tuple[bool, ...]] = ContextVar("casino_replays", default=())

# The request id and correlation id of the request being served (set by
# casino.ops.middleware.RequestIdMiddleware); a Call without its own goes
# into the events' metadata with these (issue 18).
_request_ids: ContextVar[tuple[str, str]] = ContextVar("casino_request_ids", default=("", ""))

ContextT = TypeVar("ContextT")
ResultT = TypeVar("ResultT")


class RunnerError(CodedError):
    """A write the runner refused before the app's rules were asked."""


class RunnerErrorCode(StrEnum):
    """The runner's codes, for every write (casino.error_table has their statuses)."""

    IDEMPOTENCY_KEY_REUSED = "request.idempotency_key_reused"
    CONCURRENT_UPDATE = "request.concurrent_update"
    OCCURRED_AT_IN_FUTURE = "request.occurred_at_in_future"
    OCCURRED_AT_IN_CLOSED_DAY = "request.occurred_at_in_closed_day"


@dataclass(frozen=True, slots=True)
class Call:
    """Who runs a write, under which key, at which business time.

    `key` is already scoped to the client that sent it (the API prefixes
    the token's principal), so two clients' equal keys never meet.
    """

    actor: str
    key: str | None = None
    at: dt.datetime | None = None
    # True when `at` is a client's `occurred_at` (the API), which may not lie
    # in the future; code that passes its own business time (tasks, the
    # demo, tests with a pinned clock) is trusted.
    at_from_client: bool = False
    source: str = ""
    request_id: str = ""
    correlation_id: str = ""
    causation_id: str = ""      # the event that caused this write (a settled hand)

    def moment(self) -> dt.datetime:
        return self.at or clock.now()


@dataclass(frozen=True, slots=True)
class Rejection:
    """A refusal by a rule: the event that records it and the error to raise.

    `error(position)` builds the coded error once the refusal is on the
    record, so the answer can name the event.
    """

    event: NewEvent
    error: Callable[[int], Exception]


@dataclass(frozen=True, slots=True)
class Decision:
    """What a write appends: events, the stream versions it read, accounts.

    `accounts` are `open_account` terms for accounts the events post to and
    that may not exist yet: they are opened in the append's transaction, so
    a refused append leaves none behind. `after_commit` runs after the
    events are committed, in order.
    """

    events: Sequence[NewEvent]
    expected_versions: Mapping[str, int] = field(default_factory=dict)
    accounts: Sequence[Mapping[str, Any]] = ()
    after_commit: Sequence[Callable[[], None]] = ()
    # Nothing to write because what was asked is already on the record (a
    # day another client closed): the recorded events answer, via
    # `Command.answer_existing`, and nothing is appended.
    existing: Sequence[RecordedEvent] = ()
    # Accounts whose balances the answer reports besides those the events
    # post to: the writer reads them with its own, so the answer reads
    # nothing (ledger.read.balances_after).
    report_balances: Sequence[str] = ()


class Command(Protocol[ContextT, ResultT]):
    """A write: the app's three steps and how it answers."""

    name: str       # "<app>.<operation>", part of the request fingerprint
    source: str     # the events' metadata source, e.g. "casino.cage"

    def load(self, arguments: Mapping[str, Any], call: Call) -> ContextT: ...

    def check(self, context: ContextT) -> Rejection | None: ...

    def decide(self, context: ContextT) -> Decision: ...

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> ResultT: ...

    def refusal(self, context: ContextT, error: LedgerError) -> Exception | None: ...


class BaseCommand(Generic[ContextT, ResultT]):
    """Defaults: no check, ledger refusals raised as they are."""

    name = ""
    source = ""
    # Ledger refusals that mean "the state moved under this request" for this
    # command (a payout split at an account's ceiling, say): like a stale
    # version, they start it again from `load` with fresh state.
    retry_on: tuple[type[LedgerError], ...] = ()

    def check(self, context: ContextT) -> Rejection | None:
        return None

    def refusal(self, context: ContextT, error: LedgerError) -> Exception | None:
        return None

    def answer_existing(self, events: Sequence[RecordedEvent]) -> ResultT:
        """Answer with events already on the record that this request asked for."""
        return self.answer(events, replayed=True)

    def venue_of(self, context: ContextT) -> Any:
        """Return the venue a write is about (None: none), for the closed-day check.

        By default the context's `venue` or `place`, when it is a venue
        (anything with a `code`, a `time_zone` and a `gaming_day_start`).
        """
        for name in ("venue", "place"):
            candidate = getattr(context, name, None)
            if all(hasattr(candidate, attribute)
                   for attribute in ("code", "time_zone", "gaming_day_start")):
                return candidate
        return None


def set_client_time(at: dt.datetime | None) -> None:
    """Record the `occurred_at` the client sent with the request being served."""
    _client_time.set(at)


def set_request_ids(request_id: str, correlation_id: str) -> None:
    """Record the ids of the request being served, for its events' metadata."""
    _request_ids.set((request_id, correlation_id))


def request_ids() -> tuple[str, str]:
    """The (request id, correlation id) of the request or task being served ("" unset)."""
    return _request_ids.get()


def reset_client_time() -> None:
    """Forget the client's business time and replays (start and end of every request)."""
    _client_time.set(None)
    _replays.set(())


def replays() -> tuple[bool, ...]:
    """Whether each write run in this request was a replay, in order."""
    return _replays.get()


def _answered(command: Command[ContextT, ResultT], events: Sequence[RecordedEvent],
              replayed: bool) -> ResultT:
    _replays.set(_replays.get() + (replayed,))
    return command.answer(_own(events), replayed=replayed)


def _own(events: Sequence[RecordedEvent]) -> Sequence[RecordedEvent]:
    """The command's own events: without the legs the ledger wrote in other
    books (ledger.crossbook), whose balances its events already carry."""
    if all(event.type != CROSSBOOK_LEG for event in events):
        return events
    return [event for event in events if event.type != CROSSBOOK_LEG]


_closed_day_lookups: list[Callable[[str], dt.date | None]] = []


def register_closed_day_lookup(lookup: Callable[[str], dt.date | None]) -> None:
    """Register how to find a venue's last closed gaming day (the reports app does)."""
    if lookup not in _closed_day_lookups:
        _closed_day_lookups.append(lookup)


_refusal_replayers: list[Callable[[Sequence[RecordedEvent]], None]] = []


def register_refusal_replayer(replayer: Callable[[Sequence[RecordedEvent]], None]) -> None:
    """Register a function that re-raises a refusal recorded under a key."""
    if replayer not in _refusal_replayers:
        _refusal_replayers.append(replayer)


def fingerprint(command: Command, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Return what identifies a request for idempotency: the command and its arguments."""
    return {"command": command.name, "arguments": dict(arguments)}


def run(command: Command[ContextT, ResultT], arguments: Mapping[str, Any], call: Call
        ) -> ResultT:
    """Run one write through idempotency, load, check, decide and append.

    Raises the app's coded errors, a recorded refusal's error, RunnerError
    (`request.idempotency_key_reused`, `request.concurrent_update`, `request.occurred_at_in_future`)
    and the ledger's refusals the command does not translate.

    A write under a key whose connection to the database is lost before it
    is answered (the primary failed over, issue 19 point 7) is run again
    from the start, at most CONNECTION_RETRIES_MAX times, on a new
    connection (a multi-host DATABASE_URL reaches the new primary). The key
    makes this safe: when the lost attempt did commit, the writer answers
    the retry from the record (ledger L7) and writes nothing. Without a key,
    or inside a caller's transaction, the error is raised as it is.
    """
    for retry in range(CONNECTION_RETRIES_MAX + 1):
        try:
            return _run_once(command, arguments, call)
        except (OperationalError, InterfaceError) as error:
            if (retry == CONNECTION_RETRIES_MAX or call.key is None
                    or connection.in_atomic_block or not connection_lost(error)):
                raise
            connection.close()
            time.sleep(CONNECTION_RETRY_PAUSE_SECONDS * (retry + 1))
    raise InvariantViolation("unreachable: the last retry returns or raises")


def connection_lost(error: BaseException) -> bool:
    """Return whether a database error means the connection, not the request, failed.

    libpq's own failures (a server gone, a refused connection) carry no
    SQLSTATE; a server's are class 08 (connection exception) or 57P01-03
    (shut down, crashed, not yet accepting connections).
    """
    cause = error.__cause__ if error.__cause__ is not None else error
    sqlstate = getattr(cause, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in _SERVER_GONE_STATES


_SERVER_GONE_STATES = frozenset({"57P01", "57P02", "57P03"})


def _run_once(command: Command[ContextT, ResultT], arguments: Mapping[str, Any], call: Call
              ) -> ResultT:
    """Run one write once (`run` retries it after a lost connection)."""
    client_at = _client_time.get()
    if client_at is not None and call.at is None:
        call = replace(call, at=client_at, at_from_client=True)
    request_id, correlation_id = _request_ids.get()
    if (request_id and not call.request_id) or (correlation_id and not call.correlation_id):
        call = replace(call, request_id=call.request_id or request_id,
                       correlation_id=call.correlation_id or correlation_id)
    request = fingerprint(command, arguments)
    if call.at_from_client:
        # The business time a client sent is part of its request: the same
        # key with another occurred_at is another request.
        request["occurred_at"] = call.at.isoformat()
    metadata = Metadata(actor=call.actor, source=command.source or command.name,
                        request_id=call.request_id or None,
                        correlation_id=call.correlation_id or None,
                        causation_id=call.causation_id or None)
    try:
        return _attempt(command, arguments, call, request, metadata)
    except Exception as error:  # an app's own control flow too (nothing to do)
        if getattr(error, KEY_CHECKED, False):
            raise
        # The key is looked up only when the request cannot go through:
        # a repeat of an accepted request answers as it did even if the
        # world has changed since (a closed day, a spent balance). A repeat
        # that reaches the append is answered there, by the writer, which
        # checks the key before anything else (ledger L7).
        if call.key is not None and (recorded := recorded_request(call.key)) is not None:
            return _replay(command, request, call.key, *recorded)
        raise


def _attempt(command: Command[ContextT, ResultT], arguments: Mapping[str, Any], call: Call,
             request: Mapping[str, Any], metadata: Metadata) -> ResultT:
    """Load, check, decide and append, again with fresh state after a stale read."""
    _check_business_time(call)
    for _ in range(ATTEMPTS_MAX):
        context = command.load(arguments, call)
        if call.at_from_client:
            _check_open_day(command, context, call)
        rejection = command.check(context)
        if rejection is not None:
            home = _home_book(command, context, [rejection.event])
            replayed = _record_rejection(command, rejection, request, call, metadata, home)
            return _answered(command, replayed.events, True)
        decision = command.decide(context)
        if not decision.events:
            if not decision.existing:
                raise InvariantViolation(f"{command.name} decided nothing to write or answer")
            if call.key is not None and (recorded := recorded_request(call.key)) is not None:
                return _replay(command, request, call.key, *recorded)
            return command.answer_existing(decision.existing)
        _check_gaming_days(command, decision.events)
        try:
            result = _append(decision, request, call, metadata,
                             _home_book(command, context, decision.events))
        except (StaleVersion, AccountExists):
            continue
        except UnknownAccount as error:
            if error.details.get("account") not in _forget_accounts(decision.accounts):
                raise
            continue
        except IdempotencyConflict:
            raise _key_checked(_key_reused(call.key)) from None
        except LedgerError as error:
            if isinstance(error, getattr(command, "retry_on", ())):
                continue
            translated = command.refusal(context, error)
            if translated is None:
                raise
            raise _key_checked(translated) from None
        if result.replayed:
            # A repeat that reached the append: the writer answered from the
            # record, which may be a refusal.
            for replayer in _refusal_replayers:
                replayer(result.events)
            return _answered(command, result.events, True)
        for effect in decision.after_commit:
            effect()
        return _answered(command, result.events, False)
    raise _key_checked(RunnerError(
        RunnerErrorCode.CONCURRENT_UPDATE,
        "the records this request depends on changed each time it was tried; send it again",
        attempts=ATTEMPTS_MAX))


# Set on an error raised after the writer looked at the request's key (a
# refusal recorded under it, a ledger refusal, a reused key): `run` then does
# not look the key up again.
KEY_CHECKED = "_casino_key_checked"


def _key_checked(error: Exception) -> Exception:
    setattr(error, KEY_CHECKED, True)
    return error


def _check_gaming_days(command: Command, events: Sequence[NewEvent]) -> None:
    """Every event a command decides names its gaming day; the ledger never guesses it.

    An event about a venue takes the venue's own day (its boundary and
    zone: casino.rules.queries.venue_day); one about no venue the
    operator's (casino.clock.operator_day).
    """
    undated = sorted({event.type for event in events if event.gaming_day is None})
    if undated:
        raise InvariantViolation(
            f"{command.name} decided events without a gaming day: {', '.join(undated)};"
            " give each the venue's gaming day (venue_day) or the operator's (operator_day)")


def _check_open_day(command: Command, context: Any, call: Call) -> None:
    """Refuse a client's business time on or before the venue's last closed day.

    A closed day's figures are final (casino.reports): an action buffered by
    a table or cage system may arrive late, but not after its day closed.
    """
    venue = getattr(command, "venue_of", lambda context: None)(context)
    if venue is None or call.at is None:
        return
    from casino.rules.queries import venue_day

    day = venue_day(venue, call.at)
    for lookup in _closed_day_lookups:
        closed = lookup(venue.code)
        if closed is not None and day <= closed:
            raise RunnerError(
                RunnerErrorCode.OCCURRED_AT_IN_CLOSED_DAY,
                f"occurred_at {call.at.isoformat()} falls on gaming day {day.isoformat()} at"
                f" {venue.code}, which is closed (last closed day {closed.isoformat()})",
                venue=venue.code, gaming_day=day.isoformat(),
                last_closed_day=closed.isoformat())


def _check_business_time(call: Call) -> None:
    if call.at is None or not call.at_from_client:
        return
    now = clock.now()
    if call.at - now > OCCURRED_AT_SKEW_MAX:
        raise RunnerError(
            RunnerErrorCode.OCCURRED_AT_IN_FUTURE,
            f"occurred_at {call.at.isoformat()} is more than"
            f" {int(OCCURRED_AT_SKEW_MAX.total_seconds())} s ahead of the server's clock",
            occurred_at=call.at.isoformat(), now=now.isoformat())


def _replay(command: Command[ContextT, ResultT], request: Mapping[str, Any], key: str,
            recorded_fingerprint: str, events: Sequence[RecordedEvent]) -> ResultT:
    if recorded_fingerprint != request_fingerprint(request):
        raise _key_reused(key)
    _replays.set(_replays.get() + (True,))
    for replayer in _refusal_replayers:
        replayer(events)
    return command.answer(_own(events), replayed=True)


def _key_reused(key: str | None) -> RunnerError:
    return RunnerError(RunnerErrorCode.IDEMPOTENCY_KEY_REUSED,
                       "this Idempotency-Key was already used for a different request",
                       idempotency_key=(key or "").split(":", 1)[-1])


def _home_book(command: Command, context: Any, events: Sequence[NewEvent]) -> int:
    """The book of the venue a write is about (casino.books): the venue the
    command names, else the first venue its events name, else main."""
    venue = getattr(command, "venue_of", lambda context: None)(context)
    code = getattr(venue, "code", None)
    if code is None:
        code = next((event.payload["venue"] for event in events
                     if isinstance(event.payload.get("venue"), str)), None)
    return books.venue_book(code)


def _append_at(home: int, events: Sequence[NewEvent], **arguments: Any):
    """Append across the books the events' streams and accounts belong to (ledger.crossbook)."""
    return append_across(events, home_book=home,
                         book_for_stream=books.stream_book,
                         book_for_account=lambda code: books.account_book(code, home),
                         **arguments)


def _record_rejection(command: Command, rejection: Rejection, request: Mapping[str, Any],
                      call: Call, metadata: Metadata, home: int = books.MAIN) -> None:
    """Append the refusal under the key, then raise its error.

    Returns only when the key already holds this request's acceptance (a
    repeat of a request that went through before the world changed): the
    caller answers with it.
    """
    try:
        result = _append_at(home, [rejection.event], idempotency_key=call.key,
                            request=request, metadata=metadata)
    except IdempotencyConflict:
        raise _key_checked(_key_reused(call.key)) from None
    if result.replayed:
        # The same request is on the record (a repeat, or a race): a
        # recorded refusal is raised again, an acceptance answered.
        for replayer in _refusal_replayers:
            replayer(result.events)
        return result
    raise _key_checked(rejection.error(result.first_position))


def _append(decision: Decision, request: Mapping[str, Any], call: Call, metadata: Metadata,
            home: int = books.MAIN):
    arguments = dict(expected_versions=decision.expected_versions, idempotency_key=call.key,
                     request=request, metadata=metadata,
                     report_balances=decision.report_balances)
    codes = [terms["code"] for terms in decision.accounts]
    # Only an account the events post to may be taken from memory: the
    # writer refuses a posting to a missing one (UnknownAccount), so a
    # wrong memory costs a retry, never an account left unopened.
    posted = {posting.account for event in decision.events for posting in event.postings}
    if all(code in _open_accounts and code in posted for code in codes):
        return _append_at(home, decision.events, **arguments)
    existing = set(Account.objects.filter(code__in=codes).values_list("code", flat=True))
    missing = [terms for terms in decision.accounts if terms["code"] not in existing]
    if not missing:
        _remember_accounts(codes)
        return _append_at(home, decision.events, **arguments)
    with transaction.atomic():
        for terms in missing:
            open_account(**terms, metadata=metadata,
                         book=books.account_book(terms["code"], home))
        result = _append_at(home, decision.events, **arguments)
        if result.replayed:
            # A repeat: the record answers, and the accounts stay unopened.
            transaction.set_rollback(True)
            return result
    _remember_accounts(codes)
    return result


# Accounts this process has seen open. An account is never closed, so a
# decision whose accounts are all here (and posted to) opens none and reads
# none; should the database have lost one (a test's flush, a restore), the
# writer refuses the posting with UnknownAccount and the runner forgets and
# reads again.
_open_accounts: set[str] = set()
OPEN_ACCOUNTS_REMEMBERED_MAX = 200_000


def _remember_accounts(codes: Sequence[str]) -> None:
    if len(_open_accounts) + len(codes) > OPEN_ACCOUNTS_REMEMBERED_MAX:
        _open_accounts.clear()
    _open_accounts.update(codes)


def forget_open_accounts() -> None:
    """Forget every account remembered as open (a test's database rolled back)."""
    _open_accounts.clear()


def _forget_accounts(accounts: Sequence[Mapping[str, Any]]) -> set[str]:
    """Forget the decision's accounts; return their codes."""
    codes = {terms["code"] for terms in accounts}
    _open_accounts.difference_update(codes)
    return codes
