//! Ace-to-five low hands: Razz and the eight-or-better low of hi/lo games.
//!
//! Design choice: a low depends only on ranks, so it is read from tables
//! indexed by the same perfect hash of the rank-key sum as the high values
//! (`tables::RAZZ`, `tables::LOW8`), precomputed by `build.rs` over every
//! five-card subset. Both tables use one scale: 1 (the worst five-card low,
//! four kings with a queen) ..= 6175 (5-4-3-2-A, the wheel), higher is better.
//!
//! Rules:
//! - Razz: the ace is always low, straights and flushes do not count, there is
//!   no qualifier, pairs count against the hand, and hands compare from the
//!   highest card down, so J-6-5-4-3 beats J-7-3-2-A (000:L2475-2484, the
//!   worst-to-best example list at 000:L2488-2502).
//! - Eight-or-better: five distinct ranks, all eight or lower, ace low,
//!   straights and flushes ignored, the wheel best (000:L2441-2444; 002:L418,
//!   where 7-6-5-3-2 beats 8-4-3-2-A). A qualifying low ranks exactly as the
//!   same five cards do in Razz, hence the shared scale.

use super::tables::{LOW8, RAZZ};
use super::{hash_index, Category, CARD_KEYS};
use crate::cards::{rank, Card};

/// Number of distinct ace-to-five low values.
pub const LOW_VALUES: u16 = 6175;

/// Sum of the rank keys of a hand (suits ignored).
#[inline(always)]
pub fn rank_key(cards: &[Card]) -> u32 {
    cards.iter().map(|&c| CARD_KEYS[c as usize] as u32).sum()
}

/// Razz value of a rank-key sum of five to seven cards.
#[inline(always)]
pub fn razz_of_key(rank_key: u32) -> u16 {
    // SAFETY: tables are padded for any sum of at most seven keys (rank/mod.rs).
    unsafe { *RAZZ.get_unchecked(hash_index(rank_key)) }
}

/// Eight-or-better value of a rank-key sum, 0 when no low qualifies.
#[inline(always)]
pub fn low8_of_key(rank_key: u32) -> u16 {
    // SAFETY: as above.
    unsafe { *LOW8.get_unchecked(hash_index(rank_key)) }
}

/// Best Razz low of five to seven valid cards.
pub fn razz_value(cards: &[Card]) -> u16 {
    razz_of_key(rank_key(cards))
}

/// Best eight-or-better low of five to seven valid cards, if one qualifies.
pub fn low8_value(cards: &[Card]) -> Option<u16> {
    match low8_of_key(rank_key(cards)) {
        0 => None,
        v => Some(v),
    }
}

/// Ace-low rank: ace 0, deuce 1, ... king 12.
#[inline]
pub fn low_rank(c: Card) -> u8 {
    (rank(c) + 1) % 13
}

/// Pair structure of five cards for a low hand: straights and flushes do not
/// exist in low, so only high card (no pair) to four of a kind remain.
pub fn low_category(cards: &[Card]) -> Category {
    let mut counts = [0u8; 13];
    for &c in cards {
        counts[rank(c) as usize] += 1;
    }
    let max = *counts.iter().max().unwrap_or(&0);
    let pairs = counts.iter().filter(|&&n| n == 2).count();
    match (max, pairs) {
        (4, _) => Category::FourOfAKind,
        (3, 1) => Category::FullHouse,
        (3, _) => Category::ThreeOfAKind,
        (2, 2) => Category::TwoPair,
        (2, _) => Category::Pair,
        _ => Category::HighCard,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn razz(s: &str) -> u16 {
        razz_value(&parse_cards(s).unwrap())
    }

    #[test]
    fn razz_order_matches_the_rulebook_example() {
        // 000:L2488-2502, worst first.
        let order = [
            "3s 3h 3d 5c 5s",
            "Ks Kh 4d 3c 2s",
            "2s 2h 7d 6c 5s",
            "As Ah Td 9c 8s",
            "Ks Qh Jd Tc 9s",
            "Ks Qh Jd Tc 7s",
            "9s 8h 7d 6c 5s",
            "9s 8h 3d 2c As",
            "9s 7h 6d 5c 4s",
            "6s 5h 4d 3c 2s",
            "6s 4h 3d 2c As",
            "5s 4h 3d 2c As",
        ];
        for w in order.windows(2) {
            assert!(razz(w[0]) < razz(w[1]), "{} should lose to {}", w[0], w[1]);
        }
        assert_eq!(razz("5s 4h 3d 2c As"), LOW_VALUES);
        assert_eq!(razz("Js 6h 5d 4c 3s").cmp(&razz("Js 7h 3d 2c As")), std::cmp::Ordering::Greater);
    }

    #[test]
    fn eight_or_better_qualifier() {
        let l = |s: &str| low8_value(&parse_cards(s).unwrap());
        assert_eq!(l("5s 4h 3d 2c As"), Some(LOW_VALUES));
        assert_eq!(l("9s 4h 3d 2c As"), None);
        assert_eq!(l("8s 8h 3d 2c As"), None);
        assert!(l("7s 6h 5d 3c 2s").unwrap() > l("8s 4h 3d 2c As").unwrap());
        // Seven cards: the five lowest distinct ranks, pairs skipped.
        assert_eq!(l("As Ah 2d 2c 3s 4h 8d"), l("As 2d 3s 4h 8d"));
        assert_eq!(l("Ks Qh 2d 3c 4s 5h 5d"), None);
    }
}
