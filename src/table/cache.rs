//! Decompressed blocks, per thread, bounded in bytes: probes from many threads
//! share no lock and no cache line.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use super::TableError;

/// Default bytes of decompressed blocks a thread keeps: 256 depth blocks.
pub(crate) const DEFAULT_CACHE_BYTES: usize = 16 << 20;

/// Which table file, stream and block a cached block is.
pub(super) type BlockKey = (u64, usize, usize);

/// Decompressed blocks of one thread, and their bytes.
#[derive(Default)]
struct BlockCache {
    blocks: HashMap<BlockKey, Vec<u8>>,
    bytes: usize,
}

thread_local! {
    /// Decompressed blocks, per thread, so that probes from many threads share no
    /// lock and no cache line. At most `CACHE_BYTES` a thread; when full, any block
    /// makes room (the cache only bounds memory).
    static BLOCKS: RefCell<BlockCache> = RefCell::new(BlockCache::default());
}

/// The bytes of decompressed blocks each thread may keep.
static CACHE_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_CACHE_BYTES);

/// Sets the bytes of decompressed blocks each thread may keep (0: none).
pub(crate) fn set_cache_bytes(bytes: usize) {
    CACHE_BYTES.store(bytes, Relaxed);
}

/// Numbers table files for the block cache (a closed file's blocks age out).
pub(super) static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(0);

/// Runs `f` on the block `key`, from this thread's cache, or else `load`ed and then
/// cached (when full, any block makes room: the cache only bounds memory).
pub(super) fn with_cached<R>(
    key: BlockKey,
    load: impl FnOnce() -> Result<Vec<u8>, TableError>,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, TableError> {
    BLOCKS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(blk) = cache.blocks.get(&key) {
            return Ok(f(blk));
        }
        let blk = load()?;
        let r = f(&blk);
        let budget = CACHE_BYTES.load(Relaxed);
        while cache.bytes + blk.len() > budget {
            let Some(&victim) = cache.blocks.keys().next() else {
                // The budget is below one block: keep none.
                return Ok(r);
            };
            let gone = cache.blocks.remove(&victim).expect("a key of the map");
            cache.bytes -= gone.len();
        }
        cache.bytes += blk.len();
        cache.blocks.insert(key, blk);
        Ok(r)
    })
}
