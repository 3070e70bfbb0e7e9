"""Seals the database cannot forge (issue 16, item 7 of the issue).

The log is sealed three times (5, 10 and 12 events) into a seal file outside
the database, signed with an Ed25519 key the database never holds. Then
someone with the database's superuser (triggers off) tampers, in each of the
ways the issue lists, and verify_ledger names the first position that
differs and the last seal the log still matches. The chain alone misses two
of them (a cut tail with the head moved back, a chain recomputed after an
edit); the seals catch all. The Merkle proofs follow RFC 6962, checked
against a plain recursive reference, and the auditor's verifier runs on the
seal file alone.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from django.db import connection

from ledger import seals
from ledger.canonical import dumps, event_hash, timestamp_text
from ledger.models import Event
from ledger.store import load_events_after
from ledger.verify import verify_chain, verify_ledger
from tests.ledger.factories import transfer


# --- the Merkle tree against RFC 6962's recursive definition ---------------------------

def reference_root(leaves: list[bytes]) -> bytes:
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + reference_root(leaves[:k])
                          + reference_root(leaves[k:])).digest()


LEAVES = [seals.leaf_hash(hashlib.sha256(str(i).encode()).hexdigest()) for i in range(40)]


@pytest.mark.parametrize("n", range(41))
def test_merkle_root_is_rfc_6962s(n):
    assert seals.merkle_root(LEAVES[:n]) == reference_root(LEAVES[:n])


def test_every_inclusion_and_consistency_proof_verifies_and_a_wrong_one_does_not():
    for n in range(1, 21):
        root = seals.merkle_root(LEAVES[:n])
        for i in range(n):
            proof = seals.inclusion_proof(i, LEAVES[:n])
            assert seals.verify_inclusion(i, n, LEAVES[i], proof, root), (i, n)
            assert not seals.verify_inclusion(i, n, LEAVES[(i + 1) % 40], proof, root)
        for m in range(1, n + 1):
            proof = seals.consistency_proof(m, LEAVES[:n])
            old = seals.merkle_root(LEAVES[:m])
            assert seals.verify_consistency(m, n, proof, old, root), (m, n)
            if m < n:
                assert not seals.verify_consistency(m, n, proof, LEAVES[39], root)


# --- the attacks -------------------------------------------------------------------------

@pytest.fixture
def sealed(accounts, settings, tmp_path):
    """12 events sealed at 5, 10 and 12 (4 accounts opened, then transfers)."""
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    sizes = []
    for target in (5, 10, 12):
        while load_events_after(0, 1000)[-1].position < target:
            transfer("player/alice", "cage/cash", 100)
        sizes.append(seals.anchor(sealed_at=f"2026-06-16T0{len(sizes)}:00:00+00:00")["tree_size"])
    assert sizes == [5, 10, 12]
    assert seals.anchor() is None            # nothing new
    assert verify_ledger().ok
    return tmp_path


def _tamper(*statements) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for sql, params in statements:
            cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def _recompute_chain_from(position: int) -> None:
    """What a careful attacker does after an edit: rehash every later event and the head."""
    events = load_events_after(position - 1, 1000)
    prev = load_events_after(position - 2, 1)[0].hash if position > 1 else "0" * 64
    for event in events:
        new = event_hash(
            prev_hash=prev, position=event.position, stream=event.stream,
            version=event.version, type=event.type, schema_version=event.schema_version,
            payload_json=dumps(event.payload), metadata_json=dumps(event.metadata),
            idempotency_key=event.idempotency_key,
            occurred_at_text=timestamp_text(event.occurred_at),
            recorded_at_text=timestamp_text(event.recorded_at), gaming_day=event.gaming_day,
            postings=[(p.account, p.amount_minor, p.currency) for p in event.postings])
        _tamper(("UPDATE ledger_event SET prev_hash = %s, hash = %s WHERE position = %s",
                 [prev, new, event.position]))
        prev = new
    _tamper(("UPDATE ledger_head SET hash = %s WHERE id = 1", [prev]))


def _edit(position: int) -> None:
    _tamper(("UPDATE ledger_event SET payload = '{\"amount_minor\": 1}' WHERE position = %s",
             [position]))


def _delete(*positions: int) -> None:
    for position in positions:
        _tamper(("DELETE FROM ledger_posting WHERE event_id = %s", [position]),
                ("DELETE FROM ledger_event WHERE position = %s", [position]))


def edited_event():
    _edit(7)


def deleted_event():
    _delete(6)


def tail_cut_head_moved():
    _delete(12, 11)
    ten = load_events_after(9, 1)[0]
    _tamper(("UPDATE ledger_head SET position = 10, hash = %s WHERE id = 1", [ten.hash]))


def chain_recomputed_after_an_edit():
    _edit(8)
    _recompute_chain_from(8)


ATTACKS = [  # (attack, first position that differs, last good seal, the chain alone sees it)
    (edited_event, 7, 5, True),
    (deleted_event, 6, 5, True),
    (tail_cut_head_moved, 11, 10, False),
    (chain_recomputed_after_an_edit, 8, 5, False),
]


@pytest.mark.parametrize("attack, position, last_good, chain_sees_it", ATTACKS,
                         ids=[attack.__name__ for attack, *_ in ATTACKS])
def test_verify_ledger_names_the_position_and_the_last_good_seal(sealed, attack, position,
                                                                 last_good, chain_sees_it):
    attack()
    assert verify_chain().ok is not chain_sees_it
    result = verify_ledger()
    assert (result.ok, result.bad_position, result.last_good_seal) == (
        False, position, last_good), str(result)
    assert f"last good seal: {last_good}" in str(result)


def test_an_edited_balance_is_named_with_the_seals_intact(sealed):
    _tamper(("UPDATE ledger_account SET balance_minor = balance_minor + 50000"
             " WHERE code = 'player/alice'", []))
    result = verify_ledger()
    assert (result.ok, result.account) == (False, "player/alice")


def test_an_edited_seal_file_is_refused(sealed):
    path = next(sealed.glob("seals-*.jsonl"))
    lines = path.read_text().splitlines()
    forged = json.loads(lines[1])
    forged["leaves"][0] = "f" * 64
    path.write_text("\n".join([lines[0], json.dumps(forged), lines[2]]) + "\n")
    result = verify_ledger()
    assert (result.ok, result.bad_position) == (False, 6)
    assert "does not follow" in result.problem or "signed" in result.problem


def test_the_auditors_verifier_needs_only_the_seal_file_and_the_public_key(sealed, capsys):
    path = next(sealed.glob("seals-*.jsonl"))
    public = sealed / "seal.pub"
    public.write_bytes(seals.public_key_pem(seals.load_private_key(sealed / "seal.key")))
    assert seals.main([str(path), "--public-key", str(public), "--include", "3",
                       "--consistency", "5", "12"]) == 0
    out = capsys.readouterr().out
    assert "3 signed seals, 12 events" in out
    assert "inclusion of position 3 in the seal of size 12: OK" in out
    assert "consistency of seal 5 with seal 12: OK" in out
    other = sealed / "other.key"
    (sealed / "other.pub").write_bytes(seals.public_key_pem(seals.load_private_key(other)))
    assert seals.main([str(path), "--public-key", str(sealed / "other.pub")]) == 1
    assert "not signed by the seal key" in capsys.readouterr().out


def test_the_daily_seal_anchors_outside_the_database(seeded_day, settings, tmp_path,
                                                     monkeypatch):
    """With LEDGER_SEAL_DAILY (production), reports' seal_day also appends a signed
    tree head covering the log up to the day's seal event."""
    from casino.reports import commands as reports
    from tests.casino.reports.conftest import DAY, DAY_AFTER

    settings.LEDGER_SEAL_DAILY = True
    settings.LEDGER_SEAL_FILE = str(tmp_path / "daily-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    sealed = reports.seal_day(gaming_day=DAY, actor="celery")
    # The main book's file (`daily-<database>.jsonl`); each other book has its own
    # sibling, `daily-<database>.<book key>.jsonl` (ledger.seals.book_path).
    (main_file,) = [path for path in tmp_path.glob("daily-*.jsonl")
                    if path.name.count(".") == 1]
    (written,) = seals.read_seals(main_file)
    assert written["tree_size"] == sealed.position
    # Every event of every book is under a seal, up to the day's seal event.
    result = verify_ledger()
    assert result.ok and result.sealed == result.events == Event.objects.count()
