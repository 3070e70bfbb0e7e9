//! Exhaustive correctness tests of the ranking tables.
//!
//! Every five-card hand, every seven-card hand and every three-card hand is
//! evaluated and the category counts are compared with the published
//! combinatorial counts; five-card values are also checked against a naive
//! ranker written from the rules, so the order inside each category is
//! verified, not just the totals. Run in release (`cargo test --release`):
//! the seven-card passes evaluate 133,784,560 hands each.

use _native::cards::{card_str, rank, suit, Card};
use _native::rank::keys::RANK_KEYS;
use _native::rank::low::{low8_value, razz_value, LOW_VALUES};
use _native::rank::three::three_card_value;
use _native::rank::{category_of, evaluate7_unchecked, evaluate_unchecked, for_each_seven_card_value, Category};
use std::collections::{BTreeMap, HashSet};

const STANDARD: [Category; 9] = [
    Category::HighCard,
    Category::Pair,
    Category::TwoPair,
    Category::ThreeOfAKind,
    Category::Straight,
    Category::Flush,
    Category::FullHouse,
    Category::FourOfAKind,
    Category::StraightFlush,
];

fn index_of(cat: Category) -> usize {
    STANDARD.iter().position(|&c| c == cat).unwrap()
}

/// Naive five-card ranking straight from the rules: (category, ranks in
/// comparison order). Independent of the crate's tables.
fn naive_five(cards: &[Card]) -> (u8, Vec<u8>) {
    let mut counts = [0u8; 13];
    for &c in cards {
        counts[rank(c) as usize] += 1;
    }
    let mut groups: Vec<(u8, u8)> = (0..13u8).filter(|&r| counts[r as usize] > 0).map(|r| (counts[r as usize], r)).collect();
    groups.sort_by(|a, b| b.cmp(a));
    let ranks: Vec<u8> = groups.iter().map(|g| g.1).collect();
    let flush = cards.iter().all(|&c| suit(c) == suit(cards[0]));
    let straight = if groups.len() == 5 {
        if ranks[0] - ranks[4] == 4 {
            Some(ranks[0])
        } else if ranks == [12, 3, 2, 1, 0] {
            Some(3)
        } else {
            None
        }
    } else {
        None
    };
    let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
    match (straight, flush, shape.as_slice()) {
        (Some(t), true, _) => (8, vec![t]),
        (_, _, [4, 1]) => (7, ranks),
        (_, _, [3, 2]) => (6, ranks),
        (None, true, _) => (5, ranks),
        (Some(t), false, _) => (4, vec![t]),
        (_, _, [3, 1, 1]) => (3, ranks),
        (_, _, [2, 2, 1]) => (2, ranks),
        (_, _, [2, 1, 1, 1]) => (1, ranks),
        _ => (0, ranks),
    }
}

#[test]
fn rank_keys_give_distinct_sums_for_every_multiset_of_up_to_seven_cards() {
    fn rec(r: usize, total: u32, sum: u32, seen: &mut HashSet<u32>, n: &mut usize) {
        if r == 13 {
            assert!(seen.insert(sum), "two multisets share the key sum {sum}");
            *n += 1;
            return;
        }
        for c in 0..=4u32.min(7 - total) {
            rec(r + 1, total + c, sum + c * RANK_KEYS[r], seen, n);
        }
    }
    let (mut seen, mut n) = (HashSet::new(), 0);
    rec(0, 0, 0, &mut seen, &mut n);
    assert_eq!(n, 76155);
}

#[test]
fn all_five_card_hands_give_the_known_category_counts_and_7462_values() {
    let mut counts = [0u64; 9];
    let mut by_naive: BTreeMap<(u8, Vec<u8>), HashSet<u16>> = BTreeMap::new();
    let mut total = 0u64;
    for a in 0..52u8 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let h = [a, b, c, d, e];
                        let v = evaluate_unchecked(&h);
                        counts[index_of(category_of(v))] += 1;
                        by_naive.entry(naive_five(&h)).or_default().insert(v);
                        total += 1;
                    }
                }
            }
        }
    }
    assert_eq!(total, 2_598_960);
    assert_eq!(counts, [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]);
    // One value per naive class, and values strictly increase with the naive
    // order: the ranking inside every category is right, not just the totals.
    assert_eq!(by_naive.len(), 7462);
    let values: Vec<u16> = by_naive
        .values()
        .map(|s| {
            assert_eq!(s.len(), 1);
            *s.iter().next().unwrap()
        })
        .collect();
    assert_eq!(values, (1..=7462).collect::<Vec<u16>>());
}

