//! Poker variants: how each game forms its hands from hole and board cards.
//!
//! Design choice: a variant is a small set of properties (card counts, hand
//! formation, what decides the pot, the odd-chip rule) read by one generic
//! evaluator, rather than per-game code paths. Values come from the fast
//! key-sum evaluators in `rank`; the cards that make a hand (only needed by
//! `best_hand`) are found by trying every legal five-card combination.
//!
//! Hand formation (000 = poker room rules, 002 = RAY rules, 001 = online):
//! - `holdem`, `pineapple`, `crazy_pineapple`, `helsinki_holdem`: 2 hole cards
//!   at showdown (the extra cards of the last three are discarded before it),
//!   best five of hole + board using 0, 1 or 2 hole cards (000:L1716-1717,
//!   000:L1974-2013; 002:L1875-1913).
//! - `omaha` (4 hole), `omaha5` and `courchevel` (5 hole): exactly two hole
//!   cards and exactly three board cards (000:L1857-1891; 001:L114, L183;
//!   002:L1915-1943). `omaha_hilo`, `omaha5_hilo`: the same for both halves
//!   (000:L2446-2449 "as in the normal version"; 002:L418-420).
//! - `stud`, `stud_hilo`, `razz`: best five of the player's seven cards
//!   (000:L2276-2278, 000:L2423-2527). When the deck runs short, one or two
//!   community cards replace the last cards (000:L2318-2339; 002:L1963), so
//!   the board may hold 0-2 cards and each hand `7 - board` cards.
//! - `soko`: the player's five cards with the Sökö ranking (000:L2040-2079).
//! - `five_card_draw`: the five cards held after the draw (002:L1975-1985).
//! - `double_flop`: two boards; on each, hold'em formation (000:L2017-2034).
//! - `sviten`: five own cards; one half to the best hand of the five own cards,
//!   the other to the best exactly-2-own + 3-board hand (000:L1924-1928).
//! - `three_card`: three cards, three-card ranking (002:L502-519, L2663-2687).
//!
//! Decisions (the digests leave these open):
//! - `best_hand` accepts a partial board (3 or 4 cards: flop or turn) for the
//!   board games; `showdown` requires the full five-card board(s), as a
//!   showdown only happens after the last betting round (000:L182-184).
//! - `best_hand("double_flop", ...)` takes one board and evaluates the hand on
//!   it; `showdown` takes the pair of boards.
//! - `best_hand("sviten", hole, "")` is the own-five-card hand; with a board
//!   it is the exactly-2 + 3 hand.
//! - `razz`: the hand's value is its low (only the low decides); its category
//!   is the low's pair structure (`high_card` for five unpaired cards).

use crate::cards::{rank, Card, CardSet};
use crate::error::{EvalError, Result};
use crate::rank::low::{low8_of_key, low_category, low_rank, razz_of_key};
use crate::rank::soko::soko_value;
use crate::rank::three::three_card_value;
use crate::rank::{category_of, evaluate_unchecked, Category, CARD_KEYS, FLUSH_CHECK, INITIAL_KEY};

/// Every supported variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Holdem,
    Pineapple,
    CrazyPineapple,
    HelsinkiHoldem,
    Omaha,
    Omaha5,
    Courchevel,
    OmahaHilo,
    Omaha5Hilo,
    Stud,
    StudHilo,
    Razz,
    Soko,
    FiveCardDraw,
    DoubleFlop,
    Sviten,
    ThreeCard,
}

/// All variants with their ids, in documentation order.
pub const VARIANTS: [(&str, Variant); 17] = [
    ("holdem", Variant::Holdem),
    ("pineapple", Variant::Pineapple),
    ("crazy_pineapple", Variant::CrazyPineapple),
    ("helsinki_holdem", Variant::HelsinkiHoldem),
    ("omaha", Variant::Omaha),
    ("omaha5", Variant::Omaha5),
    ("courchevel", Variant::Courchevel),
    ("omaha_hilo", Variant::OmahaHilo),
    ("omaha5_hilo", Variant::Omaha5Hilo),
    ("stud", Variant::Stud),
    ("stud_hilo", Variant::StudHilo),
    ("razz", Variant::Razz),
    ("soko", Variant::Soko),
    ("five_card_draw", Variant::FiveCardDraw),
    ("double_flop", Variant::DoubleFlop),
    ("sviten", Variant::Sviten),
    ("three_card", Variant::ThreeCard),
];

/// How the five cards of a hand are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formation {
    /// Best five of all the player's cards plus the board.
    AnyFive,
    /// Exactly two hole cards and exactly three board cards.
    TwoPlusThree,
    /// The five own cards, Sökö ranking.
    Soko,
    /// Three own cards, three-card ranking.
    Three,
}

