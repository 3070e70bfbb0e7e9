//! The lookup tables computed by `build.rs`, embedded as statics.
//!
//! Design choice: raw arrays in the target's byte order are included with
//! `include_bytes!` and reinterpreted with a compile-time `transmute`, so the
//! tables are ordinary statics: no start-up work, no lazy-initialisation check
//! in the evaluator's inner loop, and a size mismatch is a compile error.

include!(concat!(env!("OUT_DIR"), "/table_sizes.rs"));

/// Perfect-hash row offsets: `index = (key & column_mask) + offset[key >> shift]`.
pub static HASH_OFFSETS: [u32; HASH_ROWS] =
    unsafe { core::mem::transmute(*include_bytes!(concat!(env!("OUT_DIR"), "/offsets.bin"))) };

/// Best non-flush five-card high value (1..=7462) of a five- to seven-card rank multiset.
pub static HIGH: [u16; HASH_LEN] =
    unsafe { core::mem::transmute(*include_bytes!(concat!(env!("OUT_DIR"), "/high.bin"))) };

/// Best ace-to-five low (pairs count against it, no qualifier), higher is better.
pub static RAZZ: [u16; HASH_LEN] =
    unsafe { core::mem::transmute(*include_bytes!(concat!(env!("OUT_DIR"), "/razz.bin"))) };

/// Best eight-or-better low on the same scale as `RAZZ`, 0 when none qualifies.
pub static LOW8: [u16; HASH_LEN] =
    unsafe { core::mem::transmute(*include_bytes!(concat!(env!("OUT_DIR"), "/low8.bin"))) };

/// Best flush or straight flush among the ranks set in a 13-bit mask, 0 below
/// five cards; two spare zero entries let vector kernels read 4 bytes per entry.
pub static FLUSH: [u16; 8194] =
    unsafe { core::mem::transmute(*include_bytes!(concat!(env!("OUT_DIR"), "/flush.bin"))) };
