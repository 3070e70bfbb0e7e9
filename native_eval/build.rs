//! Build script: precomputes the hand evaluator's lookup tables.
//!
//! Design choice: the tables are derived here, once per build, from a direct
//! definition of the hand rankings (a five-card ranking function applied to
//! every five-card subset), and written to `OUT_DIR` as raw little/big-endian
//! arrays that `src/rank/tables.rs` embeds as `static`s. The evaluator then has
//! no start-up cost and no lazy-initialisation check on its hot path. The
//! exhaustive tests in `tests/exhaustive.rs` check the result against the
//! published category counts, so a mistake here cannot go unnoticed.
//!
//! Tables (all indexed by rank multisets of five to seven cards, or by a
//! 13-bit suit rank mask):
//! - `offsets.bin`: perfect-hash row offsets (u32 per row);
//! - `high.bin`: best five-card high value ignoring flushes (u16, 1..=7462);
//! - `razz.bin`: best ace-to-five low value, pairs count, no qualifier (u16);
//! - `low8.bin`: best eight-or-better low value, 0 when none qualifies (u16);
//! - `flush.bin`: best flush or straight flush inside a suit's rank mask (u16).

use std::collections::HashMap;
use std::env;
use std::fs;
use std::path::PathBuf;

include!("src/rank/keys.rs");

/// Hand categories, weakest first; the value's bits 20.. in a raw key.
const HIGH_CARD: u32 = 0;
const PAIR: u32 = 1;
const TWO_PAIR: u32 = 2;
const TRIPS: u32 = 3;
const STRAIGHT: u32 = 4;
const FLUSH: u32 = 5;
const FULL_HOUSE: u32 = 6;
const QUADS: u32 = 7;
const STRAIGHT_FLUSH: u32 = 8;

/// Rank groups of a multiset, largest count first, then highest rank first:
/// the order in which poker compares hands of the same category.
fn groups(counts: &[u8; 13], order: impl Fn(usize) -> u8) -> Vec<(u8, u8)> {
    let mut g: Vec<(u8, u8)> = (0..13)
        .filter(|&r| counts[r] > 0)
        .map(|r| (counts[r], order(r)))
        .collect();
    g.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    g
}

fn pack(ranks: impl Iterator<Item = u8>) -> u32 {
    let mut p = 0u32;
    let mut shift = 16i32;
    for r in ranks {
        p |= (r as u32) << shift;
        shift -= 4;
    }
    p
}

/// Highest rank of a five-rank straight inside `mask`, None if there is none.
/// A-2-3-4-5 is the lowest straight (its top card is the five); there is no
/// wrap-around such as K-A-2-3-4 (000:L2069-2072 lists the standard hands; the
/// ace counts 1 or 14, 002:L295, L327; wheel lowest, 001:L616-634).
fn straight_top(mask: u16) -> Option<u8> {
    for top in (4..=12u8).rev() {
        if (mask >> (top - 4)) & 0x1f == 0x1f {
            return Some(top);
        }
    }
    if mask & 0x100f == 0x100f {
        return Some(3);
    }
    None
}

/// Raw comparable key of a five-card high hand: category in bits 20..,
/// tie-break ranks in four-bit groups below. Larger is better.
fn raw_high(counts: &[u8; 13], flush: bool) -> u32 {
    let g = groups(counts, |r| r as u8);
    let pattern: Vec<u8> = g.iter().map(|x| x.0).collect();
    let mask: u16 = (0..13).filter(|&r| counts[r] > 0).map(|r| 1u16 << r).sum();
    let (cat, ranks): (u32, Vec<u8>) = match pattern.as_slice() {
        [1, 1, 1, 1, 1] => match (straight_top(mask), flush) {
            (Some(t), true) => (STRAIGHT_FLUSH, vec![t]),
            (Some(t), false) => (STRAIGHT, vec![t]),
            (None, true) => (FLUSH, g.iter().map(|x| x.1).collect()),
            (None, false) => (HIGH_CARD, g.iter().map(|x| x.1).collect()),
        },
        [2, 1, 1, 1] => (PAIR, g.iter().map(|x| x.1).collect()),
        [2, 2, 1] => (TWO_PAIR, g.iter().map(|x| x.1).collect()),
        [3, 1, 1] => (TRIPS, g.iter().map(|x| x.1).collect()),
        [3, 2] => (FULL_HOUSE, g.iter().map(|x| x.1).collect()),
        [4, 1] => (QUADS, g.iter().map(|x| x.1).collect()),
        other => panic!("not a five-card hand: {other:?}"),
    };
    (cat << 20) | pack(ranks.into_iter())
}