/// What a pot is split between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The best high hand takes the pot.
    High,
    /// Half to the best high, half to the best eight-or-better low.
    HiLo,
    /// The best ace-to-five low takes the pot (Razz).
    Low,
    /// Half to the best hand on each of two boards (Double Flop).
    TwoBoards,
    /// Half to the best own five cards, half to the best 2 + 3 hand (Sviten).
    Sviten,
}

/// Odd-chip rule family (000:L1644-1672).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OddChip {
    /// Clockwise from the first seat left of the button.
    Button,
    /// Highest card (high) or lowest card (low), Bridge Rank Order.
    Stud,
}

impl Variant {
    /// Parses a variant id.
    pub fn parse(id: &str) -> Result<Variant> {
        VARIANTS
            .iter()
            .find(|(name, _)| *name == id)
            .map(|&(_, v)| v)
            .ok_or_else(|| EvalError::UnknownVariant(id.to_string()))
    }

    /// The variant's id.
    pub fn id(self) -> &'static str {
        VARIANTS.iter().find(|(_, v)| *v == self).map(|(n, _)| *n).unwrap()
    }

    /// Cards each player holds at showdown (stud: with no community card).
    pub fn hole_cards(self) -> usize {
        use Variant::*;
        match self {
            Holdem | Pineapple | CrazyPineapple | HelsinkiHoldem | DoubleFlop => 2,
            Omaha | OmahaHilo => 4,
            Omaha5 | Omaha5Hilo | Courchevel | Sviten | Soko | FiveCardDraw => 5,
            Stud | StudHilo | Razz => 7,
            ThreeCard => 3,
        }
    }

    /// True for the stud games, whose board is only the shortage fallback.
    pub fn is_stud(self) -> bool {
        matches!(self, Variant::Stud | Variant::StudHilo | Variant::Razz)
    }

    /// True for games with community boards (hold'em and Omaha families, Sviten).
    pub fn has_board(self) -> bool {
        !self.is_stud() && !matches!(self, Variant::Soko | Variant::FiveCardDraw | Variant::ThreeCard)
    }

    /// Hand formation for the main (high) hand.
    pub fn formation(self) -> Formation {
        use Variant::*;
        match self {
            Omaha | Omaha5 | Courchevel | OmahaHilo | Omaha5Hilo => Formation::TwoPlusThree,
            Soko => Formation::Soko,
            ThreeCard => Formation::Three,
            _ => Formation::AnyFive,
        }
    }

    /// What the pot is split between.
    pub fn split(self) -> Split {
        use Variant::*;
        match self {
            OmahaHilo | Omaha5Hilo | StudHilo => Split::HiLo,
            Razz => Split::Low,
            DoubleFlop => Split::TwoBoards,
            Sviten => Split::Sviten,
            _ => Split::High,
        }
    }

    /// Odd-chip rule. Decision: Sökö is five-card stud (000:L2040-2067; part
    /// 1 groups it with Seven Card Stud at 000:L692-693), so it follows the
    /// stud rule over its five cards; five-card draw and three-card games have
    /// a button and no upcards, so they follow the button rule.
    pub fn odd_chip(self) -> OddChip {
        use Variant::*;
        match self {
            Stud | StudHilo | Razz | Soko => OddChip::Stud,
            _ => OddChip::Button,
        }
    }
}

/// A player's best hand in one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hand {
    /// Higher is better; comparable within one variant.
    pub value: u32,
    /// Category of the hand (for Razz, the low's pair structure).
    pub category: Category,
    /// The five (three in `three_card`) cards used, strongest group first.
    pub cards: Vec<Card>,
    /// Ace-to-five low value (higher is better), None without a (qualifying) low.
    pub low: Option<u32>,
    /// The cards of the low, highest first, None without a low.
    pub low_cards: Option<Vec<Card>>,
}

/// Checks card counts for `best_hand` and returns the cards of the hand's
/// pool: (hole, board).
fn check_best_hand_counts(v: Variant, hole: &[Card], board: &[Card]) -> Result<()> {
    let id = v.id();
    if v.is_stud() {
        if board.len() > 2 {
            return Err(EvalError::WrongCardCount(format!("{id}: at most 2 community cards, got {}", board.len())));
        }
        if hole.len() + board.len() != 7 {
            return Err(EvalError::WrongCardCount(format!(
                "{id}: a hand holds {} cards with {} community card(s), got {}",
                7 - board.len(),
                board.len(),
                hole.len()
            )));
        }
        return Ok(());
    }
    if hole.len() != v.hole_cards() {
        return Err(EvalError::WrongCardCount(format!("{id}: expected {} hole cards, got {}", v.hole_cards(), hole.len())));
    }
    if !v.has_board() {
        if !board.is_empty() {
            return Err(EvalError::WrongCardCount(format!("{id}: no board, got {} board cards", board.len())));
        }
    } else if v == Variant::Sviten && board.is_empty() {
        // Own-five-card hand.
    } else if !(3..=5).contains(&board.len()) {
        return Err(EvalError::WrongCardCount(format!("{id}: a board holds 3 to 5 cards, got {}", board.len())));
    }
    Ok(())
}

