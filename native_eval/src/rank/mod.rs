//! High-hand evaluation: the best five-card poker hand from five to seven cards.
//!
//! Design choice (OMPEval-style additive keys): every card has a 64-bit key,
//! the sum of a hand's keys identifies it well enough to evaluate it.
//! - Bits 0..32 carry the rank key (`keys::RANK_KEYS`): distinct for every rank
//!   multiset of up to seven cards, so a non-flush hand's value is one lookup
//!   through a perfect hash of that sum (`tables::HIGH`).
//! - Bits 32..48 carry four-bit suit counters that start at 3; a suit reaching
//!   five cards sets its counter's top bit, so one AND detects a flush. With
//!   five or more cards of one suit among at most seven, nothing but a flush or
//!   straight flush can be better (a full house or quads would need three
//!   cards outside the suit), so the flush value comes from a 13-bit rank mask
//!   of that suit alone (`tables::FLUSH`).
//!
//! Adding a card is one addition, so sequential enumeration updates keys
//! incrementally, and batches need no sorting or branching per card.
//!
//! Values are dense: 1 (7-5-4-3-2 offsuit) ..= 7462 (royal flush), higher is
//! better, equal values tie, so the 7,462 five-card hand classes map one to one
//! onto `1..=7462`. A-2-3-4-5 is the lowest straight and there is no
//! wrap-around (ace counts 1 or 14, 002:L295, L327; 001:L616-634).
//!
//! Memory safety does not depend on input validity: card keys are looked up in
//! a 256-entry table (zero for non-cards) and the hash tables are padded so any
//! sum of at most seven keys stays in bounds, which is why the hot path may
//! index without bounds checks. Invalid hands give meaningless values, so the
//! public entry points validate first.

/// Constants shared with `build.rs` (rank keys, hash shift). The file has no
/// inner doc comment because `build.rs` includes it with `include!`.
pub mod keys;
pub mod low;
#[cfg(target_arch = "x86_64")]
pub mod simd;
pub mod soko;
pub mod tables;
pub mod three;

use crate::cards::{check_distinct, rank, suit, Card};
use crate::error::{EvalError, Result};
use keys::{HASH_SHIFT, RANK_KEYS};
use tables::{FLUSH, HASH_OFFSETS, HIGH};

/// Key of the empty hand: each suit counter starts at 3, so five cards of a
/// suit make it 8 and set the counter's top bit.
pub const INITIAL_KEY: u64 = 0x3333 << 32;
/// The top bit of every suit counter.
pub const FLUSH_CHECK: u64 = 0x8888 << 32;
const COLUMN_MASK: u32 = (1 << HASH_SHIFT) - 1;

/// Additive key of every byte value: rank key plus one in its suit counter for
/// codes below 52, zero for anything else (see the module docs on safety).
pub static CARD_KEYS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut c = 0;
    while c < 52 {
        t[c] = RANK_KEYS[c >> 2] as u64 | (1u64 << (32 + 4 * (c & 3)));
        c += 1;
    }
    t
};

/// Hand category, in the order of the standard ranking; Sökö's four-card
/// straight and flush sit between pair and two pair (000:L2069-2072).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// No pair.
    HighCard,
    /// One pair.
    Pair,
    /// Sökö only: four cards in sequence.
    FourStraight,
    /// Sökö only: four cards of one suit.
    FourFlush,
    /// Two pair.
    TwoPair,
    /// Three of a kind.
    ThreeOfAKind,
    /// Straight.
    Straight,
    /// Flush.
    Flush,
    /// Full house.
    FullHouse,
    /// Four of a kind.
    FourOfAKind,
    /// Straight flush (the royal flush is the best one).
    StraightFlush,
}

impl Category {
    /// The category's Python name (`"two_pair"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Category::HighCard => "high_card",
            Category::Pair => "pair",
            Category::FourStraight => "four_straight",
            Category::FourFlush => "four_flush",
            Category::TwoPair => "two_pair",
            Category::ThreeOfAKind => "three_of_a_kind",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::FullHouse => "full_house",
            Category::FourOfAKind => "four_of_a_kind",
            Category::StraightFlush => "straight_flush",
        }
    }
}

/// Number of distinct high values.
pub const HIGH_VALUES: u16 = 7462;

