//! Three-card hand ranking (three-card games: Fast Poker, Three Card Poker).
//!
//! Order, weakest first: high card < pair < flush < straight < three of a kind
//! < straight flush; a straight beats a flush (002:L502-519, 002:L2663-2687).
//! Ties: pairs by the pair then the third card, flushes and high cards from the
//! highest card down, straights by the top card; suits never break ties.
//!
//! Decision (the rules say only that the ace is 14 except in A-2-3, 002:L458,
//! and leave its rank silent in 002:L2663-2687): A-2-3 is the lowest straight
//! (below 2-3-4) and A-K-Q the highest; no wrap-around (K-A-2 is nothing).
//!
//! Design choice: with 22,100 possible hands a direct computation is fast
//! enough; the value is `category << 12 | ranks`, higher is better.

use super::Category;
use crate::cards::{rank, suit, Card};

/// Three-card category order, weakest first.
pub const THREE_ORDER: [Category; 6] = [
    Category::HighCard,
    Category::Pair,
    Category::Flush,
    Category::Straight,
    Category::ThreeOfAKind,
    Category::StraightFlush,
];

/// Value and category of three distinct valid cards.
pub fn three_card_value(cards: &[Card; 3]) -> (u32, Category) {
    let mut r = [rank(cards[0]), rank(cards[1]), rank(cards[2])];
    r.sort_unstable_by(|a, b| b.cmp(a));
    let flush = suit(cards[0]) == suit(cards[1]) && suit(cards[1]) == suit(cards[2]);
    let distinct = r[0] != r[1] && r[1] != r[2];
    let straight_top = if distinct && r[0] == r[1] + 1 && r[1] == r[2] + 1 {
        Some(r[0])
    } else if r == [12, 1, 0] {
        Some(1) // A-2-3: the three is the top card.
    } else {
        None
    };
    let (cat, tie) = if r[0] == r[2] {
        (Category::ThreeOfAKind, r[0] as u32)
    } else if let (Some(t), true) = (straight_top, flush) {
        (Category::StraightFlush, t as u32)
    } else if let Some(t) = straight_top {
        (Category::Straight, t as u32)
    } else if flush {
        (Category::Flush, pack(&r))
    } else if r[0] == r[1] {
        (Category::Pair, ((r[0] as u32) << 4) | r[2] as u32)
    } else if r[1] == r[2] {
        (Category::Pair, ((r[1] as u32) << 4) | r[0] as u32)
    } else {
        (Category::HighCard, pack(&r))
    };
    let order = THREE_ORDER.iter().position(|&c| c == cat).unwrap() as u32;
    ((order << 12) | tie, cat)
}

/// Value of a Chinese poker front hand: three distinct valid cards ranked by
/// high card, pair and three of a kind only (000:L2662-2665, 002:L1993: three-card
/// straights and flushes do not count, so the best front is three aces).
///
/// The value is `category << 12 | ranks`, category 0 high card, 1 pair, 2
/// three of a kind; ranks are packed four bits each (0 = deuce ... 12 = ace),
/// strongest group first: a pair is `pair << 4 | kicker`, a high card the three
/// ranks from the highest down. Higher is better; equal values tie.
pub fn front_value(cards: &[Card; 3]) -> u32 {
    let mut r = [rank(cards[0]), rank(cards[1]), rank(cards[2])];
    r.sort_unstable_by(|a, b| b.cmp(a));
    if r[0] == r[2] {
        (2 << 12) | r[0] as u32
    } else if r[0] == r[1] {
        (1 << 12) | ((r[0] as u32) << 4) | r[2] as u32
    } else if r[1] == r[2] {
        (1 << 12) | ((r[1] as u32) << 4) | r[0] as u32
    } else {
        pack(&r)
    }
}

fn pack(r: &[u8; 3]) -> u32 {
    ((r[0] as u32) << 8) | ((r[1] as u32) << 4) | r[2] as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn tv(s: &str) -> (u32, Category) {
        let v = parse_cards(s).unwrap();
        three_card_value(&[v[0], v[1], v[2]])
    }

    #[test]
    fn straight_beats_flush_and_wheel_is_lowest() {
        assert!(tv("4s 5h 6d").0 > tv("As Ks 9s").0);
        assert_eq!(tv("As 2h 3d").1, Category::Straight);
        assert!(tv("As 2h 3d").0 < tv("2s 3h 4d").0);
        assert!(tv("As Kh Qd").0 > tv("Ks Qh Jd").0);
        assert_eq!(tv("Ks Ah 2d").1, Category::HighCard);
        assert_eq!(tv("2s 2h 2d").1, Category::ThreeOfAKind);
        assert!(tv("2s 2h 2d").0 < tv("As 2s 3s").0);
        assert!(tv("Qs Qh 3d").0 > tv("Qd Qc 2s").0);
    }

    fn fv(s: &str) -> u32 {
        let v = parse_cards(s).unwrap();
        front_value(&[v[0], v[1], v[2]])
    }

    #[test]
    fn front_hands_ignore_straights_and_flushes() {
        // 000:L2664-2665: no three-card straights or flushes; three aces are the best.
        assert!(fv("4s 5s 6s") < fv("2h 2d 3c"));
        assert!(fv("Qs Ks As") < fv("2h 2d 3c"));
        assert_eq!(fv("4s 5s 6s") >> 12, 0);
        assert!(fv("Ac Ad Ah") > fv("Kc Kd Kh"));
        assert!(fv("2c 2d 2h") > fv("Ac Ad Kh"));
        assert!(fv("Qs Qh 3d") > fv("Qd Qc 2s"));
        assert_eq!(fv("6s 6h 2d"), (1 << 12) | (4 << 4));
        assert_eq!(fv("Qs 9h 2d"), fv("Qd 9c 2s"));       // suits never count
    }

    #[test]
    fn front_values_order_all_22100_hands_as_the_ranking_says() {
        // Every three-card set: the value's category is trips, pair or high card
        // by the ranks alone, and a hand of a higher category always ranks above.
        let mut best = [0u32; 3];
        let mut worst = [u32::MAX; 3];
        for a in 0..52u8 {
            for b in (a + 1)..52 {
                for c in (b + 1)..52 {
                    let v = front_value(&[a, b, c]);
                    let (ra, rb, rc) = (a / 4, b / 4, c / 4);
                    let cat = if ra == rb && rb == rc { 2 } else if ra == rb || rb == rc || ra == rc { 1 } else { 0 };
                    assert_eq!(v >> 12, cat);
                    best[cat as usize] = best[cat as usize].max(v);
                    worst[cat as usize] = worst[cat as usize].min(v);
                }
            }
        }
        assert!(best[0] < worst[1] && best[1] < worst[2]);
    }
}