/// Every legal five-card combination for a formation.
fn combinations(formation: Formation, hole: &[Card], board: &[Card]) -> Vec<[Card; 5]> {
    let mut out = Vec::new();
    match formation {
        Formation::TwoPlusThree => {
            for i in 0..hole.len() {
                for j in i + 1..hole.len() {
                    for a in 0..board.len() {
                        for b in a + 1..board.len() {
                            for c in b + 1..board.len() {
                                out.push([hole[i], hole[j], board[a], board[b], board[c]]);
                            }
                        }
                    }
                }
            }
        }
        _ => {
            let all: Vec<Card> = hole.iter().chain(board).copied().collect();
            let n = all.len();
            for mask in 0u32..(1 << n) {
                if mask.count_ones() == 5 {
                    let mut f = [0u8; 5];
                    let mut k = 0;
                    for (i, &c) in all.iter().enumerate() {
                        if mask >> i & 1 == 1 {
                            f[k] = c;
                            k += 1;
                        }
                    }
                    out.push(f);
                }
            }
        }
    }
    out
}

/// Orders a high hand's cards for display: biggest rank group first, then
/// higher ranks; a five-high straight (wheel) shows its ace last.
fn order_high(cards: &mut [Card], category: Category) {
    let mut counts = [0u8; 13];
    for &c in cards.iter() {
        counts[rank(c) as usize] += 1;
    }
    cards.sort_by(|&a, &b| {
        (counts[rank(b) as usize], rank(b), std::cmp::Reverse(b & 3)).cmp(&(
            counts[rank(a) as usize],
            rank(a),
            std::cmp::Reverse(a & 3),
        ))
    });
    let wheel = matches!(category, Category::Straight | Category::StraightFlush)
        && cards.len() == 5
        && rank(cards[0]) == 12
        && rank(cards[1]) == 3;
    if wheel {
        cards.rotate_left(1);
    }
}

/// Orders a low hand's cards: pair groups first, then highest ace-low rank first.
fn order_low(cards: &mut [Card]) {
    let mut counts = [0u8; 13];
    for &c in cards.iter() {
        counts[rank(c) as usize] += 1;
    }
    cards.sort_by(|&a, &b| {
        (counts[rank(b) as usize], low_rank(b), std::cmp::Reverse(b & 3)).cmp(&(
            counts[rank(a) as usize],
            low_rank(a),
            std::cmp::Reverse(a & 3),
        ))
    });
}

fn rank_key5(f: &[Card; 5]) -> u32 {
    f.iter().map(|&c| CARD_KEYS[c as usize] as u32).sum()
}

/// The best hand of a player in a variant (see the module docs for the board
/// rules). Cards must be valid codes; duplicates are rejected here.
pub fn best_hand(v: Variant, hole: &[Card], board: &[Card]) -> Result<Hand> {
    check_best_hand_counts(v, hole, board)?;
    let mut set = CardSet::default();
    set.insert_all(hole)?;
    set.insert_all(board)?;

    if v.formation() == Formation::Three {
        let c = [hole[0], hole[1], hole[2]];
        let (value, category) = three_card_value(&c);
        let mut cards = c.to_vec();
        order_high(&mut cards, category);
        return Ok(Hand { value, category, cards, low: None, low_cards: None });
    }
    if v == Variant::Soko {
        let c = [hole[0], hole[1], hole[2], hole[3], hole[4]];
        let (value, category) = soko_value(&c);
        let mut cards = c.to_vec();
        order_high(&mut cards, category);
        return Ok(Hand { value, category, cards, low: None, low_cards: None });
    }
    let formation = if v == Variant::Sviten && !board.is_empty() {
        Formation::TwoPlusThree
    } else {
        v.formation()
    };
    let combos = combinations(formation, hole, board);

    if v.split() == Split::Low {
        // Razz: only the low counts; `value` is the low.
        let (z, f) = combos.iter().map(|f| (razz_of_key(rank_key5(f)), f)).max_by_key(|x| x.0).unwrap();
        let mut cards = f.to_vec();
        order_low(&mut cards);
        let category = low_category(&cards);
        return Ok(Hand {
            value: z as u32,
            category,
            cards: cards.clone(),
            low: Some(z as u32),
            low_cards: Some(cards),
        });
    }

    let (value, f) = combos.iter().map(|f| (evaluate_unchecked(f), f)).max_by_key(|x| x.0).unwrap();
    let category = category_of(value);
    let mut cards = f.to_vec();
    order_high(&mut cards, category);
    let (mut low, mut low_cards) = (None, None);
    if v.split() == Split::HiLo {
        if let Some((l, f)) = combos.iter().map(|f| (low8_of_key(rank_key5(f)), f)).filter(|x| x.0 > 0).max_by_key(|x| x.0) {
            let mut lc = f.to_vec();
            order_low(&mut lc);
            low = Some(l as u32);
            low_cards = Some(lc);
        }
    }
    Ok(Hand { value: value as u32, category, cards, low, low_cards })
}

