//! Decompressed blocks, per thread, bounded in bytes per thread and for the whole
//! process: probes from many threads share no lock, only one byte counter.

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

impl BlockCache {
    /// Drops any one block (the cache only bounds memory); false when empty.
    fn evict_one(&mut self) -> bool {
        let Some(&victim) = self.blocks.keys().next() else {
            return false;
        };
        let gone = self.blocks.remove(&victim).expect("a key of the map");
        self.bytes -= gone.len();
        PROCESS_USED.fetch_sub(gone.len(), Relaxed);
        true
    }
}

impl Drop for BlockCache {
    /// A thread that ends gives its blocks' bytes back to the process budget.
    fn drop(&mut self) {
        PROCESS_USED.fetch_sub(self.bytes, Relaxed);
    }
}

thread_local! {
    /// Decompressed blocks, per thread, so that probes from many threads share no
    /// lock and no cache line.
    static BLOCKS: RefCell<BlockCache> = RefCell::new(BlockCache::default());
}

/// The bytes of decompressed blocks each thread may keep.
static THREAD_BUDGET: AtomicUsize = AtomicUsize::new(DEFAULT_CACHE_BYTES);
/// The bytes of decompressed blocks all threads together may keep (a server with
/// many threads sets it; unbounded by default).
static PROCESS_BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The bytes of decompressed blocks all threads keep now.
static PROCESS_USED: AtomicUsize = AtomicUsize::new(0);

/// Sets the bytes of decompressed blocks each thread may keep (0: none).
pub(crate) fn set_cache_bytes(bytes: usize) {
    THREAD_BUDGET.store(bytes, Relaxed);
}

/// Sets the bytes of decompressed blocks all threads together may keep.
pub(crate) fn set_process_cache_bytes(bytes: usize) {
    PROCESS_BUDGET.store(bytes, Relaxed);
}

/// The bytes of decompressed blocks all threads keep now.
pub(crate) fn process_cache_bytes() -> usize {
    PROCESS_USED.load(Relaxed)
}

/// Numbers table files for the block cache (a closed file's blocks age out).
pub(super) static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(0);

/// Runs `f` on the block `key`, from this thread's cache, or else `load`ed and then
/// cached if both budgets allow, after making room in this thread's cache.
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
        let len = blk.len();
        let (thread_budget, process_budget) =
            (THREAD_BUDGET.load(Relaxed), PROCESS_BUDGET.load(Relaxed));
        loop {
            // The process's bytes are claimed before the block goes in, only while
            // within the budget: the count never exceeds it, even for a moment.
            let claimed = cache.bytes + len <= thread_budget
                && PROCESS_USED
                    .fetch_update(Relaxed, Relaxed, |used| {
                        used.checked_add(len).filter(|&u| u <= process_budget)
                    })
                    .is_ok();
            if claimed {
                break;
            }
            if !cache.evict_one() {
                // The budget left is below one block: keep none.
                return Ok(r);
            }
        }
        cache.bytes += len;
        cache.blocks.insert(key, blk);
        Ok(r)
    })
}
