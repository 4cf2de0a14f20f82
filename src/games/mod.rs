//! Whole games: a game played under the rules with its end, game records in their
//! text format, the analysis of a game against the tables, and the small boards
//! solved from the start.

pub(crate) mod analysis;
pub(crate) mod game;
pub(crate) mod record;
pub(crate) mod solve;