/// First value of each standard category, weakest category first.
pub const CATEGORY_START: [(u16, Category); 9] = [
    (1, Category::HighCard),
    (1278, Category::Pair),
    (4138, Category::TwoPair),
    (4996, Category::ThreeOfAKind),
    (5854, Category::Straight),
    (5864, Category::Flush),
    (7141, Category::FullHouse),
    (7297, Category::FourOfAKind),
    (7453, Category::StraightFlush),
];

/// Category of a high value from `evaluate`, or an error outside `1..=7462`.
pub fn category(value: u32) -> Result<Category> {
    if value == 0 || value > HIGH_VALUES as u32 {
        return Err(EvalError::Invalid(format!("{value} is not a hand value (expected 1..=7462)")));
    }
    Ok(category_of(value as u16))
}

/// Category of a valid high value.
#[inline]
pub fn category_of(value: u16) -> Category {
    let mut cat = Category::HighCard;
    for &(start, c) in &CATEGORY_START {
        if value >= start {
            cat = c;
        }
    }
    cat
}

/// Index of a rank-key sum in the rank-multiset tables.
#[inline(always)]
pub fn hash_index(rank_key: u32) -> usize {
    // SAFETY: a sum of at most seven card keys is below 7 * RANK_KEYS[12], and
    // build.rs pads HASH_OFFSETS to cover every row up to that bound.
    let off = unsafe { *HASH_OFFSETS.get_unchecked((rank_key >> HASH_SHIFT) as usize) };
    (rank_key & COLUMN_MASK) as usize + off as usize
}

/// Non-flush high value of a rank-key sum.
#[inline(always)]
pub fn rank_value(rank_key: u32) -> u16 {
    // SAFETY: build.rs pads HIGH past the largest offset plus a full row.
    unsafe { *HIGH.get_unchecked(hash_index(rank_key)) }
}

/// Suit (0..4) whose counter shows a flush in `key`; only call when
/// `key & FLUSH_CHECK != 0`.
#[inline(always)]
pub fn flush_suit(key: u64) -> u8 {
    (((key & FLUSH_CHECK).trailing_zeros() - 35) >> 2) as u8
}

/// Value of a hand already known to hold five or more cards of `s`.
#[inline(always)]
fn flush_value(cards: &[Card], s: u8) -> u16 {
    let mut m = 0usize;
    for &c in cards {
        if suit(c) == s {
            m |= 1 << rank(c);
        }
    }
    FLUSH[m & 0x1fff]
}

/// Sum of the card keys of a hand.
#[inline(always)]
pub fn hand_key(cards: &[Card]) -> u64 {
    cards.iter().fold(INITIAL_KEY, |k, &c| k + CARD_KEYS[c as usize])
}

/// Value of five to seven distinct valid cards (unchecked: see module docs).
#[inline(always)]
pub fn evaluate_unchecked(cards: &[Card]) -> u16 {
    let key = hand_key(cards);
    if key & FLUSH_CHECK != 0 {
        flush_value(cards, flush_suit(key))
    } else {
        rank_value(key as u32)
    }
}

/// Value of seven distinct valid cards; the fixed size lets the compiler
/// unroll the key sum completely.
#[inline(always)]
pub fn evaluate7_unchecked(c: &[Card; 7]) -> u16 {
    let key = INITIAL_KEY
        + CARD_KEYS[c[0] as usize]
        + CARD_KEYS[c[1] as usize]
        + CARD_KEYS[c[2] as usize]
        + CARD_KEYS[c[3] as usize]
        + CARD_KEYS[c[4] as usize]
        + CARD_KEYS[c[5] as usize]
        + CARD_KEYS[c[6] as usize];
    if key & FLUSH_CHECK != 0 {
        flush_value(c, flush_suit(key))
    } else {
        rank_value(key as u32)
    }
}

/// Best five-card high value of 5, 6 or 7 distinct cards.
pub fn evaluate(cards: &[Card]) -> Result<u16> {
    if !(5..=7).contains(&cards.len()) {
        return Err(EvalError::WrongCardCount(format!("evaluate takes 5, 6 or 7 cards, got {}", cards.len())));
    }
    for &c in cards {
        crate::cards::check_code(c)?;
    }
    check_distinct(cards)?;
    Ok(evaluate_unchecked(cards))
}

