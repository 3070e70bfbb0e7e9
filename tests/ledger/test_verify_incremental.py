"""Incremental verification from the last seal (issue 16, point 7, last bullet).

`verify_ledger(incremental=True)` (`manage.py verify_ledger --incremental`)
trusts what the external seal file vouches for: it reads the event at the
last sealed position and the events after it, never the sealed part, and
seals what it verified. Rows read are counted where the verifier reads the
log (`ledger.store._fetch`, wrapped, the real query still runs), not timed.
Tampering needs a superuser with the triggers off, as in tests/security.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from ledger import seals, store, verify
from ledger.store import load_events_after
from ledger.verify import verify_ledger
from tests.ledger.factories import transfer
from tests.security.test_seals import _edit, _recompute_chain_from, _tamper


@pytest.fixture
def seal_dir(settings, tmp_path):
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    return tmp_path


@pytest.fixture
def reads(monkeypatch):
    """The positions of every event row the verifier loads from the log."""
    positions: list[int] = []
    real = store._fetch

    def counting(where, params, *using):
        events = real(where, params, *using)
        positions.extend(event.position for event in events)
        return events

    monkeypatch.setattr(store, "_fetch", counting)
    return positions


def _grow_to(position: int) -> None:
    while (load_events_after(position - 1, 1) or [None])[0] is None:
        transfer("player/alice", "cage/cash", 100)


def _seal_file(seal_dir):
    return next(seal_dir.glob("seals-*.jsonl"))


@pytest.fixture
def sealed_at_30(accounts, seal_dir):
    """30 events (4 account openings, 26 transfers), verified and sealed at 10 and 30."""
    _grow_to(10)
    first = verify_ledger(incremental=True)
    assert (first.ok, first.since, first.read, first.sealed) == (True, 0, 10, 10), str(first)
    _grow_to(30)
    second = verify_ledger(incremental=True)
    assert (second.ok, second.since, second.read, second.sealed) == (True, 10, 20, 30)
    assert [seal["tree_size"] for seal in seals.read_seals(_seal_file(seal_dir))] == [10, 30]
    return seal_dir


def test_a_second_verify_reads_only_the_new_events(sealed_at_30, reads):
    """After a verified seal at 30, three new events cost four rows: the sealed
    position (its hash against the seal) and the three; the full run reads 33."""
    for _ in range(3):
        transfer("player/alice", "cage/cash", 100)
    result = verify_ledger(incremental=True)
    assert (result.ok, result.events, result.since, result.read) == (True, 33, 30, 3)
    assert sorted(reads) == [30, 31, 32, 33]
    assert result.sealed == 33
    assert "3 read after the seal at 30" in str(result)
    written = seals.read_seals(_seal_file(sealed_at_30))
    assert [seal["tree_size"] for seal in written] == [10, 30, 33]
    assert written[-1]["leaves"] == [event.hash for event in load_events_after(30, 10)]
    reads.clear()
    assert verify_ledger().ok
    assert sorted(set(reads)) == list(range(1, 34))


def test_nothing_new_reads_one_event(sealed_at_30, reads):
    """With nothing after the seal, an incremental run reads the sealed position only."""
    result = verify_ledger(incremental=True)
    assert (result.ok, result.read, result.sealed) == (True, 0, 30)
    assert reads == [30]
    assert len(seals.read_seals(_seal_file(sealed_at_30))) == 2


def test_a_tamper_in_the_new_part_is_caught_and_not_sealed(sealed_at_30, reads):
    """An edited event after the seal is named at its position, the seal at 30
    as the last good one, and nothing more is sealed."""
    for _ in range(3):
        transfer("player/alice", "cage/cash", 100)
    _edit(32)
    result = verify_ledger(incremental=True)
    assert (result.ok, result.bad_position, result.last_good_seal) == (False, 32, 30), str(result)
    assert "altered" in result.problem
    assert max(reads) <= 33 and min(reads) == 30
    assert len(seals.read_seals(_seal_file(sealed_at_30))) == 2


def test_a_rehashed_edit_in_the_sealed_part_is_caught_by_the_seal_check(sealed_at_30):
    """An edit at 12 with the chain recomputed after it (the chain alone is then
    intact) changes the hash at the sealed position 30; the comparison with the
    seals names 12 and the seal at 10 as the last good one."""
    _edit(12)
    _recompute_chain_from(12)
    assert verify.verify_chain().ok
    result = verify_ledger(incremental=True)
    assert (result.ok, result.bad_position, result.last_good_seal) == (False, 12, 10), str(result)
    assert "differs from its seal" in result.problem
    with pytest.raises(ValueError, match="no longer matches its seals"):
        seals.anchor()


def test_a_cut_tail_in_the_sealed_part_is_caught(sealed_at_30):
    """Cutting 29 and 30 and moving the head back to 28 leaves no event at the
    sealed position: named at 29, last good seal 10."""
    for position in (30, 29):
        _tamper(("DELETE FROM ledger_posting WHERE event_id = %s", [position]),
                ("DELETE FROM ledger_event WHERE position = %s", [position]))
    twenty_eight = load_events_after(27, 1)[0]
    _tamper(("UPDATE ledger_head SET position = 28, hash = %s WHERE id = 1",
             [twenty_eight.hash]))
    result = verify_ledger(incremental=True)
    assert (result.ok, result.bad_position, result.last_good_seal) == (False, 29, 10), str(result)


def test_an_edited_balance_the_new_events_move_is_caught(sealed_at_30):
    """The balances of the accounts the new events post to are recomputed."""
    transfer("player/alice", "cage/cash", 100)
    _tamper(("UPDATE ledger_account SET balance_minor = balance_minor + 50000"
             " WHERE code = 'player/alice'", []))
    result = verify_ledger(incremental=True)
    assert (result.ok, result.account) == (False, "player/alice")
    assert len(seals.read_seals(_seal_file(sealed_at_30))) == 2


def test_what_only_the_full_run_sees_at_once(sealed_at_30):
    """The incremental run's limit, said by a test: an edit in the sealed part
    that leaves the stored hashes alone is not read by it (without the rolling
    audit); the full run, which reads every event against the seals, names it."""
    _edit(7)
    assert verify_ledger(incremental=True).ok
    result = verify_ledger()
    assert (result.ok, result.bad_position, result.last_good_seal) == (False, 7, None)


def test_the_rolling_audit_rereads_the_sealed_part_window_by_window(sealed_at_30, reads):
    """With audit=12 each run re-reads the next 12 sealed events against the
    seals (1-12, 13-24, 25-30, then 1-12 again), besides the sealed position."""
    windows = []
    for _ in range(4):
        reads.clear()
        result = verify_ledger(incremental=True, audit=12)
        assert result.ok, str(result)
        windows.append((result.audited, sorted(reads)))
    # Each run also reads the sealed position 30 once (the anchor).
    assert windows == [(12, [*range(1, 13), 30]), (12, [*range(13, 25), 30]),
                       (6, [*range(25, 31), 30]), (12, [*range(1, 13), 30])]
    assert "12 sealed re-read" in str(result)


@pytest.mark.parametrize("attack, position, last_good", [
    (lambda: _edit(17), 17, 10),
    (lambda: _tamper(("DELETE FROM ledger_posting WHERE event_id = 15", []),
                     ("DELETE FROM ledger_event WHERE position = 15", [])), 15, 10),
], ids=["edited_under_its_hash", "deleted_without_a_rehash"])
def test_the_rolling_audit_finds_what_the_anchor_cannot(sealed_at_30, attack, position,
                                                        last_good):
    """An edit under an unchanged stored hash, or a deletion without a rehash, in
    the sealed part: the first window (1-12) is clean, the second names the
    position and the seal at 10 as the last good one."""
    attack()
    assert verify_ledger(incremental=True, audit=12).ok
    result = verify_ledger(incremental=True, audit=12)
    assert (result.ok, result.bad_position, result.last_good_seal) == (
        False, position, last_good), str(result)


def test_the_first_incremental_run_without_a_seal_file_is_the_full_one(accounts, seal_dir,
                                                                       reads):
    """No seal yet: everything is read (projections rebuilt too), then sealed."""
    _grow_to(6)
    _tamper(("UPDATE ledger_stream SET version = 9 WHERE name = 'account/player/bob'", []))
    result = verify_ledger(incremental=True)
    assert (result.ok, result.table) == (False, "ledger_stream"), str(result)
    assert not list(seal_dir.glob("seals-*.jsonl"))


def test_the_first_incremental_run_checks_every_balance(accounts, seal_dir):
    """With no seal yet, an account no event posts to is checked too: bob's
    balance raised with the triggers off is named, and nothing is sealed."""
    _grow_to(6)
    _tamper(("UPDATE ledger_account SET balance_minor = 500 WHERE code = 'player/bob'", []))
    result = verify_ledger(incremental=True)
    assert (result.ok, result.account) == (False, "player/bob"), str(result)
    assert not list(seal_dir.glob("seals-*.jsonl"))


def test_the_rate_holds_the_walk_to_that_many_events_a_second(accounts, monkeypatch):
    """At 4 events a second, 10 events are read in chunks of at most 4 and the
    walk pauses 10 / 4 = 2.5 s in all (a clock that moves only when the walk
    sleeps: reading takes no time, and nothing is timed)."""
    _grow_to(10)
    now = [100.0]
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(verify, "_clock", lambda: now[0])
    monkeypatch.setattr(verify, "_sleep", sleep)
    chunks: list[int] = []
    assert verify_ledger(progress=chunks.append, rate=4).ok
    assert chunks == [4, 4, 2]
    assert pauses == [1.0, 1.0, 0.5]
    with pytest.raises(ValueError):
        verify.Throttle(0)


def test_the_command_verifies_incrementally_at_a_rate(sealed_at_30, capsys, monkeypatch):
    monkeypatch.setattr(verify, "_sleep", lambda seconds: None)
    transfer("player/alice", "cage/cash", 100)
    call_command("verify_ledger", "--incremental", "--rate", "1000", "--audit", "5",
                 "--no-progress")
    assert capsys.readouterr().out.strip() == (
        "verify_ledger: OK (31 events, 31 sealed; 1 read after the seal at 30,"
        " 5 sealed re-read)")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100])
def test_the_frontier_gives_rfc_6962s_root(n):
    """The one-pass tree the seal file check and the sealer use equals MTH(D[n])."""
    leaves = [seals.leaf_hash(f"{i:064x}") for i in range(n)]
    frontier = seals.Frontier()
    for leaf in leaves:
        frontier.add(leaf)
    assert frontier.root() == seals.merkle_root(leaves)
    assert frontier.size == n


def test_the_audit_cursor_may_live_apart_from_the_seal_file(sealed_at_30, settings,
                                                            tmp_path_factory):
    """On append-only seal storage the cursor goes where LEDGER_VERIFY_AUDIT_FILE
    says; the seal file's folder gets nothing but the seals."""
    elsewhere = tmp_path_factory.mktemp("state")
    settings.LEDGER_VERIFY_AUDIT_FILE = str(elsewhere / "audit-{database}")
    assert verify_ledger(incremental=True, audit=12).ok
    (cursor,) = elsewhere.iterdir()
    assert cursor.read_text() == "13\n"
    assert [path.name.startswith("seals-") for path in sealed_at_30.iterdir()
            if path.name != "seal.key"] == [True]


def test_the_sealers_lock_is_released_whatever_happens(sealed_at_30):
    """The sealers' advisory lock is held only while one verifies and seals."""
    from django.db import connection

    def held() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                           " AND pid = pg_backend_pid() AND objid = %s", [seals.SEAL_LOCK])
            return cursor.fetchone()[0]

    with seals.locked(sealed_at_30):
        assert held() == 1
    assert verify_ledger(incremental=True).ok
    assert held() == 0
    _edit(12)
    _recompute_chain_from(12)
    assert not verify_ledger(incremental=True).ok
    assert held() == 0
    with pytest.raises(ValueError):
        seals.anchor()
    assert held() == 0
