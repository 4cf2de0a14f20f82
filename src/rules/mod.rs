//! The game itself (docs/RULES.md): boards, positions and their text, moves and their
//! notation, the no-capture limit, vela, game values, perft, and the [`Rules`] a
//! question is asked under.

pub(crate) mod board;
pub(crate) mod limit;
pub(crate) mod movegen;
pub(crate) mod perft;
pub(crate) mod position;
mod ruleset;
pub(crate) mod value;
pub(crate) mod vela;

pub use ruleset::{Rules, RulesError};