/// Checks one batch hand: every code a card, no card twice.
#[inline(always)]
fn batch_hand_ok(hand: &[u8]) -> bool {
    let mut mask = 0u64;
    let mut big = 0u8;
    for &c in hand {
        big |= c;
        mask |= 1u64 << (c & 63);
    }
    // `big < 64` guards the shift; then codes 52..63 are caught by the mask.
    big < 64 && mask.count_ones() as usize == hand.len() && mask >> 52 == 0
}

/// Describes the first invalid hand of a batch.
fn batch_error(codes: &[u8], hand_size: usize) -> EvalError {
    for (i, hand) in codes.chunks_exact(hand_size).enumerate() {
        if let Some(&c) = hand.iter().find(|&&c| c >= 52) {
            return EvalError::UnknownCard(format!("code {c} in hand {i}"));
        }
        let mut set = crate::cards::CardSet::default();
        for &c in hand {
            if set.insert(c).is_err() {
                return EvalError::DuplicateCard(format!("{} in hand {i}", crate::cards::card_str(c)));
            }
        }
    }
    EvalError::Invalid("invalid batch".into())
}

/// Evaluates `codes.len() / hand_size` hands of `hand_size` (5, 6 or 7) card
/// codes into `out`, validating every hand first.
pub fn evaluate_batch(codes: &[u8], hand_size: usize, out: &mut [u16]) -> Result<()> {
    if !(5..=7).contains(&hand_size) {
        return Err(EvalError::WrongCardCount(format!("hand_size must be 5, 6 or 7, got {hand_size}")));
    }
    if !codes.len().is_multiple_of(hand_size) {
        return Err(EvalError::WrongCardCount(format!(
            "{} codes do not divide into hands of {hand_size}",
            codes.len()
        )));
    }
    let n = codes.len() / hand_size;
    if out.len() != n {
        return Err(EvalError::Invalid(format!("output holds {} values, need {n}", out.len())));
    }
    #[cfg(target_arch = "x86_64")]
    if hand_size == 7 && simd::available() {
        let scalar = |k: usize| evaluate7_unchecked(codes[7 * k..7 * k + 7].try_into().unwrap());
        // The kernel validates full 16-hand vectors; the tail is checked here.
        let tail_ok = codes[7 * (n - n % 16)..].chunks_exact(7).all(batch_hand_ok);
        // SAFETY: the CPU features were checked and codes.len() == 7 * n.
        if unsafe { simd::batch7(codes, out, scalar) } && tail_ok {
            return Ok(());
        }
        return Err(batch_error(codes, hand_size));
    }
    evaluate_batch_scalar(codes, hand_size, out)
}

/// The portable batch path (no SIMD); `evaluate_batch` uses it for 5- and
/// 6-card hands and on CPUs without AVX-512. Same contract.
pub fn evaluate_batch_scalar(codes: &[u8], hand_size: usize, out: &mut [u16]) -> Result<()> {
    if !(5..=7).contains(&hand_size) || codes.len() != hand_size * out.len() {
        return Err(EvalError::Invalid(format!("{} codes do not fill {} hands of {hand_size}", codes.len(), out.len())));
    }
    // Validate the whole batch in one tight pass (the flag is or-ed, not
    // branched on), so evaluation below never sees an invalid hand.
    let mut ok = true;
    for hand in codes.chunks_exact(hand_size) {
        ok &= batch_hand_ok(hand);
    }
    if !ok {
        return Err(batch_error(codes, hand_size));
    }
    match hand_size {
        7 => {
            for (hand, o) in codes.chunks_exact(7).zip(out.iter_mut()) {
                *o = evaluate7_unchecked(hand.try_into().unwrap());
            }
        }
        _ => {
            for (hand, o) in codes.chunks_exact(hand_size).zip(out.iter_mut()) {
                *o = evaluate_unchecked(hand);
            }
        }
    }
    Ok(())
}

/// Passes the values of all 133,784,560 seven-card hands to `consume` in
/// blocks, in lexicographic order of card codes, using the AVX-512 kernel when
/// the CPU has it and the scalar enumeration otherwise.
pub fn for_each_seven_card_block(mut consume: impl FnMut(&[u16])) {
    #[cfg(target_arch = "x86_64")]
    if simd::available() {
        // SAFETY: the CPU features were checked.
        unsafe { simd::seven_card_blocks(consume) };
        return;
    }
    let mut buf = [0u16; 64];
    let mut n = 0;
    for_each_seven_card_value(|v| {
        buf[n] = v;
        n += 1;
        if n == buf.len() {
            consume(&buf);
            n = 0;
        }
    });
    consume(&buf[..n]);
}

