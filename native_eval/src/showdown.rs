//! Showdown resolution: who wins each pot and exactly how many chips each
//! winner receives, odd chips included.
//!
//! Design choice: every pot is resolved on its own, from the main pot to the
//! last side pot, never merged (000:L1666; 001:L92, L181), with integer
//! arithmetic only, so the awards always sum exactly to the pots' total. Each
//! player's hand is evaluated once into two numbers (`a`, `b`: high and low,
//! board 1 and board 2, own five and 2 + 3) and pots compare those.
//!
//! Rules applied (000 = poker room rules, 001 = online rules):
//! - Tied best hands split the pot equally (000:L1640-1642).
//! - Odd chips in button games go one each clockwise from the first player
//!   left of the button who shares the pot or the half being split
//!   (000:L1647-1649; online: leftover cents one at a time clockwise from the
//!   first player after the button, 001:L92, L181). Clockwise is increasing
//!   seat number, wrapping; the button seat itself comes last.
//! - Stud games: the odd chip goes to the highest card in high games, the
//!   lowest card in low games, over all of a player's cards, ties between
//!   equal ranks broken by Bridge Rank Order, spades > hearts > diamonds >
//!   clubs (000:L1650-1652, order at 000:L2053-2054; 000:L2399-2401).
//! - Hi/lo: the pot splits into a high half and a low half; an odd chip goes
//!   to the high half; with no qualifying low the high hand takes the whole
//!   pot; one player may win both halves (000:L1655-1659, 000:L2438-2452).
//! - Sviten: the odd chip goes to the better own-five-card hand, if those are
//!   equal to the first player after the button (000:L1669-1672, L1967-1969).
//!
//! Decisions where the rules are silent or ambiguous:
//! - Several odd chips (a remainder of more than one) are handed out one at a
//!   time in the same order as a single odd chip: clockwise from the button in
//!   button games (as 001:L92 does for cents), by descending highest card (or
//!   ascending lowest card) in stud games.
//! - Stud "lowest card": cards are totally ordered by rank and then by Bridge
//!   Rank Order, so among equal ranks the club is the lowest card (it is the
//!   lowest suit); in low halves the ace is the lowest rank (ace is always low
//!   in low games, 000:L2481-2482). Only the player's own cards count: Stud's
//!   shortage community cards (000:L2318-2339) are shared and cannot separate
//!   players.
//! - "Players with exactly the same high and low hands split the pot as evenly
//!   as possible" (000:L1662-1663): players who share both halves of a pot
//!   receive totals differing by at most one chip. The second half's odd chips
//!   that fall to such players go first to those who got no odd chip from the
//!   first half. The same applies to Double Flop (both boards) and Sviten
//!   (both halves).
//! - Double Flop (000:L2017-2034): each pot is split in half, one half per
//!   board, each half to that board's best hand. When the pot is odd, the odd
//!   chip goes to the first player clockwise from the button who takes part
//!   in the division, among all the pot's winners (000:L1647-1649): to the
//!   player, never to a half that is divided again; within each half, the
//!   button rule again. The result reports it in that player's share of a
//!   half they won, board 1 first.
//! - Sviten: the odd chip of an odd pot goes to the own-five-card half (its
//!   winner holds the better own five cards); inside the 2 + 3 half, tied
//!   players get odd chips in order of their own five cards, then clockwise
//!   from the button; inside the own-five half the tied hands are equal, so
//!   clockwise from the button (000:L1669-1672).
//! - Razz: the whole pot goes to the best low; it is reported as the low half.
//! - Result halves: `high` is the high half (hi/lo), the whole pot (high-only
//!   games), board 1 (Double Flop), the own-five half (Sviten); `low` is the
//!   low half (hi/lo, Razz), board 2 (Double Flop), the 2 + 3 half (Sviten).

use crate::cards::{rank, suit, Card, CardSet};
use crate::error::{EvalError, Result};
use crate::rank::low::{low8_of_key, low_rank, razz_of_key};
use crate::rank::soko::soko_value;
use crate::rank::three::three_card_value;
use crate::rank::{evaluate_unchecked, CARD_KEYS};
use crate::variant::{two_plus_three_high, two_plus_three_low8, OddChip, Split, Variant};

/// One pot to award: its amount in minor units and the seats eligible for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PotSpec {
    /// Chips (minor units) in the pot.
    pub amount: u64,
    /// Seats that may win it.
    pub eligible: Vec<i64>,
}