const SEVEN_CARD_COUNTS: [u64; 9] =
    [23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184, 224_848, 41_584];

#[test]
fn all_seven_card_hands_give_the_known_category_counts() {
    // Direct evaluation of each hand, the path `evaluate` and batches take.
    let mut hist = vec![0u64; 7463];
    let mut h = [0u8; 7];
    for a in 0..52u8 {
        h[0] = a;
        for b in a + 1..52 {
            h[1] = b;
            for c in b + 1..52 {
                h[2] = c;
                for d in c + 1..52 {
                    h[3] = d;
                    for e in d + 1..52 {
                        h[4] = e;
                        for f in e + 1..52 {
                            h[5] = f;
                            for g in f + 1..52 {
                                h[6] = g;
                                hist[evaluate7_unchecked(&h) as usize] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    let mut counts = [0u64; 9];
    for (v, &n) in hist.iter().enumerate().skip(1) {
        counts[index_of(category_of(v as u16))] += n;
    }
    assert_eq!(hist[0], 0);
    assert_eq!(counts.iter().sum::<u64>(), 133_784_560);
    assert_eq!(counts, SEVEN_CARD_COUNTS);
    // Seven cards reach 4,824 of the 7,462 classes (no 7-high or weaker-than-
    // 8-7-5-4-3 no-pair hand can be the best five of seven).
    assert_eq!(hist.iter().filter(|&&n| n > 0).count(), 4824);
}

#[test]
fn sequential_enumeration_matches_the_known_category_counts() {
    let mut hist = vec![0u64; 7463];
    for_each_seven_card_value(|v| hist[v as usize] += 1);
    let mut counts = [0u64; 9];
    for (v, &n) in hist.iter().enumerate().skip(1) {
        counts[index_of(category_of(v as u16))] += n;
    }
    assert_eq!(counts, SEVEN_CARD_COUNTS);
}

/// Small deterministic generator (xorshift) for sampled checks.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn random_hand(state: &mut u64, n: usize) -> Vec<Card> {
    let mut used = 0u64;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let c = (xorshift(state) % 52) as u8;
        if used & (1 << c) == 0 {
            used |= 1 << c;
            out.push(c);
        }
    }
    out
}

fn subsets5(cards: &[Card]) -> Vec<Vec<Card>> {
    let n = cards.len();
    let mut out = Vec::new();
    for mask in 0u32..(1 << n) {
        if mask.count_ones() == 5 {
            out.push((0..n).filter(|&i| mask >> i & 1 == 1).map(|i| cards[i]).collect());
        }
    }
    out
}

#[test]
fn six_and_seven_card_values_equal_the_best_five_card_subset() {
    let mut s = 0x9e3779b97f4a7c15u64;
    for n in [6usize, 7] {
        for _ in 0..100_000 {
            let h = random_hand(&mut s, n);
            let best = subsets5(&h).iter().map(|f| evaluate_unchecked(f)).max().unwrap();
            assert_eq!(evaluate_unchecked(&h), best, "{:?}", h.iter().map(|&c| card_str(c)).collect::<Vec<_>>());
        }
    }
}

/// Naive ace-to-five low key, smaller is better: pair structure, then ranks
/// from the highest down with the ace as one.
fn naive_low(cards: &[Card]) -> (u8, Vec<u8>) {
    let mut counts = [0u8; 13];
    for &c in cards {
        counts[((rank(c) + 1) % 13) as usize] += 1;
    }
    let mut groups: Vec<(u8, u8)> = (0..13u8).filter(|&r| counts[r as usize] > 0).map(|r| (counts[r as usize], r)).collect();
    groups.sort_by(|a, b| b.cmp(a));
    let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
    let cat = match shape.as_slice() {
        [1, 1, 1, 1, 1] => 0,
        [2, 1, 1, 1] => 1,
        [2, 2, 1] => 2,
        [3, 1, 1] => 3,
        [3, 2] => 4,
        _ => 5,
    };
    (cat, groups.iter().map(|g| g.1).collect())
}

#[test]
fn low_tables_match_a_naive_ace_to_five_ranking() {
    let mut s = 0x2545f4914f6cdd1du64;
    for n in [5usize, 6, 7] {
        for _ in 0..100_000 {
            let h = random_hand(&mut s, n);
            let subs = subsets5(&h);
            let best_razz = subs.iter().map(|f| naive_low(f)).min().unwrap();
            let best_eight = subs
                .iter()
                .map(|f| naive_low(f))
                .filter(|(cat, r)| *cat == 0 && r[0] <= 7)
                .min();
            // Same naive class must give the same value, and order must agree.
            let other = random_hand(&mut s, 5);
            let other_naive = naive_low(&other);
            let ord_naive = other_naive.cmp(&best_razz);
            let ord_table = razz_value(&h).cmp(&razz_value(&other));
            assert_eq!(ord_naive, ord_table, "razz order");
            match best_eight {
                None => assert_eq!(low8_value(&h), None),
                Some(k) => {
                    let v = low8_value(&h).unwrap();
                    // A qualifying low ranks as the same five cards in Razz.
                    let five: Vec<Card> = subs.iter().find(|f| naive_low(f) == k).unwrap().clone();
                    assert_eq!(v, razz_value(&five));
                }
            }
        }
    }
    assert_eq!(razz_value(&[12 * 4, 1, 4 + 2, 8 + 3, 12]), LOW_VALUES);
}

#[test]
fn all_three_card_hands_give_the_known_category_counts() {
    let mut counts: BTreeMap<&'static str, u32> = BTreeMap::new();
    for a in 0..52u8 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                *counts.entry(three_card_value(&[a, b, c]).1.name()).or_default() += 1;
            }
        }
    }
    let expected: BTreeMap<&str, u32> = [
        ("straight_flush", 48),
        ("three_of_a_kind", 52),
        ("straight", 720),
        ("flush", 1096),
        ("pair", 3744),
        ("high_card", 16440),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
}

#[test]
fn block_enumeration_matches_the_known_category_counts() {
    // The enumeration the benchmark times (AVX-512 kernel where available).
    let mut hist = vec![0u64; 7463];
    _native::rank::for_each_seven_card_block(|b| {
        for &v in b {
            hist[v as usize] += 1;
        }
    });
    let mut counts = [0u64; 9];
    for (v, &n) in hist.iter().enumerate().skip(1) {
        counts[index_of(category_of(v as u16))] += n;
    }
    assert_eq!(hist[0], 0);
    assert_eq!(counts, SEVEN_CARD_COUNTS);
}

#[test]
fn batch_evaluation_equals_one_at_a_time_evaluation() {
    let mut s = 0x5851f42d4c957f2du64;
    for size in [5usize, 6, 7] {
        // 1,000,003 hands: not a multiple of 16, so the tail path runs too.
        let n = 1_000_003;
        let mut codes = Vec::with_capacity(n * size);
        for _ in 0..n {
            codes.extend(random_hand(&mut s, size));
        }
        let mut out = vec![0u16; n];
        _native::rank::evaluate_batch(&codes, size, &mut out).unwrap();
        let mut portable = vec![0u16; n];
        _native::rank::evaluate_batch_scalar(&codes, size, &mut portable).unwrap();
        assert!(out == portable, "vector and portable batch paths differ");
        for (h, &v) in codes.chunks_exact(size).zip(&out) {
            assert_eq!(v, evaluate_unchecked(h));
        }
    }
}

#[test]
fn batch_rejects_every_invalid_hand_position() {
    use _native::EvalError;
    let mut s = 0x1234_5678_9abc_def1u64;
    let mut codes = Vec::new();
    for _ in 0..40 {
        codes.extend(random_hand(&mut s, 7));
    }
    let mut out = vec![0u16; 40];
    _native::rank::evaluate_batch(&codes, 7, &mut out).unwrap();
    // A bad code or a duplicate in any hand (inside a 16-hand block or in the
    // tail) and at any card position is caught and named.
    for hand in [0usize, 7, 15, 16, 31, 39] {
        for pos in 0..7 {
            let mut bad = codes.clone();
            bad[hand * 7 + pos] = 52 + pos as u8;
            let err = _native::rank::evaluate_batch(&bad, 7, &mut out).unwrap_err();
            assert_eq!(err, EvalError::UnknownCard(format!("code {} in hand {hand}", 52 + pos)));
            let err = _native::rank::evaluate_batch_scalar(&bad, 7, &mut out).unwrap_err();
            assert_eq!(err, EvalError::UnknownCard(format!("code {} in hand {hand}", 52 + pos)));
            let mut dup = codes.clone();
            let other = hand * 7 + (pos + 1) % 7;
            dup[hand * 7 + pos] = dup[other];
            let err = _native::rank::evaluate_batch(&dup, 7, &mut out).unwrap_err();
            assert_eq!(err, EvalError::DuplicateCard(format!("{} in hand {hand}", card_str(dup[other]))));
            let err = _native::rank::evaluate_batch_scalar(&dup, 7, &mut out).unwrap_err();
            assert_eq!(err, EvalError::DuplicateCard(format!("{} in hand {hand}", card_str(dup[other]))));
        }
    }
}
