//! What one change, one page and one find cost the host at 1,000, 10,000 and 100,000
//! phrases: the figures behind "a change costs O(change)" and "find answers in 5 ms".
//!
//! `cargo run --release --example list_bench` (scripts/bench scale runs it).

use std::time::{Duration, Instant};

use lastwords::feed::list::{Anchor, PAGE_SIZE};
use lastwords::feed::{Change, Feed, Phrase};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const ROUNDS: usize = 2_000;

fn main() {
    println!(
        "{:>8} | {:>22} | {:>22} | {:>22} | {:>22} | {:>9}",
        "phrases",
        "change p50 / p99",
        "first page p50 / p99",
        "deep page p50 / p99",
        "find (none) p50 / p99",
        "heap MiB"
    );
    for size in SIZES {
        let before = heap_mib();
        let feed = Feed::new();
        feed.replace((0..size).map(phrase).collect());
        let held = heap_mib() - before;

        let mut next = size;
        let change = timed(ROUNDS, || {
            feed.apply(vec![Change::Upsert {
                phrase: phrase(next),
            }]);
            next += 1;
        });
        let snapshot = feed.current();
        let list = &snapshot.list;
        let first = timed(ROUNDS, || {
            std::hint::black_box(list.page(Anchor::First, PAGE_SIZE, ""));
        });
        let middle = list
            .page(Anchor::First, list.len() / 2, "")
            .next
            .expect("a long list has a second half");
        let deep = timed(ROUNDS, || {
            std::hint::black_box(list.page(Anchor::After(&middle), PAGE_SIZE, ""));
        });
        let find = timed(ROUNDS / 10, || {
            std::hint::black_box(list.page(Anchor::First, PAGE_SIZE, "NOT THERE"));
        });
        println!(
            "{size:>8} | {} | {} | {} | {} | {held:>9.1}",
            pair(&change),
            pair(&first),
            pair(&deep),
            pair(&find)
        );
    }
}

/// A phrase like the community's: a short word, a name, a 20-character id.
fn phrase(n: usize) -> Phrase {
    Phrase {
        id: format!("{n:020}"),
        word: format!("LAST WORDS {n}"),
        name: format!("Minter {}", n % 997),
        created: n as u64,
        edited: 0,
    }
}

fn timed(rounds: usize, mut run: impl FnMut()) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn pair(times: &[Duration]) -> String {
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e3;
    format!("{:>8.3} / {:>8.3} ms", at(0.5), at(0.99))
}

/// Resident memory of this process in MiB.
fn heap_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}
