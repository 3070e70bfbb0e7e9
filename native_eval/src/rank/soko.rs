//! Sökö (Finnish five-card stud) hand ranking.
//!
//! Besides the standard hands, a four-card straight and a four-card flush
//! count; they rank between one pair and two pair, two pair > four-flush >
//! four-straight > one pair, and there is no four-card straight flush
//! (000:L2069-2072; 002:L344-350, L442). All five cards count: between equal
//! four-straights or four-flushes the fifth card decides, and if that is equal
//! too the pot is split (000:L2075-2079).
//!
//! Design choice: the value is `category << 20 | tie-break`, where standard
//! hands keep their dense high value as the tie-break (already correctly
//! ordered inside a category) and the two Sökö hands pack their ranks.
//!
//! Decisions where the rules are silent:
//! - A-2-3-4 is a four-card straight, the lowest one (the ace counts 1 or 14,
//!   002:L295, L327; the same reading the rules give the five-card wheel);
//!   J-Q-K-A is the highest and there is no wrap-around (K-A-2-3 is nothing).
//! - Four-straights compare by their top card, then by the fifth card's rank
//!   (ace high); four-flushes compare their four suited cards from the top
//!   down, then the fifth card (002:L346, L350 "etc.").
//! - A hand holding both a four-flush and a four-straight (including four
//!   suited cards in sequence) is a four-flush, the higher of the two; a hand
//!   holding a pair and a four-card hand is the four-card hand.

use super::{category_of, evaluate_unchecked, Category};
use crate::cards::{rank, suit, Card};

/// Sökö category order, weakest first.
pub const SOKO_ORDER: [Category; 11] = [
    Category::HighCard,
    Category::Pair,
    Category::FourStraight,
    Category::FourFlush,
    Category::TwoPair,
    Category::ThreeOfAKind,
    Category::Straight,
    Category::Flush,
    Category::FullHouse,
    Category::FourOfAKind,
    Category::StraightFlush,
];

fn order_of(cat: Category) -> u32 {
    SOKO_ORDER.iter().position(|&c| c == cat).unwrap() as u32
}

/// Top rank of a four-card run among the distinct ranks in `mask`.
fn four_straight_top(mask: u16) -> Option<u8> {
    for top in (3..=12u8).rev() {
        if (mask >> (top - 3)) & 0xf == 0xf {
            return Some(top);
        }
    }
    // A-2-3-4: the ace plays low, the four is the top card.
    if mask & 0x1007 == 0x1007 {
        return Some(2);
    }
    None
}

/// Sökö value and category of exactly five distinct valid cards.
pub fn soko_value(cards: &[Card; 5]) -> (u32, Category) {
    let std = evaluate_unchecked(cards);
    let cat = category_of(std);
    if cat >= Category::TwoPair {
        return ((order_of(cat) << 20) | std as u32, cat);
    }
    let mut per_suit = [0u8; 4];
    for &c in cards {
        per_suit[suit(c) as usize] += 1;
    }
    if let Some(s) = per_suit.iter().position(|&n| n == 4) {
        let mut suited: Vec<u8> = cards.iter().filter(|&&c| suit(c) as usize == s).map(|&c| rank(c)).collect();
        suited.sort_unstable_by(|a, b| b.cmp(a));
        let fifth = cards.iter().find(|&&c| suit(c) as usize != s).map(|&c| rank(c)).unwrap();
        let packed = suited.iter().fold(0u32, |p, &r| (p << 4) | r as u32);
        let v = (order_of(Category::FourFlush) << 20) | (packed << 4) | fifth as u32;
        return (v, Category::FourFlush);
    }
    let mask: u16 = cards.iter().fold(0, |m, &c| m | (1 << rank(c)));
    if let Some(top) = four_straight_top(mask) {
        // The fifth card is the one left after taking one card per run rank.
        let run: u16 = if top == 2 { 0x1007 } else { 0xf << (top - 3) };
        let mut taken = 0u16;
        let mut fifth = 0u8;
        for &c in cards {
            let bit = 1 << rank(c);
            if run & bit != 0 && taken & bit == 0 {
                taken |= bit;
            } else {
                fifth = rank(c);
            }
        }
        let v = (order_of(Category::FourStraight) << 20) | ((top as u32) << 4) | fifth as u32;
        return (v, Category::FourStraight);
    }
    ((order_of(cat) << 20) | std as u32, cat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn sv(s: &str) -> (u32, Category) {
        let v = parse_cards(s).unwrap();
        soko_value(&[v[0], v[1], v[2], v[3], v[4]])
    }

    #[test]
    fn four_card_hands_sit_between_pair_and_two_pair() {
        let pair = sv("As Ad Kh 7c 2s");
        let four_straight = sv("5s 6h 7d 8c Ks");
        let four_flush = sv("2h 5h 9h Jh Ks");
        let two_pair = sv("3s 3d 2h 2c 4s");
        assert_eq!(four_straight.1, Category::FourStraight);
        assert_eq!(four_flush.1, Category::FourFlush);
        assert!(pair.0 < four_straight.0 && four_straight.0 < four_flush.0 && four_flush.0 < two_pair.0);
    }

    #[test]
    fn fifth_card_breaks_ties_and_wheel_four_straight() {
        assert!(sv("5s 6h 7d 8c Ks").0 > sv("5h 6d 7c 8s Qs").0);
        assert_eq!(sv("5s 6h 7d 8c Ks").0, sv("5h 6d 7c 8s Kh").0);
        assert_eq!(sv("As 2h 3d 4c 9s").1, Category::FourStraight);
        assert!(sv("As 2h 3d 4c 9s").0 < sv("2s 3h 4d 5c 9h").0);
        assert_eq!(sv("Ks As 2h 3d 9c").1, Category::HighCard);
        // Four suited cards in sequence are a four-flush, not a straight flush.
        assert_eq!(sv("5h 6h 7h 8h Ks").1, Category::FourFlush);
        // A pair inside a four-straight: the four-straight counts.
        assert_eq!(sv("5h 6d 7c 8s 8h").1, Category::FourStraight);
    }
}
