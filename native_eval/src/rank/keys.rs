// Shared by build.rs (through `include!`) and the crate (`rank::keys`): the
// constants both sides must agree on, and nothing else, so this file must stay
// free of `use` items and crate paths.

/// Additive key of each rank (index 0 = deuce .. 12 = ace).
///
/// Design choice: every multiset of at most seven ranks, each rank at most four
/// times, has a distinct key sum, so a hand's non-flush strength depends on the
/// sum alone and a hand is evaluated by adding one key per card. The values are
/// the greedy minimum (each key is the smallest integer keeping all sums
/// distinct, starting from 1); `tests/exhaustive.rs` checks the property. The
/// largest sum (four aces and three kings) is 18,393,157, below 2^25, so the sum
/// never reaches the suit counters packed above bit 32 of a hand key.
pub const RANK_KEYS: [u32; 13] = [
    1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 3453520,
];

/// The rank-key sum is split into a row (`sum >> HASH_SHIFT`) and a column; a
/// per-row offset then places every row's occupied columns into one compact
/// table without collisions (row displacement, first fit, densest rows first).
/// A shift of 12 keeps the row-offset array at 18 KB, so it stays in L1 cache
/// next to the card keys, while the value table (about 0.5 MB) fits in L2.
pub const HASH_SHIFT: u32 = 12;