/// Raw key of a five-card ace-to-five low: pair structure first (no pair,
/// pair, two pair, trips, full house, quads), then ranks from the highest
/// down, ace lowest; straights and flushes ignored (000:L2475-2484). Smaller
/// is better.
fn raw_low(counts: &[u8; 13]) -> u32 {
    // Ace (index 12) becomes 0, deuce 1, ... king 12.
    let g = groups(counts, |r| ((r + 1) % 13) as u8);
    let pattern: Vec<u8> = g.iter().map(|x| x.0).collect();
    let cat = match pattern.as_slice() {
        [1, 1, 1, 1, 1] => 0,
        [2, 1, 1, 1] => 1,
        [2, 2, 1] => 2,
        [3, 1, 1] => 3,
        [3, 2] => 4,
        [4, 1] => 5,
        other => panic!("not a five-card hand: {other:?}"),
    };
    (cat << 20) | pack(g.iter().map(|x| x.1))
}

/// Calls `f` for every sub-multiset of exactly `k` cards of `counts`.
fn sub_multisets(counts: &[u8; 13], k: u8, f: &mut impl FnMut(&[u8; 13])) {
    fn rec(c: &[u8; 13], r: usize, left: u8, cur: &mut [u8; 13], f: &mut impl FnMut(&[u8; 13])) {
        if left == 0 {
            f(cur);
            return;
        }
        if r == 13 {
            return;
        }
        for n in (0..=c[r].min(left)).rev() {
            cur[r] = n;
            rec(c, r + 1, left - n, cur, f);
        }
        cur[r] = 0;
    }
    let mut cur = [0u8; 13];
    rec(counts, 0, k, &mut cur, f);
}

/// Every rank multiset of five to seven cards, each rank at most four times.
fn multisets() -> Vec<[u8; 13]> {
    fn rec(r: usize, total: u8, cur: &mut [u8; 13], out: &mut Vec<[u8; 13]>) {
        if r == 13 {
            if total >= 5 {
                out.push(*cur);
            }
            return;
        }
        for n in 0..=4u8.min(7 - total) {
            cur[r] = n;
            rec(r + 1, total + n, cur, out);
        }
        cur[r] = 0;
    }
    let mut out = Vec::new();
    rec(0, 0, &mut [0; 13], &mut out);
    out
}

fn key_of(counts: &[u8; 13]) -> u32 {
    (0..13).map(|r| counts[r] as u32 * RANK_KEYS[r]).sum()
}

fn counts_of_mask(mask: u16) -> [u8; 13] {
    let mut c = [0u8; 13];
    for (r, slot) in c.iter_mut().enumerate() {
        *slot = ((mask >> r) & 1) as u8;
    }
    c
}

/// Row-displacement perfect hash of `keys`: returns the per-row offsets and
/// the table length. Index of a key = (key & column mask) + offsets[key >> shift].
fn perfect_hash(keys: &[u32]) -> (Vec<u32>, usize) {
    let max = *keys.iter().max().unwrap();
    let nrows = (max >> HASH_SHIFT) as usize + 1;
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); nrows];
    for &k in keys {
        rows[(k >> HASH_SHIFT) as usize].push(k & ((1 << HASH_SHIFT) - 1));
    }
    let mut order: Vec<usize> = (0..nrows).filter(|&r| !rows[r].is_empty()).collect();
    // Densest rows first; ties by row number so the build is deterministic.
    order.sort_by(|&a, &b| rows[b].len().cmp(&rows[a].len()).then(a.cmp(&b)));
    let mut used = vec![false; keys.len() * 8 + (1 << HASH_SHIFT)];
    let mut offsets = vec![0u32; nrows];
    let mut len = 0usize;
    let mut first_free = 0usize;
    for r in order {
        let cols = &rows[r];
        let c0 = *cols.iter().min().unwrap() as usize;
        let mut off = first_free.saturating_sub(c0);
        while !cols.iter().all(|&c| !used[off + c as usize]) {
            off += 1;
        }
        for &c in cols {
            used[off + c as usize] = true;
            len = len.max(off + c as usize + 1);
        }
        while used[first_free] {
            first_free += 1;
        }
        offsets[r] = off as u32;
    }
    (offsets, len)
}

fn write_u16(path: PathBuf, data: &[u16], little: bool) {
    let bytes: Vec<u8> = data
        .iter()
        .flat_map(|v| if little { v.to_le_bytes() } else { v.to_be_bytes() })
        .collect();
    fs::write(path, bytes).unwrap();
}

