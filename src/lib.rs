//! fanotb: a perfect-play endgame solver for Fanorona.
//!
//! The rules engine (`board`, `position`, `movegen`) follows RULES.md; `index`,
//! `retro`, `table` and `probe` build and read endgame tables.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod board;
pub mod certificate;
pub mod check;
pub mod checkpoint;
pub mod movegen;
pub mod position;

pub use board::{Board, BoardError};
pub use movegen::{Capture, Move, MoveError, Step, perft, perft_divide};
pub use position::{Color, Position, PositionError};
pub use value::{Outcome, Wdl};
pub mod ffi;
pub mod index;
pub mod probe;
pub mod proof;
pub mod retro;
pub mod solve;
pub mod table;
pub mod value;
pub mod verify;
