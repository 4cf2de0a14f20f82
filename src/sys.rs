//! What the operating system reports about this process and machine: resident
//! memory (the whole run's peak, and each pair's), and memory available (Linux,
//! from /proc; elsewhere `None`); and the hints the generator gives it: huge pages
//! for its large arrays, writing back its large files as they are written.

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

/// The span of a huge page on x86-64 and most Linux targets; `advise_huge_pages`
/// aligns to it, which also aligns to any smaller base page.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back the whole huge pages inside `buf` with transparent huge
/// pages (Linux, where THP is `always` or `madvise`). The generator reads and
/// writes its arrays of gigabytes at random: with 4 KiB pages nearly every such
/// access also misses the TLB. Call it before the pages are first written (fresh,
/// zeroed allocations), else only khugepaged's slow collapse applies. A refusal
/// (THP `never`, an old kernel) changes nothing but the speed; elsewhere a no-op.
pub(crate) fn advise_huge_pages<T>(buf: &[T]) {
    if let Some((start, end)) = huge_span(buf.as_ptr() as usize, std::mem::size_of_val(buf)) {
        #[cfg(target_os = "linux")]
        // SAFETY: the range lies inside `buf`'s allocation, and MADV_HUGEPAGE only
        // changes how its pages are backed, never their contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to the disk
/// now, without waiting for them (Linux; elsewhere a no-op). A file written over
/// many seconds is then mostly on the disk when it is synced, instead of all of it
/// waiting for the sync while the cores idle (the kernel alone starts only once a
/// tenth of memory is dirty, or the pages are 30 s old). A refusal changes only when
/// the bytes reach the disk.
pub(crate) fn start_writeback(file: &std::fs::File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: the call only reads the descriptor, which `file` keeps open.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// The whole huge pages inside `bytes` bytes from `addr`: their first and end
/// address, if any.
fn huge_span(addr: usize, bytes: usize) -> Option<(usize, usize)> {
    let start = addr.next_multiple_of(HUGE_PAGE);
    let end = (addr + bytes) / HUGE_PAGE * HUGE_PAGE;
    (end > start).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advice_covers_the_whole_huge_pages_inside_the_buffer() {
        const H: usize = HUGE_PAGE;
        assert_eq!(huge_span(0, 3 * H), Some((0, 3 * H)));
        assert_eq!(huge_span(1, 3 * H), Some((H, 3 * H)));
        assert_eq!(huge_span(H - 1, H + 1), Some((H, 2 * H)));
        assert_eq!(huge_span(1, 2 * H - 2), None);
        assert_eq!(huge_span(H, H - 1), None);
    }

    /// Where the kernel grants huge pages on request (THP `always` or `madvise`), a
    /// fresh buffer advised and then written lies on them.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_advised_buffer_lies_on_huge_pages() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
        if !mode.is_ok_and(|m| m.contains("[always]") || m.contains("[madvise]")) {
            return; // nothing to observe on this kernel
        }
        // Larger than any threshold of glibc for fresh mappings (32 MiB), so its
        // pages are untouched until written.
        let mut buf = vec![0u8; 32 * HUGE_PAGE];
        advise_huge_pages(&buf);
        buf.iter_mut().step_by(4096).for_each(|b| *b = 1);
        let (first, end) = (buf.as_ptr() as usize, buf.as_ptr() as usize + buf.len());
        // The buffer's mappings in /proc/self/smaps (the advice splits its own off):
        // each a `start-end ...` line, then its fields.
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut huge_kb = 0;
        for line in smaps.lines() {
            let range = line
                .split_whitespace()
                .next()
                .and_then(|r| r.split_once('-'));
            if let Some((a, b)) = range.filter(|_| !line.ends_with(" kB")) {
                let (a, b) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16));
                inside = matches!((a, b), (Ok(a), Ok(b)) if a < end && first < b);
            } else if inside && let Some(kb) = line.strip_prefix("AnonHugePages:") {
                huge_kb += kb.trim().trim_end_matches(" kB").parse::<u64>().unwrap();
            }
        }
        assert!(huge_kb > 0, "no huge page under the buffer");
        assert_eq!(
            buf.iter().filter(|&&b| b == 1).count(),
            32 * HUGE_PAGE / 4096
        );
    }
}