fn write_u32(path: PathBuf, data: &[u32], little: bool) {
    let bytes: Vec<u8> = data
        .iter()
        .flat_map(|v| if little { v.to_le_bytes() } else { v.to_be_bytes() })
        .collect();
    fs::write(path, bytes).unwrap();
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/rank/keys.rs");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let little = env::var("CARGO_CFG_TARGET_ENDIAN").map(|e| e == "little").unwrap_or(true);

    // Dense high values: every distinct five-card hand class, weakest = 1.
    let five: Vec<[u8; 13]> = multisets().into_iter().filter(|c| c.iter().sum::<u8>() == 5).collect();
    let mut raws: Vec<u32> = five.iter().map(|c| raw_high(c, false)).collect();
    for mask in 0u16..8192 {
        if mask.count_ones() == 5 {
            raws.push(raw_high(&counts_of_mask(mask), true));
        }
    }
    raws.sort_unstable();
    raws.dedup();
    assert_eq!(raws.len(), 7462, "distinct five-card hand classes");
    let dense: HashMap<u32, u16> = raws.iter().enumerate().map(|(i, &r)| (r, i as u16 + 1)).collect();

    // Dense low values: every five-card rank multiset, worst low = 1.
    let mut lows: Vec<u32> = five.iter().map(raw_low).collect();
    lows.sort_unstable();
    lows.dedup();
    assert_eq!(lows.len(), 6175, "distinct five-card low classes");
    let nlow = lows.len() as u16;
    let dense_low: HashMap<u32, u16> = lows.iter().enumerate().map(|(i, &r)| (r, nlow - i as u16)).collect();

    // Flush table: best flush or straight flush among the ranks of one suit.
    let mut flush = vec![0u16; 8192];
    for mask in 0u16..8192 {
        if mask.count_ones() >= 5 {
            let mut best = 0u16;
            sub_multisets(&counts_of_mask(mask), 5, &mut |s| {
                best = best.max(dense[&raw_high(s, true)]);
            });
            flush[mask as usize] = best;
        }
    }

    // Rank-multiset tables behind the perfect hash.
    let all = multisets();
    let keys: Vec<u32> = all.iter().map(key_of).collect();
    let (mut offsets, mut len) = perfect_hash(&keys);
    // Pad so that any sum of at most seven card keys (valid hand or not)
    // indexes inside both tables: the evaluator relies on it to skip bounds
    // checks (see src/rank/mod.rs).
    let rows_needed = ((7 * RANK_KEYS[12]) >> HASH_SHIFT) as usize + 1;
    offsets.resize(rows_needed.max(offsets.len()), 0);
    len = len.max(*offsets.iter().max().unwrap() as usize + (1 << HASH_SHIFT));
    // Two spare entries: the vector kernels read 4 bytes per u16 entry.
    len += 2;
    let mut high = vec![0u16; len];
    let mut razz = vec![0u16; len];
    let mut low8 = vec![0u16; len];
    for (counts, &key) in all.iter().zip(&keys) {
        let idx = (key & ((1 << HASH_SHIFT) - 1)) as usize + offsets[(key >> HASH_SHIFT) as usize] as usize;
        let (mut h, mut z) = (0u16, 0u16);
        sub_multisets(counts, 5, &mut |s| {
            h = h.max(dense[&raw_high(s, false)]);
            z = z.max(dense_low[&raw_low(s)]);
        });
        // Eight-or-better: the five lowest distinct ranks from ace to eight
        // (000:L2441-2444), when there are five of them.
        let low_ranks: Vec<usize> = [12usize, 0, 1, 2, 3, 4, 5, 6].into_iter().filter(|&r| counts[r] > 0).collect();
        let l8 = if low_ranks.len() >= 5 {
            let mut c = [0u8; 13];
            for &r in &low_ranks[..5] {
                c[r] = 1;
            }
            dense_low[&raw_low(&c)]
        } else {
            0
        };
        high[idx] = h;
        razz[idx] = z;
        low8[idx] = l8;
    }

    write_u32(out.join("offsets.bin"), &offsets, little);
    write_u16(out.join("high.bin"), &high, little);
    write_u16(out.join("razz.bin"), &razz, little);
    write_u16(out.join("low8.bin"), &low8, little);
    flush.extend([0, 0]); // spare entries for 4-byte vector reads
    write_u16(out.join("flush.bin"), &flush, little);
    fs::write(
        out.join("table_sizes.rs"),
        format!(
            "/// Rows of the perfect-hash offset table.\npub const HASH_ROWS: usize = {};\n\
             /// Entries of each rank-multiset table.\npub const HASH_LEN: usize = {};\n",
            offsets.len(),
            len
        ),
    )
    .unwrap();
}
