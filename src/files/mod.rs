//! Files on disk: what every binary format shares (bounded little-endian fields and
//! the sealing trailer), and files written whole or not at all, with the lock that
//! keeps two builds out of one directory.

pub(crate) mod bytes;
pub(crate) mod durable;