/// How one pot was awarded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PotAward {
    /// Chips in the pot.
    pub amount: u64,
    /// Seats that could win it, in the order given.
    pub eligible: Vec<i64>,
    /// Winners of the high half (see module docs for other variants), by seat.
    pub high_winners: Vec<i64>,
    /// Winners of the low half, by seat; empty when there is no low half.
    pub low_winners: Vec<i64>,
    /// What each high-half winner received from this pot, by seat.
    pub high_shares: Vec<(i64, u64)>,
    /// What each low-half winner received from this pot, by seat.
    pub low_shares: Vec<(i64, u64)>,
    /// What each winner received from this pot in total, by seat.
    pub awards: Vec<(i64, u64)>,
}

/// The result of a showdown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShowdownResult {
    /// Total chips won per seat (seats that won something), by seat; sums to
    /// the pots' total.
    pub awards: Vec<(i64, u64)>,
    /// Per pot, in the order given (main pot first).
    pub pots: Vec<PotAward>,
}

/// A player's evaluated hand.
#[derive(Clone, Copy, Debug)]
struct Seat {
    seat: i64,
    /// High value / Razz low / board 1 / own five (higher is better).
    a: u32,
    /// Low (0 = none) / board 2 / 2 + 3 hand.
    b: u32,
    /// Highest own card: rank * 4 + bridge suit strength (spades 3 .. clubs 0).
    high_card: u8,
    /// Lowest own card with the ace low: ace-low rank * 4 + bridge strength.
    low_card: u8,
}

fn bridge(c: Card) -> u8 {
    3 - suit(c)
}

/// Checks counts and duplicates; returns the flat card set for later use.
fn validate(v: Variant, boards: &[&[Card]], hands: &[(i64, &[Card])], pots: &[PotSpec]) -> Result<()> {
    let id = v.id();
    if hands.is_empty() {
        return Err(EvalError::Invalid("showdown needs at least one hand".into()));
    }
    if pots.is_empty() {
        return Err(EvalError::Invalid("showdown needs at least one pot".into()));
    }
    let mut set = CardSet::default();
    for &c in boards.iter().flat_map(|b| b.iter()).chain(hands.iter().flat_map(|h| h.1.iter())) {
        crate::cards::check_code(c)?;
        set.insert(c)?;
    }
    let board_len = match v {
        Variant::DoubleFlop => {
            if boards.len() != 2 || boards.iter().any(|b| b.len() != 5) {
                return Err(EvalError::WrongCardCount(format!(
                    "{id}: expected two boards of 5 cards, got {:?}",
                    boards.iter().map(|b| b.len()).collect::<Vec<_>>()
                )));
            }
            0
        }
        _ => {
            let total: usize = boards.iter().map(|b| b.len()).sum();
            if boards.len() > 1 {
                return Err(EvalError::WrongCardCount(format!("{id}: expected one board, got {}", boards.len())));
            }
            if v.has_board() && total != 5 {
                return Err(EvalError::WrongCardCount(format!("{id}: the board at showdown holds 5 cards, got {total}")));
            }
            if v.is_stud() && total > 2 {
                return Err(EvalError::WrongCardCount(format!("{id}: at most 2 community cards, got {total}")));
            }
            if !v.has_board() && !v.is_stud() && total != 0 {
                return Err(EvalError::WrongCardCount(format!("{id}: no board, got {total} board cards")));
            }
            total
        }
    };
    let expected = if v.is_stud() { 7 - board_len } else { v.hole_cards() };
    let mut seats = Vec::with_capacity(hands.len());
    for &(seat, cards) in hands {
        if cards.len() != expected {
            return Err(EvalError::WrongCardCount(format!(
                "{id}: seat {seat} holds {} cards, expected {expected}",
                cards.len()
            )));
        }
        seats.push(seat);
    }
    seats.sort_unstable();
    if let Some(w) = seats.windows(2).find(|w| w[0] == w[1]) {
        return Err(EvalError::Invalid(format!("seat {} has two hands", w[0])));
    }
    let mut total = 0u64;
    for (i, pot) in pots.iter().enumerate() {
        if pot.eligible.is_empty() {
            return Err(EvalError::Invalid(format!("pot {i} has no eligible seat")));
        }
        for (j, s) in pot.eligible.iter().enumerate() {
            if seats.binary_search(s).is_err() {
                return Err(EvalError::Invalid(format!("pot {i}: eligible seat {s} has no hand")));
            }
            if pot.eligible[..j].contains(s) {
                return Err(EvalError::Invalid(format!("pot {i}: seat {s} is listed twice")));
            }
        }
        total = total
            .checked_add(pot.amount)
            .ok_or_else(|| EvalError::Invalid("the pots' total overflows 64 bits".into()))?;
    }
    Ok(())
}

