//! native_eval: poker hand evaluation and showdown resolution for casino-ledger.
//!
//! The poker app never decides a winner by itself: it asks this crate and
//! settles only what it verifies.
//!
//! Design choice: the engine modules are plain Rust with no PyO3 and no
//! run-time initialisation; `python` holds the bindings and is compiled only
//! with the `python` feature (maturin turns it on), so `cargo test` runs
//! without Python.
//! - `cards`: card strings and codes (`4 * rank + suit`).
//! - `rank`: the high evaluator (additive keys, perfect hash, tables built by
//!   `build.rs`), ace-to-five lows, Sökö and three-card rankings, and the
//!   AVX-512 batch and enumeration kernels (`rank::simd`, chosen at run time).
//! - `variant`: hand formation per game (hold'em, Omaha 2 + 3, stud, ...).
//! - `showdown`: splitting pots, side pots, hi/lo halves, two boards, odd
//!   chips.
//!
//! Rule decisions taken where the digests are silent or ambiguous are written
//! as "Decisions" in the docs of `rank::soko`, `rank::three`, `variant` and
//! `showdown`, each with its citation, and each is tested
//! (`tests/native_eval/` in the project).

pub mod cards;
pub mod error;
pub mod rank;
pub mod showdown;
pub mod variant;

#[cfg(feature = "python")]
mod python;

pub use cards::{Card, RANK_CHARS, SUIT_CHARS};
pub use error::{EvalError, Result};
pub use rank::{category, evaluate, evaluate_batch, Category};
pub use showdown::{showdown, PotAward, PotSpec, ShowdownResult};
pub use variant::{best_hand, Hand, Variant};

/// Card rank characters, lowest first.
pub const RANKS: &str = "23456789TJQKA";
