//! Files on disk, the one way fanotb writes and reads them: files written whole or
//! not at all, never through a planted link, FIFO or device, with the lock that keeps
//! two builds out of one directory; user-named files and streams read within stated
//! bounds; and what every binary format shares (bounded little-endian fields, the
//! sealing trailer, zstd frames within the ratio readers take).

pub(crate) mod bytes;
pub(crate) mod compressed;
pub(crate) mod durable;
pub(crate) mod log;
pub(crate) mod read;