fn evaluate_seat(v: Variant, boards: &[&[Card]], seat: i64, own: &[Card]) -> Seat {
    let board: &[Card] = boards.first().copied().unwrap_or(&[]);
    let high_card = own.iter().map(|&c| rank(c) * 4 + bridge(c)).max().unwrap_or(0);
    let low_card = own.iter().map(|&c| low_rank(c) * 4 + bridge(c)).min().unwrap_or(0);
    let mut all = [0u8; 7];
    let any_five = |cards: &[Card], board: &[Card], buf: &mut [u8; 7]| -> u32 {
        let n = cards.len() + board.len();
        buf[..cards.len()].copy_from_slice(cards);
        buf[cards.len()..n].copy_from_slice(board);
        evaluate_unchecked(&buf[..n]) as u32
    };
    let rank_key = |cards: &[Card]| -> u32 { cards.iter().map(|&c| CARD_KEYS[c as usize] as u32).sum() };
    let (a, b) = match v {
        Variant::Omaha | Variant::Omaha5 | Variant::Courchevel => (two_plus_three_high(own, board) as u32, 0),
        Variant::OmahaHilo | Variant::Omaha5Hilo => {
            (two_plus_three_high(own, board) as u32, two_plus_three_low8(own, board) as u32)
        }
        Variant::StudHilo => (any_five(own, board, &mut all), low8_of_key(rank_key(own) + rank_key(board)) as u32),
        Variant::Razz => (razz_of_key(rank_key(own) + rank_key(board)) as u32, 0),
        Variant::Soko => (soko_value(&[own[0], own[1], own[2], own[3], own[4]]).0, 0),
        Variant::ThreeCard => (three_card_value(&[own[0], own[1], own[2]]).0, 0),
        Variant::DoubleFlop => (any_five(own, boards[0], &mut all), any_five(own, boards[1], &mut all)),
        Variant::Sviten => (evaluate_unchecked(own) as u32, two_plus_three_high(own, board) as u32),
        _ => (any_five(own, board, &mut all), 0),
    };
    Seat { seat, a, b, high_card, low_card }
}

/// Adds `amount` to `seat`'s entry of a small association list.
fn add_to(list: &mut Vec<(i64, u64)>, seat: i64, amount: u64) {
    match list.iter_mut().find(|e| e.0 == seat) {
        Some(e) => e.1 += amount,
        None => list.push((seat, amount)),
    }
}

/// Clockwise order key from the button: seats after the button first.
#[inline]
fn clockwise(seat: i64, button: i64) -> (bool, i64) {
    (seat <= button, seat)
}

/// Splits `amount` equally over `order` (already in odd-chip priority);
/// returns the shares aligned with `order`.
fn split(amount: u64, n: usize) -> (u64, usize) {
    let n64 = n as u64;
    (amount / n64, (amount % n64) as usize)
}

/// Indices (into `seats`) of the best `key` among `eligible`, skipping zeros
/// when `need_positive` (no qualifying low).
fn best_of(seats: &[Seat], eligible: &[usize], key: impl Fn(&Seat) -> u32, need_positive: bool) -> Vec<usize> {
    let best = eligible.iter().map(|&i| key(&seats[i])).max().unwrap_or(0);
    if need_positive && best == 0 {
        return Vec::new();
    }
    eligible.iter().copied().filter(|&i| key(&seats[i]) == best).collect()
}

