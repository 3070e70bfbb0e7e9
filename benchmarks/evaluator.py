"""Benchmark of native_eval against published Python poker evaluators.

On one set of random seven-card hands (default 1,000,000, fixed seed) it
measures, on one core:

- the Rust core: ``native_eval/src/bin/evalbench.rs`` (built here with
  ``cargo build --release``) reads the very same hands from a file and times
  the batch evaluator over them (random order), a one-hand-at-a-time scalar
  loop, and sequential enumeration of all 133,784,560 seven-card hands;
- the Python API: ``evaluate_batch`` on the hands' codes and per-call
  ``evaluate`` with a list of card strings per hand;
- ``showdown`` calls (with ``.awards`` read) for six-handed hold'em hands with
  a main pot and a side pot, dealt from the same random cards;
- the same hands through ``treys``, ``eval7`` and ``phevaluator`` (installed
  for the benchmark only: ``pip install -r benchmarks/requirements-evaluator.txt``;
  a missing one is skipped with a note).

It then cross-checks that every evaluator agrees with native_eval on every
hand (treys and phevaluator number hand classes 1 = best .. 7462, ours 7462 =
best .. 1; eval7's values must map one-to-one and in the same order onto ours)
and that the Rust core's checksum equals the Python batch's. It prints a table
and, last, one machine-readable line:

    evaluator: rust_random_per_s=<n> rust_seq_per_s=<n> py_batch_per_s=<n> py_call_per_s=<n> showdown_per_s=<n>

Usage: python benchmarks/evaluator.py [--hands N] [--seed S] [--repeat R]
It refuses to run against a debug build of the extension. Rates are best of
``--repeat`` passes, so background load lowers them less.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import native_eval

ROOT = Path(__file__).resolve().parent.parent
CRATE = ROOT / "native_eval"
DECK = [r + s for r in "23456789TJQKA" for s in "shdc"]
REQUIREMENTS = "benchmarks/requirements-evaluator.txt"


def best_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Shortest wall time of ``repeat`` runs of fn, and fn's last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def pin_to_one_core() -> None:
    """Run on one core, as the goals are stated per core."""
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[-1]})


def deal(count: int, seed: int) -> list[list[int]]:
    """``count`` random seven-card hands as card codes."""
    rng = random.Random(seed)
    deck = list(range(52))
    return [rng.sample(deck, 7) for _ in range(count)]


def run_rust(codes: bytes, repeat: int, sequential: bool = True) -> dict[str, float]:
    """Build and run the Rust bench binary on the same hands."""
    build = subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--bin", "evalbench"],
        cwd=CRATE,
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        sys.exit(f"cargo build of the Rust benchmark failed:\n{build.stderr}")
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(codes)
        f.flush()
        out = subprocess.run(
            [str(CRATE / "target" / "release" / "evalbench"), "--hands", f.name, "--repeat", str(repeat),
             *([] if sequential else ["--no-seq"])],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return {k: float(v) for k, v in (line.split("=", 1) for line in out.split())}


def optional(module: str) -> Any | None:
    """Import a third-party evaluator, or print a note and return None."""
    try:
        return importlib.import_module(module)
    except ImportError:
        print(f"note: {module} is not installed, skipped (pip install -r {REQUIREMENTS})")
        return None


def showdown_deals(hands: Sequence[Sequence[int]], count: int) -> list[tuple[str, dict[int, list[str]]]]:
    """Six-handed hold'em deals (board + six two-card hands) from the random hands."""
    deals = []
    rng = random.Random(7)
    for i in range(count):
        # 17 distinct cards: two seven-card hands are not disjoint, so draw
        # from the deck with the hand as the seed of the order.
        cards = [DECK[c] for c in hands[i]]
        rest = [c for c in DECK if c not in cards]
        cards += rng.sample(rest, 10)
        board = " ".join(cards[:5])
        seats = {seat: cards[5 + 2 * k : 7 + 2 * k] for k, seat in enumerate((1, 2, 3, 4, 5, 6))}
        deals.append((board, seats))
    return deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1_000_000, help="random seven-card hands (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=2024, help="random seed")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes per measurement (best is kept)")
    parser.add_argument("--showdowns", type=int, default=20_000, help="distinct showdown deals")
    parser.add_argument("--smoke", action="store_true",
                        help="2,000 hands, one pass, no sequential enumeration: proves it runs")
    args = parser.parse_args()
    if args.smoke:
        args.hands, args.repeat, args.showdowns = 2_000, 1, 200

    if native_eval.build_profile != "release":
        sys.exit(
            f"native_eval is a {native_eval.build_profile} build; rebuild it with "
            "`maturin develop --release` before benchmarking."
        )
    pin_to_one_core()
    print(f"native_eval {native_eval.__version__} ({native_eval.build_profile}), {args.hands:,} random hands, seed {args.seed}")

    hands = deal(args.hands, args.seed)
    codes = bytes(c for hand in hands for c in hand)
    names = [[DECK[c] for c in hand] for hand in hands]
    n = len(hands)
    rows: list[tuple[str, float, str]] = []

    rust = run_rust(codes, args.repeat, sequential=not args.smoke)
    rust.setdefault("seq_per_s", 0.0)
    rows.append(("Rust core, batch of random hands", rust["random_per_s"], "evaluate_batch, AVX-512 when available"))
    rows.append(("Rust core, one hand at a time", rust["scalar_random_per_s"], "evaluate7_unchecked loop"))
    if not args.smoke:
        rows.append(("Rust core, sequential enumeration", rust["seq_per_s"], "all 133,784,560 hands"))
        rows.append(("Rust core, sequential, scalar", rust["scalar_seq_per_s"], "one value per call"))

    t, batch = best_time(lambda: native_eval.evaluate_batch(codes, 7), args.repeat)
    ours = list(batch)
    py_batch = n / t
    rows.append(("Python evaluate_batch", py_batch, "bytes in, array('H') out"))

    evaluate = native_eval.evaluate

    def per_call() -> list[int]:
        return [evaluate(h) for h in names]

    t, call_values = best_time(per_call, args.repeat)
    py_call = n / t
    rows.append(("Python evaluate, per call", py_call, "list of card strings"))
    strings = [" ".join(h) for h in names]
    t_str, _ = best_time(lambda: [evaluate(s) for s in strings], args.repeat)
    rows.append(("Python evaluate, per call (str)", n / t_str, "one space-separated string"))

    deals = showdown_deals(hands, min(args.showdowns, n))
    showdown = native_eval.showdown
    pots = [(600, [1, 2, 3, 4, 5, 6]), (1_800, [1, 2, 3, 4])]

    def showdowns() -> int:
        total = 0
        for board, seats in deals:
            total += sum(showdown("holdem", board, seats, pots, 6).awards.values())
        return total

    t, total = best_time(showdowns, args.repeat)
    assert total == 2_400 * len(deals)
    showdown_rate = len(deals) / t
    rows.append(("Python showdown, 6-handed + side pot", showdown_rate, "calls/s, .awards read"))

    problems: list[str] = []
    if call_values != ours:
        problems.append("per-call evaluate disagrees with evaluate_batch")
    if int(rust["random_checksum"]) != sum(ours):
        problems.append("Rust core checksum differs from the Python batch")
    if not args.smoke and int(rust["seq_checksum"]) != int(rust["scalar_seq_checksum"]):
        problems.append("sequential enumeration paths disagree")
    if int(rust["random_checksum"]) != int(rust["scalar_random_checksum"]):
        problems.append("Rust batch and one-at-a-time paths disagree")
    checked = ["native_eval batch = per call = Rust core"]

    treys = optional("treys")
    if treys is not None:
        ev = treys.Evaluator()
        tc = [[treys.Card.new(c) for c in h] for h in names]
        t, values = best_time(lambda: [ev.evaluate(h[:2], h[2:]) for h in tc], 1)
        rows.append(("treys", n / t, "Evaluator.evaluate, int cards"))
        if [7463 - v for v in values] != ours:
            problems.append("treys disagrees")
        else:
            checked.append("treys")

    eval7 = optional("eval7")
    if eval7 is not None:
        ec = [[eval7.Card(c) for c in h] for h in names]
        e7 = eval7.evaluate
        t, values = best_time(lambda: [e7(h) for h in ec], args.repeat)
        rows.append(("eval7", n / t, "evaluate, Card objects"))
        # eval7's values are not dense: each must stand for one of ours, in
        # the same order (strictly increasing, hence one-to-one).
        mapping: dict[int, int] = {}
        consistent = all(mapping.setdefault(v, o) == o for v, o in zip(values, ours, strict=True))
        order = [mapping[k] for k in sorted(mapping)]
        if not consistent or any(a >= b for a, b in zip(order, order[1:])):
            problems.append("eval7 disagrees")
        else:
            checked.append("eval7")

    ph = optional("phevaluator")
    if ph is not None:
        pc = [[4 * (c >> 2) + 3 - (c & 3) for c in hand] for hand in hands]  # phevaluator: suits c, d, h, s
        pe = ph.evaluate_cards
        t, values = best_time(lambda: [pe(*h) for h in pc], args.repeat)
        rows.append(("phevaluator", n / t, "evaluate_cards, int cards"))
        if [7463 - v for v in values] != ours:
            problems.append("phevaluator disagrees")
        else:
            checked.append("phevaluator")

    print()
    width = max(len(r[0]) for r in rows)
    print(f"{'evaluator':<{width}}  {'hands/s':>15}  notes")
    print(f"{'-' * width}  {'-' * 15}  {'-' * 5}")
    for name, rate, note in rows:
        print(f"{name:<{width}}  {rate:>15,.0f}  {note}")
    print()
    if problems:
        print("CROSS-CHECK FAILED: " + "; ".join(problems))
        sys.exit(1)
    print(f"cross-check: {', '.join(checked)} agree on all {n:,} hands")
    print(
        "evaluator: "
        f"rust_random_per_s={rust['random_per_s']:.0f} rust_seq_per_s={rust['seq_per_s']:.0f} "
        f"py_batch_per_s={py_batch:.0f} py_call_per_s={py_call:.0f} showdown_per_s={showdown_rate:.0f}"
    )


if __name__ == "__main__":
    main()
