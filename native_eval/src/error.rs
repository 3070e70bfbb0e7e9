//! The one error type of the engine.
//!
//! Design choice: every invalid input (unknown card, duplicate card, wrong card
//! count, unknown variant, malformed pot) is reported as a value with a
//! human-readable message naming the problem; the Python layer turns it into
//! `ValueError`. The engine never panics on input.

use std::fmt;

/// Why an input was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// A token that is not a card (`"Xx"`, `"A"`, `"10h"`).
    UnknownCard(String),
    /// The same card appears twice in one call.
    DuplicateCard(String),
    /// A hand, board or batch has the wrong number of cards.
    WrongCardCount(String),
    /// A variant id that is not supported.
    UnknownVariant(String),
    /// Anything else malformed (pots, seats, values).
    Invalid(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::UnknownCard(t) => write!(f, "unknown card {t:?}: expected a rank from 23456789TJQKA followed by a suit from shdc"),
            EvalError::DuplicateCard(c) => write!(f, "duplicate card {c}"),
            EvalError::WrongCardCount(m) => write!(f, "wrong number of cards: {m}"),
            EvalError::UnknownVariant(v) => write!(f, "unknown variant {v:?}"),
            EvalError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EvalError {}

/// Result alias used across the engine.
pub type Result<T> = std::result::Result<T, EvalError>;
