//! The block cache's process-wide budget: threads probing at once keep no more
//! decompressed blocks together than the total set, and a thread that ends gives
//! its blocks back. A test binary of its own, since the budget is the process's.

mod common;

use std::sync::atomic::Ordering::Relaxed;

use fanotb::{Board, Rules, Tablebase};

#[test]
fn threads_together_keep_at_most_the_total_and_give_it_back() {
    let dir = common::tables(Board::tsivy(), 4);
    let tb = Tablebase::open(dir.path()).unwrap();
    let before = Tablebase::cached_bytes();
    // Each thread may keep 1 MiB, all of them 1.5 MiB: four threads probing at
    // random over the 4-stone tables would keep 4 MiB without the total.
    Tablebase::set_cache_per_thread(1 << 20);
    Tablebase::set_cache_total(before + (3 << 19));
    let most = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let (tb, most) = (&tb, &most);
                s.spawn(move || {
                    let mut rng = common::Rng(0x2545_f491_4f6c_dd1d ^ t);
                    for _ in 0..3000 {
                        let pos = common::random_position(&mut rng, Board::tsivy());
                        tb.probe(&pos, Rules::PLAIN).unwrap();
                        most.fetch_max(Tablebase::cached_bytes(), Relaxed);
                    }
                })
            })
            .collect();
        // Joined one by one: a thread's cache is given back as it exits, after its
        // closure returns, and a join waits for that (the scope's end alone does not).
        for t in threads {
            t.join().unwrap();
        }
    });
    let most = most.into_inner();
    assert!(most <= before + (3 << 19), "kept {most} bytes");
    // The cache was used, up to the budget less a block or so.
    assert!(most > before + (1 << 20), "kept only {most} bytes");
    assert_eq!(
        Tablebase::cached_bytes(),
        before,
        "the threads' blocks given back"
    );
}
