"""Seals the database cannot forge: signed Merkle tree heads kept outside it.

A seal covers the log from position 1 to `tree_size`. Its tree head is the
RFC 6962 Merkle tree hash over the events' chain hashes in position order
(leaf = SHA-256(0x00 || hash), node = SHA-256(0x01 || left || right), the
left subtree the largest power of two below n). The seal records the tree
size, the root, the chain hash at `tree_size`, when it was made and the
chain hashes of the events since the previous seal (so a verifier can name
the exact position that differs), and it is signed with an Ed25519 key the
database never holds (`cryptography`).

Seals are appended, one JSON line each, to an append-only file outside the
database (settings.LEDGER_SEAL_FILE; a bucket or WORM volume in
production). The private key is read from settings.LEDGER_SEAL_KEY_FILE
(created, mode 0600, when missing); a verifier needs only the public key.

`verify_seals()` checks the seal file (every signature, every root against
the leaves recorded so far) and then the live log against it, and names the
last good seal and the first position that differs, whatever was done to
the database: an edited event, a deleted one, a tail cut with the head moved
back, a chain recomputed after an edit. An auditor does the same from an
export with no database (`python -m ledger.seals`): signatures, an
event's inclusion proof and the consistency proof between two seals.

Books (issue 19, ledger.books): each book has its own hash chain, so its own
seals. The main book keeps settings.LEDGER_SEAL_FILE exactly as before
books (its old lines stay valid); the book with key K uses the sibling file
`<stem>.K<suffix>` (seals.jsonl -> seals.tallinn.jsonl) and its own audit
cursor. A seal's positions are the book's own (1..n, `local_position`), so
the Merkle tree and the auditor's verifier are the same for every book.
From version 2 a seal names its book inside the signed part: a seal line
cannot be moved into another book's file unnoticed. Version 1 lines (before
books, main only) lack it and are still checked as the main book's. Every
book has its own sealers' lock, so sealing one book never waits for
another.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

SEAL_VERSION = 2
# The fields every seal's signature covers; from version 2 also "book".
SIGNED_FIELDS = ("version", "tree_size", "root", "head_hash", "sealed_at", "first_position",
                 "leaves_digest")
MAIN_BOOK_KEY = "main"   # ledger.books.MAIN_BOOK_KEY (kept importable without Django)


# --- RFC 6962 Merkle tree ------------------------------------------------------

def leaf_hash(chain_hash: str) -> bytes:
    return hashlib.sha256(b"\x00" + bytes.fromhex(chain_hash)).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """MTH(D[n]) of RFC 6962 s.2.1 over already-hashed leaves."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    level = list(leaves)
    # Bottom-up over complete subtrees gives the same tree as the recursive
    # split: pair neighbours, carry an odd last node up unchanged.
    while len(level) > 1:
        paired = [_node(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


class Frontier:
    """The RFC 6962 tree grown one leaf at a time: its perfect subtrees' roots.

    `root()` after n leaves equals `merkle_root` of those n leaves (the
    split at the largest power of two below n is exactly the largest perfect
    subtree), so the roots of every seal in a file cost one pass over its
    leaves instead of a pass per seal.
    """

    def __init__(self) -> None:
        self._subtrees: list[tuple[int, bytes]] = []   # (size, root), sizes falling
        self.size = 0

    def add(self, leaf: bytes) -> None:
        size, node = 1, leaf
        while self._subtrees and self._subtrees[-1][0] == size:
            _, left = self._subtrees.pop()
            node, size = _node(left, node), size * 2
        self._subtrees.append((size, node))
        self.size += 1

    def root(self) -> bytes:
        if not self._subtrees:
            return hashlib.sha256(b"").digest()
        node = self._subtrees[-1][1]
        for _, left in reversed(self._subtrees[:-1]):
            node = _node(left, node)
        return node


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 6962 s.2.1.1: the audit path of leaf `index` (0-based)."""
    n = len(leaves)
    if n <= 1:
        return []
    k = _split(n)
    if index < k:
        return inclusion_proof(index, leaves[:k]) + [merkle_root(leaves[k:])]
    return inclusion_proof(index - k, leaves[k:]) + [merkle_root(leaves[:k])]


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes],
                     root: bytes) -> bool:
    """Check an audit path (RFC 9162 s.2.1.3.2's algorithm)."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = _node(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def consistency_proof(m: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 6962 s.2.1.2."""
    def subproof(m: int, d: Sequence[bytes], complete: bool) -> list[bytes]:
        n = len(d)
        if m == n:
            return [] if complete else [merkle_root(d)]
        k = _split(n)
        if m <= k:
            return subproof(m, d[:k], complete) + [merkle_root(d[k:])]
        return subproof(m - k, d[k:], False) + [merkle_root(d[:k])]
    if m == 0 or m == len(leaves):
        return []
    return subproof(m, leaves, True)


def verify_consistency(m: int, n: int, proof: Sequence[bytes], old_root: bytes,
                       new_root: bytes) -> bool:
    """Check a consistency proof (RFC 9162 s.2.1.4.2's algorithm)."""
    if m == n:
        return not proof and old_root == new_root
    if m == 0 or m > n or not proof:
        return False
    path = list(proof)
    if m & (m - 1) == 0:        # m a power of two: the old root starts the path
        path.insert(0, old_root)
    fn, sn = m - 1, n - 1
    while fn % 2 == 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            fr, sr = _node(c, fr), _node(c, sr)
            while fn % 2 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = _node(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


# --- signing ---------------------------------------------------------------------

def _signed_part(seal: dict) -> bytes:
    """What the signature covers: the tree head, canonical JSON.

    Version 2 adds the book's key: a version 2 line without it, or with it
    changed, fails its signature. Version 1 lines (the main book's, before
    books) are signed without it and still verify.
    """
    names = SIGNED_FIELDS + (("book",) if seal["version"] >= 2 else ())
    head = {name: seal[name] for name in names}
    return json.dumps(head, sort_keys=True, separators=(",", ":")).encode()


def seal_book(seal: dict) -> str | None:
    """The key of the book a seal covers (a version 1 seal: the main book's)."""
    if seal.get("version", 1) < 2:
        return MAIN_BOOK_KEY
    book = seal.get("book")
    return book if isinstance(book, str) else None


def _leaves_digest(chain_hashes: Sequence[str]) -> str:
    return hashlib.sha256("".join(chain_hashes).encode()).hexdigest()


def load_private_key(path: Path):
    """The Ed25519 signing key at `path`, created (mode 0600) when missing."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        raw = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(raw)
        except FileExistsError:
            pass
    return serialization.load_pem_private_key(path.read_bytes(), password=None)


def public_key_pem(private_key) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return private_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo)


def load_public_key(pem: bytes):
    from cryptography.hazmat.primitives import serialization

    return serialization.load_pem_public_key(pem)


def sign_seal(seal: dict, private_key) -> dict:
    signature = private_key.sign(_signed_part(seal))
    return {**seal, "signature": base64.b64encode(signature).decode()}


def signature_ok(seal: dict, public_key) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        public_key.verify(base64.b64decode(seal["signature"]), _signed_part(seal))
    except (InvalidSignature, KeyError, TypeError, ValueError):
        return False
    return True


# --- the seal file -----------------------------------------------------------------

def read_seals(path: Path) -> list[dict]:
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def append_seal(path: Path, seal: dict) -> None:
    """Append one seal line and fsync it (the file is only ever appended to)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(seal, sort_keys=True, separators=(",", ":")) + "\n"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(descriptor, line.encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def make_seal(*, previous: Sequence[dict], chain_hashes: Sequence[str], sealed_at: str,
              private_key, book: str = MAIN_BOOK_KEY) -> dict:
    """The next seal over the book whose chain hashes (its positions 1..n) are given.

    `previous` are the seals already in the book's file: the new one records
    the chain hashes of the positions after the last of them.
    """
    first = (previous[-1]["tree_size"] + 1) if previous else 1
    new = list(chain_hashes[first - 1:])
    frontier = Frontier()
    for chain_hash in chain_hashes:
        frontier.add(leaf_hash(chain_hash))
    root = frontier.root()
    seal = {"version": SEAL_VERSION, "tree_size": len(chain_hashes), "root": root.hex(),
            "head_hash": chain_hashes[-1] if chain_hashes else "0" * 64,
            "sealed_at": sealed_at, "first_position": first,
            "leaves_digest": _leaves_digest(new), "leaves": new, "book": book}
    return sign_seal(seal, private_key)


@dataclass(frozen=True, slots=True)
class SealCheck:
    ok: bool
    seals: int
    sealed_size: int = 0
    last_good_seal: int | None = None       # tree_size of the last seal the log still matches
    bad_position: int | None = None         # the book's own position (1, 2, 3..)
    problem: str = ""
    book: str | None = None                 # the book's key, when known

    def __str__(self) -> str:
        of_book = f" of book {self.book}" if self.book else ""
        if self.ok:
            return f"seals{of_book}: OK ({self.seals} seals, {self.sealed_size} events sealed)"
        return (f"seals: FAILED at position {self.bad_position}{of_book}: {self.problem}"
                f" (last good seal: {self.last_good_seal or 'none'})")


def check_seal_file(seals: Sequence[dict], public_key,
                    book: str | None = None) -> tuple[list[str], SealCheck | None]:
    """Check every seal's signature, book and root; return the recorded chain hashes.

    Every seal must name `book` (by default the book of the file's first
    seal): a seal of another book's file is refused. No database: this is
    what an auditor's verifier runs on an export.
    """
    recorded: list[str] = []
    frontier = Frontier()
    last_good = None
    if book is None and seals:
        book = seal_book(seals[0])
    for seal in seals:
        if not signature_ok(seal, public_key):
            return recorded, SealCheck(False, len(seals), len(recorded), last_good,
                                       seal.get("first_position"),
                                       f"the seal of size {seal.get('tree_size')} is not"
                                       " signed by the seal key (the seal file was altered)",
                                       book)
        if seal_book(seal) != book:
            return recorded, SealCheck(False, len(seals), len(recorded), last_good,
                                       seal.get("first_position"),
                                       f"the seal of size {seal.get('tree_size')} is book"
                                       f" {seal_book(seal)}'s, not book {book}'s (a seal of"
                                       " another book's file)", book)
        leaves = seal.get("leaves", [])
        if (seal["first_position"] != len(recorded) + 1
                or _leaves_digest(leaves) != seal["leaves_digest"]
                or len(recorded) + len(leaves) != seal["tree_size"]):
            return recorded, SealCheck(False, len(seals), len(recorded), last_good,
                                       len(recorded) + 1,
                                       f"the seal of size {seal['tree_size']} does not follow"
                                       " the previous one", book)
        recorded += leaves
        for chain_hash in leaves:
            frontier.add(leaf_hash(chain_hash))
        if frontier.root().hex() != seal["root"]:
            return recorded, SealCheck(False, len(seals), len(recorded), last_good,
                                       seal["first_position"],
                                       "the recorded hashes do not give the signed root", book)
        last_good = seal["tree_size"]
    return recorded, None


def compare_log(recorded: Sequence[str], seals: Sequence[dict],
                log: Iterable[tuple[int, str]]) -> SealCheck:
    """Compare the live log's (position, chain hash) with what the seals recorded."""
    sizes = [seal["tree_size"] for seal in seals]

    def last_good_before(position: int) -> int | None:
        good = [size for size in sizes if size < position]
        return good[-1] if good else None

    expected = 1
    for position, chain_hash in log:
        if expected > len(recorded):
            break
        if position != expected:
            return SealCheck(False, len(seals), len(recorded), last_good_before(expected),
                             expected, f"sealed position {expected} is missing from the log")
        if chain_hash != recorded[expected - 1]:
            return SealCheck(False, len(seals), len(recorded), last_good_before(expected),
                             expected, f"position {expected} differs from its seal"
                                       " (edited, or the chain was recomputed)")
        expected += 1
    if expected <= len(recorded):
        return SealCheck(False, len(seals), len(recorded), last_good_before(expected),
                         expected, f"the log ends at {expected - 1} but {len(recorded)}"
                                   " positions were sealed (the tail was cut)")
    return SealCheck(True, len(seals), len(recorded), sizes[-1] if sizes else None)


# --- against the live database -----------------------------------------------------------

DEFAULT_DATABASE = "default"        # django.db.DEFAULT_DB_ALIAS
DIRECTORY = DEFAULT_DATABASE        # ledger.placement.DIRECTORY: where the books are listed


def _connection(using: str):
    from django.db import connections

    return connections[using]


def _settings_paths(using: str = DEFAULT_DATABASE) -> tuple[Path | None, Path | None]:
    """The main book's seal file and the seal key file (None: not configured).

    "{database}" in the setting is the name of the directory database (the
    books' directory, ledger.placement), whichever database `using` names:
    a test database or a benchmark's never meets another's seals, while a
    book's seals follow the book wherever it is placed or moved (its file is
    named by its key), so its copy is checked against the same seals.
    """
    from django.conf import settings

    seal_file = getattr(settings, "LEDGER_SEAL_FILE", None)
    key_file = getattr(settings, "LEDGER_SEAL_KEY_FILE", None)
    if seal_file:
        seal_file = str(seal_file).replace("{database}",
                                           _connection(DIRECTORY).settings_dict["NAME"])
    return (Path(seal_file) if seal_file else None, Path(key_file) if key_file else None)


settings_paths = _settings_paths


def book_path(main: Path, book_key: str) -> Path:
    """`main` itself for the main book, its sibling `<stem>.<key><suffix>` for another.

    seals.jsonl -> seals.tallinn.jsonl. Book keys are lower-case letters,
    digits, - and _ (migration 0007), so a key is a safe file name part.
    """
    main = Path(main)
    if book_key == MAIN_BOOK_KEY:
        return main
    return main.with_name(f"{main.stem}.{book_key}{main.suffix}")


def seal_file_for(book_key: str, using: str = DEFAULT_DATABASE) -> Path | None:
    """The seal file of the book with this key (None: no seal file configured)."""
    seal_file, _ = _settings_paths(using)
    return None if seal_file is None else book_path(seal_file, book_key)


@dataclass(frozen=True, slots=True)
class BookRef:
    """A book as the sealer needs it: its id (its range of positions) and its key (its file)."""

    id: int
    key: str

    @property
    def base(self) -> int:
        """The position before the book's first (ledger.books.base_position)."""
        from .types import BOOK_SPAN

        return (self.id - 1) * BOOK_SPAN


MAIN = BookRef(1, MAIN_BOOK_KEY)


def _placed() -> dict[int, tuple[str, str]]:
    """The directory (ledger.placement): book id -> (key, database alias)."""
    with _connection(DIRECTORY).cursor() as cursor:
        cursor.execute("SELECT book, key, database FROM ledger_placement")
        return {book: (key, database) for book, key, database in cursor.fetchall()}


def open_books(using: str = DEFAULT_DATABASE) -> list[BookRef]:
    """Every book the database `using` holds, in id order.

    A book the directory places in another database is left out: what is
    left of it here is the frozen copy of a moved book, and its seals are
    checked where it lives now.
    """
    placed = _placed()
    with _connection(using).cursor() as cursor:
        cursor.execute("SELECT id, key FROM ledger_head ORDER BY id")
        rows = cursor.fetchall()
    return [BookRef(book, key) for book, key in rows
            if placed.get(book, (key, using))[1] == using]


def _connected(alias: str) -> bool:
    """Whether this process has a database connection configured for `alias`."""
    from django.db import connections

    return alias in connections.settings


def placed_refs() -> list[tuple[BookRef, str]]:
    """Every book and the database holding it, in id order, each once: where
    the directory places it (ledger.placement.placed_books), if it is open
    there (`open_books`).

    Every book server holds an empty `main` of its own (migration 0007);
    only the directory says which database's main is the book. A book placed
    in a database this process has no connection for, or not open where it
    is placed, is left out here; `missing_books` names it.
    """
    from .placement import placed_books

    placed = [(book, key, database) for book, key, database in placed_books()
              if _connected(database)]
    held = {database: {ref.id for ref in open_books(database)}
            for database in sorted({database for _, _, database in placed})}
    return [(BookRef(book, key), database) for book, key, database in placed
            if book in held[database]]


def unreachable_books() -> list[tuple[str, str]]:
    """(key, alias) of the books the directory places in a database this
    process has no connection for (CASINO_BOOK_DATABASE_URLS lacks it)."""
    return sorted((key, database) for key, database in _placed().values()
                  if not _connected(database))


def locate_book(book: int | str | BookRef, using: str) -> tuple[BookRef, str]:
    """The book and the database to read it in.

    With the directory's alias (what the commands and the daily seal pass),
    a book is read where the directory places it, on whichever server;
    with another alias, in that database (ValueError: not open there).
    """
    if using == DIRECTORY:
        for ref, alias in placed_refs():
            if book in (ref, ref.id, ref.key):
                return ref, alias
    return book_ref(book, using), using


def book_ref(book: int | str | BookRef, using: str = DEFAULT_DATABASE) -> BookRef:
    """The open book given by id or key (ValueError when it is not open)."""
    if isinstance(book, BookRef):
        return book
    if book in (MAIN.id, MAIN.key):
        return MAIN
    for ref in open_books(using):
        if book in (ref.id, ref.key):
            return ref
    raise ValueError(f"book {book!r} is not open")


def content_hash(event) -> str:
    """An event's chain hash recomputed from its content and its stored prev_hash."""
    from .canonical import dumps, event_hash, timestamp_text

    return event_hash(
        prev_hash=event.prev_hash, position=event.position, stream=event.stream,
        version=event.version, type=event.type, schema_version=event.schema_version,
        payload_json=dumps(event.payload), metadata_json=dumps(event.metadata),
        idempotency_key=event.idempotency_key,
        occurred_at_text=timestamp_text(event.occurred_at),
        recorded_at_text=timestamp_text(event.recorded_at), gaming_day=event.gaming_day,
        postings=[(p.account, p.amount_minor, p.currency) for p in event.postings])


def _live_chain(book: BookRef = MAIN,
                using: str = DEFAULT_DATABASE) -> Iterable[tuple[int, str]]:
    """(position within the book, chain hash) of one book's live log, the hash
    recomputed from the content: an event edited without rehashing gives a
    hash no seal recorded."""
    from .store import CHUNK_EVENTS_MAX, load_book_events_after

    after = book.base
    while True:
        chunk = load_book_events_after(book.id, after, CHUNK_EVENTS_MAX, using=using)
        if not chunk:
            return
        for event in chunk:
            yield event.position - book.base, content_hash(event)
        after = chunk[-1].position


# The advisory lock every sealer of a database takes ("seal"): advisory locks
# are per database, as the seal files are.
SEAL_LOCK = 0x7365_616C


def seal_lock_key(book: int) -> int:
    """The sealers' lock of one book: SEAL_LOCK with the book's id - 1 above it.

    The main book's is SEAL_LOCK itself, the lock sealers took before books,
    so a sealer of either version still excludes the other.
    """
    return SEAL_LOCK | ((book - 1) << 32)


@contextmanager
def locked(seal_file: Path | None, book: int = 1, using: str = DEFAULT_DATABASE):
    """Hold one book's sealers' lock for one read-check-append, so two sealers
    (two hosts too) never append two seals that both follow the same one.

    A PostgreSQL advisory lock of the session, not a file lock: the seal
    file may live on append-only storage where no lock file can be made,
    and every sealer shares the directory's server. Each book has its
    own (`seal_lock_key`): sealing one book never waits for another.
    `using` is where the book is read; the lock is the directory's.
    """
    # In the directory database, wherever the book is placed: its sealers
    # exclude each other before and after a move.
    connection = _connection(DIRECTORY)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [seal_lock_key(book)])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [seal_lock_key(book)])


@contextmanager
def locked_books(books: Sequence[BookRef], using: str = DEFAULT_DATABASE):
    """Hold the sealers' locks of several books, taken in ascending id order
    (one at a time, as `anchor` takes them), so two runs never deadlock."""
    with ExitStack() as stack:
        for book in sorted(books, key=lambda ref: ref.id):
            stack.enter_context(locked(None, book.id, using))
        yield


def load_sealed(seal_file: Path, key_file: Path, book: str | None = None
                ) -> tuple[list[dict], list[str], SealCheck | None]:
    """The seals, the chain hashes they recorded, and the seal file's failure if any.

    `book`: the key every seal of the file must name.
    """
    seals = read_seals(seal_file)
    if not seals:
        return seals, [], None
    recorded, broken = check_seal_file(seals, load_private_key(key_file).public_key(), book)
    return seals, recorded, broken


def check_anchor(recorded: Sequence[str], seals: Sequence[dict], book: BookRef = MAIN,
                 using: str = DEFAULT_DATABASE) -> SealCheck | None:
    """Check the book at its last sealed position, one event read (None: it matches).

    The event there must carry the sealed hash and its content must give
    it. A chain rehashed after an edit anywhere before, a deleted event
    followed by a rehash, or a cut tail all change or remove that hash; the
    full comparison with the seals (`compare_log`, every event of the book)
    then names the first position that differs and the last good seal.
    """
    from .store import load_events

    size = len(recorded)
    if size == 0:
        return None
    found = load_events(book.base + size, book.base + size, using=using)
    if found and found[0].hash == recorded[-1] and content_hash(found[0]) == recorded[-1]:
        return None
    located = compare_log(recorded, seals, _live_chain(book, using))
    if located.ok:  # pragma: no cover - the hash at `size` differs, so some position does
        return SealCheck(False, len(seals), size, None, size,
                         f"position {size} differs from its seal", book.key)
    return replace(located, book=book.key)


def audit_sealed(recorded: Sequence[str], seals: Sequence[dict], seal_file: Path,
                 events: int, book: BookRef = MAIN,
                 using: str = DEFAULT_DATABASE) -> tuple[SealCheck | None, int]:
    """Re-read the next `events` sealed positions of a book against its seals;
    (failure, read).

    A rolling audit: a cursor (`audit_cursor_file`: the next position of the
    book to read) moves on by `events` a run and wraps at the last
    sealed position, so repeated incremental runs re-read the whole sealed
    part at a bounded cost each, and find what only a full run sees in one
    go: an event edited under an unchanged stored hash, or one deleted
    without a rehash. The cursor only says where to look next; a cursor
    tampered with delays the audit, never passes a bad event (the full run
    still reads everything).
    """
    from .store import CHUNK_EVENTS_MAX, load_events

    size = len(recorded)
    if events <= 0 or size == 0:
        return None, 0
    cursor_file = audit_cursor_file(seal_file, book.key, using)
    try:
        start = int(cursor_file.read_text().strip() or 1)
    except (FileNotFoundError, ValueError):
        start = 1
    if not 1 <= start <= size:
        start = 1
    end = min(size, start + events - 1)
    sizes = [seal["tree_size"] for seal in seals]

    def failure(position: int, problem: str) -> SealCheck:
        good = [tree_size for tree_size in sizes if tree_size < position]
        return SealCheck(False, len(seals), size, good[-1] if good else None, position,
                         problem, book.key)

    expected, read = start, 0
    while expected <= end:
        chunk = load_events(book.base + expected,
                            book.base + min(end, expected + CHUNK_EVENTS_MAX - 1),
                            using=using)
        for event in chunk:
            read += 1
            if event.position - book.base != expected:
                return failure(expected, f"sealed position {expected} is missing from"
                                         " the log"), read
            if content_hash(event) != recorded[expected - 1]:
                return failure(expected, f"position {expected} differs from its seal"
                                         " (edited, or the chain was recomputed)"), read
            expected += 1
        if not chunk:
            return failure(expected, f"sealed position {expected} is missing from"
                                     " the log"), read
    cursor_file.parent.mkdir(parents=True, exist_ok=True)
    cursor_file.write_text(f"{end + 1 if end < size else 1}\n")
    return None, read


def audit_cursor_file(seal_file: Path, book_key: str = MAIN_BOOK_KEY,
                      using: str = DEFAULT_DATABASE) -> Path:
    """Where a book's rolling audit cursor is kept: settings.LEDGER_VERIFY_AUDIT_FILE
    ("{database}" allowed; another book's is its `book_path` sibling), else
    beside the book's seal file. It is rewritten each run, so on append-only
    seal storage point the setting elsewhere."""
    from django.conf import settings

    configured = getattr(settings, "LEDGER_VERIFY_AUDIT_FILE", None)
    if configured:
        name = _connection(using).settings_dict["NAME"]
        return book_path(Path(str(configured).replace("{database}", name)), book_key)
    return Path(f"{seal_file}.audit")


def seal_new(*, seal_file: Path, key_file: Path, seals: Sequence[dict],
             recorded: Sequence[str], new: Sequence[str],
             sealed_at: str | None = None, book: str = MAIN_BOOK_KEY) -> dict | None:
    """Append the seal of `recorded` + `new` (already verified chain hashes of
    the book `book`) to the book's seal file.

    Call it holding the book's `locked(...)`, with what `load_sealed` read
    under that lock. None when there is nothing new.
    """
    import datetime as dt

    if not new:
        return None
    seal = make_seal(previous=seals, chain_hashes=[*recorded, *new],
                     private_key=load_private_key(key_file), book=book,
                     sealed_at=sealed_at or dt.datetime.now(dt.timezone.utc).isoformat())
    append_seal(seal_file, seal)
    return seal


def anchor(*, sealed_at: str | None = None, book: int | str = 1,
           using: str = DEFAULT_DATABASE) -> dict | None:
    """Seal one book (the main book by default) up to its head into its seal
    file (None: nothing new to seal, or no seal file configured).

    The book is verified first from its last seal (ledger.verify,
    incremental): the sealed position still carries its sealed hash, and
    every event after it chains, hashes and balances. A broken book, or one
    that no longer matches its seals, is never sealed (ValueError). Only
    this book's sealers' lock is taken and only its events are read, so
    another book may be written, or be broken, meanwhile.
    """
    from .canonical import GENESIS_HASH
    from .verify import verify_chain

    main_file, key_file = _settings_paths(using)
    if main_file is None or key_file is None:
        return None
    ref, using = locate_book(book, using)
    seal_file = book_path(main_file, ref.key)
    with locked(seal_file, ref.id, using):
        seals, recorded, broken = load_sealed(seal_file, key_file, ref.key)
        if broken is not None:
            raise ValueError(f"the seal file of book {ref.key} does not check, not sealing:"
                             f" {broken}")
        moved = check_anchor(recorded, seals, ref, using)
        if moved is not None:
            raise ValueError(f"the log of book {ref.key} no longer matches its seals,"
                             f" not sealing: {moved}")
        new: list[str] = []
        chain = verify_chain(after=ref.base + len(recorded),
                             prev_hash=recorded[-1] if recorded else GENESIS_HASH, hashes=new,
                             book=ref.id, using=using)
        if not chain.ok:
            raise ValueError(f"the chain of book {ref.key} is broken, not sealing: {chain}")
        return seal_new(seal_file=seal_file, key_file=key_file, seals=seals,
                        recorded=recorded, new=new, sealed_at=sealed_at, book=ref.key)


class SealingFailed(ValueError):
    """Some books were not sealed; `sealed` has what the others got, `failures` why."""

    def __init__(self, sealed: dict[str, dict | None], failures: dict[str, str]) -> None:
        self.sealed, self.failures = sealed, failures
        super().__init__("; ".join(failures.values()))


def anchor_books(*, sealed_at: str | None = None,
                 using: str = DEFAULT_DATABASE) -> dict[str, dict | None]:
    """Seal every open book, each on its own (`anchor`): {book key: its new seal or None}.

    With the directory's alias (the default), every book wherever the
    directory places it, each read on its own server (`placed_refs`);
    with another alias, the books that database holds.
    A book that fails does not stop the others from being sealed; then
    SealingFailed names it, after the rest are sealed.
    """
    sealed: dict[str, dict | None] = {}
    failures: dict[str, str] = {}
    located = (placed_refs() if using == DIRECTORY
               else [(ref, using) for ref in open_books(using)])
    for ref, database in located:
        try:
            sealed[ref.key] = anchor(sealed_at=sealed_at, book=ref, using=database)
        except ValueError as error:
            failures[ref.key] = str(error)
    main_file, key_file = _settings_paths(using)
    if using == DIRECTORY and main_file is not None and key_file is not None:
        for key, database in unreachable_books():
            failures[key] = (f"book {key} is placed in {database}, a database this process"
                             " has no connection for: not sealed")
    if failures:
        raise SealingFailed(sealed, failures)
    return sealed


def missing_books(main_file: Path, books: Sequence[BookRef],
                  using: str = DEFAULT_DATABASE) -> list[SealCheck]:
    """Books gone whole: a failure for each (position None, the book's key).

    A book deleted whole (its head row, events and all) leaves no chain to
    break. What is left of it is a directory row placing it in `using`
    while `using` has no such book, or a seal file (found by its sibling
    name of `main_file`) of a key the directory does not know. A main file
    without a suffix has no siblings to tell apart and is not searched.
    With the directory's alias, a book placed in a database this process
    cannot reach is a failure too (`unreachable_books`): it is not checked.
    """
    import glob
    import re

    held = {book.key for book in books}
    with _connection(DIRECTORY).cursor() as cursor:
        cursor.execute("SELECT key FROM ledger_placement UNION SELECT key FROM ledger_head")
        known = {row[0] for row in cursor.fetchall()}
    failures = [SealCheck(False, 0, 0, None, None,
                          f"the directory places book {key} in {using} but it holds no"
                          " such book (removed)", key)
                for key, database in sorted(_placed().values())
                if database == using and key not in held]
    if using == DIRECTORY:
        failures += [SealCheck(False, 0, 0, None, None,
                               f"the directory places book {key} in {database}, a database"
                               " this process has no connection for: it is not checked",
                               key)
                     for key, database in unreachable_books()]
    main_file = Path(main_file)
    if not main_file.suffix:
        return failures
    pattern = f"{glob.escape(main_file.stem)}.*{glob.escape(main_file.suffix)}"
    for path in sorted(main_file.parent.glob(pattern)):
        key = path.name[len(main_file.stem) + 1:len(path.name) - len(main_file.suffix)]
        if re.fullmatch(r"[a-z][a-z0-9_-]{0,39}", key) and key not in known:
            failures.append(SealCheck(False, len(read_seals(path)), 0, None, None,
                                      f"book {key} has seals ({path.name}) but the directory"
                                      " has no such book (removed)", key))
    return failures


def verify_seals(using: str = DEFAULT_DATABASE, book: int | str | None = None
                 ) -> SealCheck | None:
    """Check every book's seal file (or one book's) and the live log against it.

    None: no seal file configured, or none written yet. Otherwise the first
    failure (its `book` says whose, its position is the book's own), or an
    OK check that counts every book's seals and sealed events. With every
    book, a book gone whole is a failure (`missing_books`). With the
    directory's alias (the default), each book is checked where the
    directory places it (`placed_refs`), on whichever server.
    """
    main_file, key_file = _settings_paths(using)
    if main_file is None or key_file is None:
        return None
    if book is not None:
        located = [locate_book(book, using)]
    elif using == DIRECTORY:
        located = placed_refs()
    else:
        located = [(ref, using) for ref in open_books(using)]
    public_key = None
    seal_count = sealed_size = 0
    found = False
    for ref, database in located:
        seal_file = book_path(main_file, ref.key)
        if not seal_file.exists():
            continue
        found = True
        public_key = public_key or load_private_key(key_file).public_key()
        seals = read_seals(seal_file)
        recorded, broken = check_seal_file(seals, public_key, ref.key)
        if broken is not None:
            return broken
        check = compare_log(recorded, seals, _live_chain(ref, database))
        if not check.ok:
            return replace(check, book=ref.key)
        seal_count, sealed_size = seal_count + check.seals, sealed_size + check.sealed_size
    if book is None:
        for database in sorted({database for _, database in located} | {using}):
            held = [ref for ref, alias in located if alias == database]
            for missing in missing_books(main_file, held, database):
                return missing
    if not found:
        return None
    return SealCheck(True, seal_count, sealed_size)


# --- the auditor's verifier (no database) -------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    """Verify a seal file offline: signatures and roots; optionally an inclusion or
    consistency proof.

        python -m ledger.seals SEALS.jsonl --public-key seal.pub [--book KEY]
            [--include POSITION] [--consistency OLD_SIZE NEW_SIZE]

    One book's file at a time (each book has its own, ledger.books); its
    positions are the book's own, 1..n. Every seal must name the same book:
    `--book`, else the book of the file's first seal.
    """
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ledger.seals", description=main.__doc__)
    parser.add_argument("seal_file")
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--book", metavar="KEY", help="the book every seal must name")
    parser.add_argument("--include", type=int, metavar="POSITION")
    parser.add_argument("--consistency", type=int, nargs=2, metavar=("OLD_SIZE", "NEW_SIZE"))
    arguments = parser.parse_args(argv)
    public_key = load_public_key(Path(arguments.public_key).read_bytes())
    seals = read_seals(Path(arguments.seal_file))
    recorded, broken = check_seal_file(seals, public_key, arguments.book)
    if broken is not None:
        print(broken)
        return 1
    leaves = [leaf_hash(h) for h in recorded]
    roots = {seal["tree_size"]: bytes.fromhex(seal["root"]) for seal in seals}
    book = arguments.book or (seal_book(seals[0]) if seals else MAIN_BOOK_KEY)
    print(f"seals: {len(seals)} signed seals, {len(recorded)} events (book {book}),"
          " signatures and roots OK")
    if arguments.include is not None:
        position, size = arguments.include, max(roots)
        proof = inclusion_proof(position - 1, leaves[:size])
        ok = verify_inclusion(position - 1, size, leaves[position - 1], proof, roots[size])
        print(f"inclusion of position {position} in the seal of size {size}:"
              f" {'OK' if ok else 'FAILED'} ({len(proof)} hashes)")
        if not ok:
            return 1
    if arguments.consistency is not None:
        old, new = arguments.consistency
        if old not in roots or new not in roots:
            print(f"no seal of size {old} or {new}")
            return 1
        proof = consistency_proof(old, leaves[:new])
        ok = verify_consistency(old, new, proof, roots[old], roots[new])
        print(f"consistency of seal {old} with seal {new}: {'OK' if ok else 'FAILED'}"
              f" ({len(proof)} hashes)")
        if not ok:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
