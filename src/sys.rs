//! What the operating system reports about this process and machine: resident
//! memory (the whole run's peak, and each pair's), and memory available (Linux,
//! from /proc; elsewhere `None`).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The largest peak of the pairs before the current one (the kernel's count
/// restarts with each pair).
static EARLIER_PEAK: AtomicU64 = AtomicU64::new(0);

/// The largest reading of the current pair's peak: the kernel's figure may read
/// lower after memory is returned, so every reading is kept.
static PAIR_PEAK: AtomicU64 = AtomicU64::new(0);

/// Starts a new peak for `pair_peak`, so each pair reports its own (Linux; elsewhere
/// the peak stays the process's). `peak_rss` still covers the whole run.
pub(crate) fn reset_peak_rss() {
    if let Some(p) = pair_peak() {
        EARLIER_PEAK.fetch_max(p, Relaxed);
    }
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    PAIR_PEAK.store(0, Relaxed);
}

/// Peak resident memory since the current pair began, in bytes (Linux).
pub(crate) fn pair_peak() -> Option<u64> {
    let now = status_bytes("VmHWM:")?;
    Some(PAIR_PEAK.fetch_max(now, Relaxed).max(now))
}

/// Peak resident memory of this process over its whole run, in bytes (Linux):
/// table builds restart the kernel's own count per pair, so this keeps the largest.
pub fn peak_rss() -> Option<u64> {
    pair_peak().map(|p| p.max(EARLIER_PEAK.load(Relaxed)))
}

/// A memory figure of /proc/self/status, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory the system can give without swapping, in bytes (Linux).
pub(crate) fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Resident memory of this process now, in bytes (Linux).
pub(crate) fn resident_bytes() -> Option<u64> {
    status_bytes("VmRSS:")
}
