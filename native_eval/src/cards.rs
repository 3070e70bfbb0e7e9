//! Cards: parsing, formatting and the integer code used everywhere.
//!
//! A card is a two-character string, rank from `23456789TJQKA` then suit from
//! `shdc` (`"Ah"`, `"Td"`). Internally a card is its code `4 * rank + suit`
//! (rank 0..=12 for deuce..ace, suit 0..=3 for spades, hearts, diamonds,
//! clubs), the same code the batch API takes. Design choice: parsing works on
//! bytes through 256-entry tables so the per-call Python path stays cheap, and
//! duplicate detection uses a 64-bit set.

use crate::error::{EvalError, Result};

/// A card code, `4 * rank + suit`.
pub type Card = u8;

/// Rank characters, deuce first.
pub const RANK_CHARS: &[u8; 13] = b"23456789TJQKA";
/// Suit characters in code order: spades, hearts, diamonds, clubs.
pub const SUIT_CHARS: &[u8; 4] = b"shdc";

const INVALID: u8 = 0xff;

const RANK_OF: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 13 {
        t[RANK_CHARS[i] as usize] = i as u8;
        i += 1;
    }
    t
};

const SUIT_OF: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 4 {
        t[SUIT_CHARS[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Rank of a card, 0 (deuce) ..= 12 (ace).
#[inline(always)]
pub const fn rank(c: Card) -> u8 {
    c >> 2
}

/// Suit of a card, 0 spades, 1 hearts, 2 diamonds, 3 clubs.
#[inline(always)]
pub const fn suit(c: Card) -> u8 {
    c & 3
}

/// Parses one two-byte card token.
#[inline]
pub fn parse_card_bytes(b: &[u8]) -> Result<Card> {
    if b.len() == 2 {
        let r = RANK_OF[b[0] as usize];
        let s = SUIT_OF[b[1] as usize];
        if r != INVALID && s != INVALID {
            return Ok(r * 4 + s);
        }
    }
    Err(EvalError::UnknownCard(String::from_utf8_lossy(b).into_owned()))
}

/// Parses one card string such as `"Ah"`.
pub fn parse_card(s: &str) -> Result<Card> {
    parse_card_bytes(s.as_bytes())
}

/// Parses a whitespace-separated card string (`"Ah Kd 7c"`) into `out`.
pub fn parse_cards_into(s: &str, out: &mut Vec<Card>) -> Result<()> {
    for tok in s.split_ascii_whitespace() {
        out.push(parse_card(tok)?);
    }
    Ok(())
}

/// Parses a whitespace-separated card string.
pub fn parse_cards(s: &str) -> Result<Vec<Card>> {
    let mut v = Vec::with_capacity(8);
    parse_cards_into(s, &mut v)?;
    Ok(v)
}

/// The two-character name of a card.
pub fn card_str(c: Card) -> String {
    let b = [RANK_CHARS[rank(c) as usize], SUIT_CHARS[suit(c) as usize]];
    String::from_utf8_lossy(&b).into_owned()
}

/// Checks that a code is a card (below 52).
#[inline]
pub fn check_code(c: u8) -> Result<Card> {
    if c < 52 {
        Ok(c)
    } else {
        Err(EvalError::UnknownCard(format!("code {c}")))
    }
}

/// A set of cards as a 52-bit mask; used to reject duplicates across a call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CardSet(pub u64);

impl CardSet {
    /// Adds a card, failing if it is already present.
    #[inline]
    pub fn insert(&mut self, c: Card) -> Result<()> {
        let bit = 1u64 << c;
        if self.0 & bit != 0 {
            return Err(EvalError::DuplicateCard(card_str(c)));
        }
        self.0 |= bit;
        Ok(())
    }

    /// Adds every card of a slice, failing on the first duplicate.
    pub fn insert_all(&mut self, cards: &[Card]) -> Result<()> {
        cards.iter().try_for_each(|&c| self.insert(c))
    }
}

/// Fails if any card occurs twice in `cards`.
pub fn check_distinct(cards: &[Card]) -> Result<()> {
    CardSet::default().insert_all(cards)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_every_card() {
        for c in 0..52u8 {
            assert_eq!(parse_card(&card_str(c)).unwrap(), c);
        }
        assert_eq!(parse_card("Ah").unwrap(), 12 * 4 + 1);
        assert_eq!(parse_card("2s").unwrap(), 0);
        assert_eq!(parse_card("Tc").unwrap(), 8 * 4 + 3);
    }

    #[test]
    fn rejects_bad_tokens() {
        for bad in ["", "A", "Ahh", "1h", "ah", "AH", "Ax", "10h"] {
            assert!(matches!(parse_card(bad), Err(EvalError::UnknownCard(_))), "{bad}");
        }
    }

    #[test]
    fn duplicate_is_named() {
        let err = check_distinct(&parse_cards("Ah Kd Ah").unwrap()).unwrap_err();
        assert_eq!(err, EvalError::DuplicateCard("Ah".into()));
    }
}