/// Calls `f` with the value of every seven-card hand of the deck, in
/// lexicographic order of card codes (133,784,560 calls). Keys are updated
/// incrementally, one addition per level; when the first six cards hold at
/// most three cards of every suit no flush is possible and the innermost loop
/// skips the flush test.
#[inline(always)]
pub fn for_each_seven_card_value(mut f: impl FnMut(u16)) {
    let k = &CARD_KEYS;
    // Four more cards of any suit: adding one card then cannot reach five.
    const ONE_PER_SUIT: u64 = 0x1111 << 32;
    for c1 in 0..46usize {
        let k1 = INITIAL_KEY + k[c1];
        for c2 in c1 + 1..47 {
            let k2 = k1 + k[c2];
            for c3 in c2 + 1..48 {
                let k3 = k2 + k[c3];
                for c4 in c3 + 1..49 {
                    let k4 = k3 + k[c4];
                    for c5 in c4 + 1..50 {
                        let k5 = k4 + k[c5];
                        for c6 in c5 + 1..51 {
                            let k6 = k5 + k[c6];
                            if (k6 + ONE_PER_SUIT) & FLUSH_CHECK == 0 {
                                let r6 = k6 as u32;
                                for &ck in &k[c6 + 1..52] {
                                    f(rank_value(r6 + ck as u32));
                                }
                            } else {
                                let six = [c1 as u8, c2 as u8, c3 as u8, c4 as u8, c5 as u8, c6 as u8];
                                for (c7, &ck) in k.iter().enumerate().take(52).skip(c6 + 1) {
                                    let key = k6 + ck;
                                    if key & FLUSH_CHECK != 0 {
                                        let s = flush_suit(key);
                                        let mut m = if suit(c7 as u8) == s { 1usize << rank(c7 as u8) } else { 0 };
                                        for &c in &six {
                                            if suit(c) == s {
                                                m |= 1 << rank(c);
                                            }
                                        }
                                        f(FLUSH[m & 0x1fff]);
                                    } else {
                                        f(rank_value(key as u32));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn ev(s: &str) -> u16 {
        evaluate(&parse_cards(s).unwrap()).unwrap()
    }

    #[test]
    fn extremes_and_wheel() {
        assert_eq!(ev("7s 5h 4d 3c 2s"), 1);
        assert_eq!(ev("As Ks Qs Js Ts"), 7462);
        assert_eq!(category_of(ev("5s 4h 3d 2c Ah")), Category::Straight);
        assert_eq!(ev("5s 4h 3d 2c Ah"), 5854);
        assert!(ev("6s 5h 4d 3c 2h") > ev("5s 4h 3d 2c Ah"));
        assert_eq!(category_of(ev("Ks As 2s 3s 4d")), Category::HighCard);
        assert_eq!(ev("5s 4s 3s 2s As"), 7453);
    }

    #[test]
    fn seven_cards_pick_the_best_five() {
        assert_eq!(ev("Ah Kh Qh Jh Th 2c 2d"), 7462);
        assert_eq!(category_of(ev("Ah Ad Ac Kh Kd 2c 3s")), Category::FullHouse);
        assert_eq!(ev("Ah Ad Ac Kh Kd 2c 3s"), ev("Ah Ad Ac Kh Kd"));
        assert_eq!(category_of(ev("2h 3h 4h 5h 9h Ah Kd")), Category::StraightFlush);
    }

    #[test]
    fn batch_validates() {
        let mut out = [0u16; 1];
        assert!(matches!(evaluate_batch(&[0, 1, 2, 3, 52], 5, &mut out), Err(EvalError::UnknownCard(_))));
        assert!(matches!(evaluate_batch(&[0, 1, 2, 3, 3], 5, &mut out), Err(EvalError::DuplicateCard(_))));
        assert!(matches!(evaluate_batch(&[0, 1, 2, 3], 5, &mut out), Err(EvalError::WrongCardCount(_))));
        evaluate_batch(&[48, 44, 40, 36, 32], 5, &mut out).unwrap();
        assert_eq!(out[0], 7462);
    }
}