/// Resolves a showdown. `boards` holds the community cards (one board, two
/// for Double Flop, none or the shortage cards for stud); `hands` maps seats
/// to their cards; `pots` lists the main pot first.
pub fn showdown(
    v: Variant,
    boards: &[&[Card]],
    hands: &[(i64, &[Card])],
    pots: &[PotSpec],
    button: i64,
) -> Result<ShowdownResult> {
    validate(v, boards, hands, pots)?;
    let seats: Vec<Seat> = hands.iter().map(|&(s, c)| evaluate_seat(v, boards, s, c)).collect();
    let index_of = |s: i64| seats.iter().position(|x| x.seat == s).unwrap();
    let stud = v.odd_chip() == OddChip::Stud;

    // Odd-chip priority orders (indices into `seats`).
    let order_high = |w: &mut Vec<usize>| {
        if stud {
            w.sort_by_key(|&i| std::cmp::Reverse(seats[i].high_card));
        } else {
            w.sort_by_key(|&i| clockwise(seats[i].seat, button));
        }
    };
    let order_low = |w: &mut Vec<usize>| {
        if stud {
            w.sort_by_key(|&i| seats[i].low_card);
        } else {
            w.sort_by_key(|&i| clockwise(seats[i].seat, button));
        }
    };
    let order_sviten_second = |w: &mut Vec<usize>| {
        w.sort_by_key(|&i| (std::cmp::Reverse(seats[i].a), clockwise(seats[i].seat, button)));
    };

    let mut totals: Vec<(i64, u64)> = Vec::with_capacity(seats.len());
    let mut results = Vec::with_capacity(pots.len());
    for pot in pots {
        let eligible: Vec<usize> = pot.eligible.iter().map(|&s| index_of(s)).collect();
        let mut first: Vec<usize>;
        let mut second: Vec<usize> = Vec::new();
        // Double Flop: the pot's own odd chip and who takes it, outside both halves.
        let mut pot_odd: Option<(usize, u64)> = None;
        let (first_amount, second_amount);
        match v.split() {
            Split::High => {
                first = best_of(&seats, &eligible, |s| s.a, false);
                order_high(&mut first);
                (first_amount, second_amount) = (pot.amount, 0);
            }
            Split::Low => {
                // Razz: the pot is the low half.
                second = best_of(&seats, &eligible, |s| s.a, false);
                order_low(&mut second);
                first = Vec::new();
                (first_amount, second_amount) = (0, pot.amount);
            }
            Split::HiLo => {
                first = best_of(&seats, &eligible, |s| s.a, false);
                order_high(&mut first);
                second = best_of(&seats, &eligible, |s| s.b, true);
                order_low(&mut second);
                if second.is_empty() {
                    (first_amount, second_amount) = (pot.amount, 0);
                } else {
                    // The odd chip between the halves goes to high.
                    (first_amount, second_amount) = (pot.amount - pot.amount / 2, pot.amount / 2);
                }
            }
            Split::TwoBoards => {
                first = best_of(&seats, &eligible, |s| s.a, false);
                order_high(&mut first);
                second = best_of(&seats, &eligible, |s| s.b, false);
                order_high(&mut second);
                let lead = first
                    .iter()
                    .chain(second.iter())
                    .copied()
                    .min_by_key(|&i| clockwise(seats[i].seat, button))
                    .unwrap();
                // The odd chip of an odd pot goes to the player, not to a
                // half that would be divided again (000:L1647-1649).
                pot_odd = Some((lead, pot.amount % 2));
                (first_amount, second_amount) = (pot.amount / 2, pot.amount / 2);
            }
            Split::Sviten => {
                first = best_of(&seats, &eligible, |s| s.a, false);
                order_high(&mut first);
                second = best_of(&seats, &eligible, |s| s.b, false);
                order_sviten_second(&mut second);
                (first_amount, second_amount) = (pot.amount - pot.amount / 2, pot.amount / 2);
            }
        }

        // First half: equal shares, odd chips in priority order.
        let mut high_shares: Vec<(i64, u64)> = Vec::with_capacity(first.len());
        let mut got_odd_first: Vec<usize> = Vec::new();
        if !first.is_empty() && first_amount > 0 {
            let (base, rem) = split(first_amount, first.len());
            for (k, &i) in first.iter().enumerate() {
                let extra = (k < rem) as u64;
                if extra == 1 {
                    got_odd_first.push(i);
                }
                high_shares.push((seats[i].seat, base + extra));
            }
        } else {
            high_shares.extend(first.iter().map(|&i| (seats[i].seat, 0)));
        }

        // Second half: players who also won the first half ("twins") take
        // their odd chips in an order that favours those without one yet.
        let mut low_shares: Vec<(i64, u64)> = Vec::with_capacity(second.len());
        if !second.is_empty() && second_amount > 0 {
            let (base, rem) = split(second_amount, second.len());
            let mut receives: Vec<bool> = (0..second.len()).map(|k| k < rem).collect();
            let twin_pos: Vec<usize> = (0..second.len()).filter(|&k| first.contains(&second[k])).collect();
            if twin_pos.len() > 1 {
                let k_twin = twin_pos.iter().filter(|&&k| receives[k]).count();
                let mut prio = twin_pos.clone();
                prio.sort_by_key(|&k| (got_odd_first.contains(&second[k]), k));
                for &k in &twin_pos {
                    receives[k] = false;
                }
                for &k in prio.iter().take(k_twin) {
                    receives[k] = true;
                }
            }
            for (k, &i) in second.iter().enumerate() {
                low_shares.push((seats[i].seat, base + receives[k] as u64));
            }
        } else {
            low_shares.extend(second.iter().map(|&i| (seats[i].seat, 0)));
        }

        if let Some((lead, odd)) = pot_odd.filter(|&(_, odd)| odd > 0) {
            // Reported in the share of a half the player won (board 1 first).
            let seat = seats[lead].seat;
            let shares = if first.contains(&lead) { &mut high_shares } else { &mut low_shares };
            shares.iter_mut().find(|(s, _)| *s == seat).unwrap().1 += odd;
        }

        let mut pot_awards: Vec<(i64, u64)> = Vec::with_capacity(high_shares.len() + low_shares.len());
        for &(s, amt) in high_shares.iter().chain(low_shares.iter()) {
            add_to(&mut pot_awards, s, amt);
        }
        pot_awards.retain(|&(_, amt)| amt > 0);
        pot_awards.sort_unstable();
        for &(s, amt) in &pot_awards {
            add_to(&mut totals, s, amt);
        }
        let mut high_winners: Vec<i64> = first.iter().map(|&i| seats[i].seat).collect();
        let mut low_winners: Vec<i64> = second.iter().map(|&i| seats[i].seat).collect();
        high_winners.sort_unstable();
        low_winners.sort_unstable();
        high_shares.sort_unstable();
        low_shares.sort_unstable();
        results.push(PotAward {
            amount: pot.amount,
            eligible: pot.eligible.clone(),
            high_winners,
            low_winners,
            high_shares,
            low_shares,
            awards: pot_awards,
        });
    }
    totals.sort_unstable();
    Ok(ShowdownResult { awards: totals, pots: results })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn run(v: &str, boards: &[&str], hands: &[(i64, &str)], pots: &[(u64, &[i64])], button: i64) -> ShowdownResult {
        let b: Vec<Vec<Card>> = boards.iter().map(|s| parse_cards(s).unwrap()).collect();
        let br: Vec<&[Card]> = b.iter().map(|x| x.as_slice()).collect();
        let h: Vec<(i64, Vec<Card>)> = hands.iter().map(|(s, c)| (*s, parse_cards(c).unwrap())).collect();
        let hr: Vec<(i64, &[Card])> = h.iter().map(|(s, c)| (*s, c.as_slice())).collect();
        let p: Vec<PotSpec> = pots.iter().map(|(a, e)| PotSpec { amount: *a, eligible: e.to_vec() }).collect();
        showdown(Variant::parse(v).unwrap(), &br, &hr, &p, button).unwrap()
    }

    #[test]
    fn side_pot_example_from_the_online_rules() {
        // 001:L80: A bets 1,000, B calls, C all-in for 100: main 300, side 1,800.
        let r = run(
            "holdem",
            &["2c 7d 9h Js Kd"],
            &[(1, "As Ad"), (2, "Ks Kh"), (3, "Qs Qh")],
            &[(300, &[1, 2, 3]), (1800, &[1, 2])],
            3,
        );
        assert_eq!(r.awards, vec![(2, 2100)]);
    }

    #[test]
    fn double_flop_odd_chip_goes_to_the_player_not_to_a_half() {
        // 000:L1647-1649: pot 7, board 1 tied by seats 1 and 2, board 2 to
        // seat 3, button 3. Each half is 3; board 1's 3 splits 2/1 (seat 1
        // first after the button), and the pot's odd chip goes to seat 1, the
        // first winner after the button: 3, 1, 3. Re-splitting a half of 4
        // would give 2, 2, 3.
        let r = run(
            "double_flop",
            &["Ah Kd 7c 2s 3h", "Qs Jd 9c 5h 4d"],
            &[(1, "As 8h"), (2, "Ac 8d"), (3, "Qh Qd")],
            &[(7, &[1, 2, 3])],
            3,
        );
        assert_eq!(r.awards, vec![(1, 3), (2, 1), (3, 3)]);
        assert_eq!(r.pots[0].high_shares, vec![(1, 3), (2, 1)]);
        assert_eq!(r.pots[0].low_shares, vec![(3, 3)]);
    }

    #[test]
    fn twins_split_as_evenly_as_possible() {
        // Same high and same low for seats 1 and 2: 10 chips -> 5 and 5.
        let r = run(
            "omaha_hilo",
            &["2c 3d 4h Ks Qd"],
            &[(1, "As 5d Kc 9h"), (2, "Ah 5c Kh 9s"), (3, "Tc Td Jh Jd")],
            &[(10, &[1, 2, 3])],
            3,
        );
        assert_eq!(r.awards, vec![(1, 5), (2, 5)]);
    }
}
