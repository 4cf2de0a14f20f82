#![doc = include_str!("../README.md")]
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
