//! Independent checkers: the proof checker, which verifies a certificate from the
//! rules and the tables alone, and the table verifier, which re-derives every entry
//! of a table from its successors. Neither shares code with the search or the
//! generator it checks.

pub(crate) mod lemmas;
pub(crate) mod proof;
pub(crate) mod tables;
mod walk;