/// Fast value of the best exactly-2-hole + 3-board high hand (no card list).
/// Sums the pair and triple keys once, then tries every combination.
pub fn two_plus_three_high(hole: &[Card], board: &[Card]) -> u16 {
    let mut pairs = [(0u64, 0u8, 0u8); 10];
    let mut np = 0;
    for i in 0..hole.len() {
        for j in i + 1..hole.len() {
            pairs[np] = (CARD_KEYS[hole[i] as usize] + CARD_KEYS[hole[j] as usize], hole[i], hole[j]);
            np += 1;
        }
    }
    let mut best = 0u16;
    for a in 0..board.len() {
        for b in a + 1..board.len() {
            for c in b + 1..board.len() {
                let tk = INITIAL_KEY
                    + CARD_KEYS[board[a] as usize]
                    + CARD_KEYS[board[b] as usize]
                    + CARD_KEYS[board[c] as usize];
                for &(pk, h1, h2) in &pairs[..np] {
                    let key = tk + pk;
                    let v = if key & FLUSH_CHECK != 0 {
                        evaluate_unchecked(&[h1, h2, board[a], board[b], board[c]])
                    } else {
                        crate::rank::rank_value(key as u32)
                    };
                    best = best.max(v);
                }
            }
        }
    }
    best
}

/// Fast eight-or-better low of exactly 2 hole + 3 board cards, 0 if none.
pub fn two_plus_three_low8(hole: &[Card], board: &[Card]) -> u16 {
    let rk = |c: Card| CARD_KEYS[c as usize] as u32;
    let mut best = 0u16;
    for i in 0..hole.len() {
        for j in i + 1..hole.len() {
            let pk = rk(hole[i]) + rk(hole[j]);
            for a in 0..board.len() {
                for b in a + 1..board.len() {
                    for c in b + 1..board.len() {
                        best = best.max(low8_of_key(pk + rk(board[a]) + rk(board[b]) + rk(board[c])));
                    }
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{card_str, parse_cards};

    fn bh(v: &str, hole: &str, board: &str) -> Hand {
        best_hand(Variant::parse(v).unwrap(), &parse_cards(hole).unwrap(), &parse_cards(board).unwrap()).unwrap()
    }

    fn names(c: &[Card]) -> String {
        c.iter().map(|&c| card_str(c)).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn omaha_uses_exactly_two_hole_cards() {
        // 001:L191-194: one club in hand is no flush; kings and sixes, ace kicker.
        let h = bh("omaha", "Ac Kd Td 8h", "Kc 9c 6c 6h Qc");
        assert_eq!(h.category, Category::TwoPair);
        assert_eq!(names(&h.cards), "Kd Kc 6h 6c Ac");
        // 001:L196-199 with the duplicated king of clubs replaced by the spade.
        let h = bh("omaha", "Th 9h 7c 6c", "Ks Kc Tc Td 5d");
        assert_eq!(h.category, Category::ThreeOfAKind);
        assert_eq!(&names(&h.cards)[..8], "Th Td Tc");
        assert_eq!(rank(h.cards[3]), 11);
        assert_eq!(names(&h.cards[4..]), "9h");
    }

    #[test]
    fn fast_paths_agree_with_best_hand() {
        let hole = parse_cards("Ac 2d Td 3h 4s").unwrap();
        let board = parse_cards("Kc 7c 6c 5h Qc").unwrap();
        let h = best_hand(Variant::Omaha5Hilo, &hole, &board).unwrap();
        assert_eq!(two_plus_three_high(&hole, &board) as u32, h.value);
        assert_eq!(two_plus_three_low8(&hole, &board) as u32, h.low.unwrap());
        assert_eq!(names(h.low_cards.as_ref().unwrap()), "7c 6c 5h 2d Ac");
    }

    #[test]
    fn wheel_is_shown_five_high() {
        let h = bh("holdem", "As 2d", "3c 4h 5s Kd Qd");
        assert_eq!(names(&h.cards), "5s 4h 3c 2d As");
    }
}
