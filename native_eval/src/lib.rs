//! native_eval: poker hand evaluation for casino-ledger.
//!
//! The engine modules are plain Rust; `python` holds the PyO3 bindings and is
//! compiled only with the `python` feature, so `cargo test` runs without Python.

#[cfg(feature = "python")]
mod python;

/// Card rank characters, lowest first.
pub const RANKS: &str = "23456789TJQKA";
