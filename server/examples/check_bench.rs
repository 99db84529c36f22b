//! What `GET /api/phrases/check` costs at 1,000, 10,000 and 100,000 phrases, through the
//! whole router in-process (every layer, the handler, the JSON), for the answers that do
//! the most: a taken word with its taker and alternatives, a taken word whose first
//! variants are all taken or read like minted phrases, a free look-alike, a free word.
//! Also what a change costs the list with its skeleton index, the figure behind "a
//! change costs O(change)". Budget: a check ≤ 2 ms p99 at 100,000 phrases.
//!
//!     cargo run --release --example check_bench

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use lastwords::feed::{Change, Feed, Phrase};
use lastwords::metrics::Metrics;
use lastwords::routes;
use lastwords::state::AppState;
use tower::ServiceExt as _;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const ROUNDS: usize = 2_000;

/// The words checked, with what each shows: percent-encoded as a browser sends them.
const CHECKS: [(&str, &str); 4] = [
    ("taken", "LAST%20WORDS%20500"),
    ("taken, crowded", "DINO%20ROAR"),
    ("look-alike", "LAST%20W0RDS%20500"),
    ("free", "NOT%20MINTED%20YET"),
];

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(bench())
}

async fn bench() -> anyhow::Result<()> {
    print!("{:>8}", "phrases");
    for (label, _) in CHECKS {
        print!(" | {:>24}", format!("{label} p50 / p99"));
    }
    println!(" | {:>22} | {:>22}", "add p50 / p99", "edit p50 / p99");
    for size in SIZES {
        let data = tempfile::tempdir()?;
        let config = support::config(data.path())?;
        let ui = support::ui()?;
        let feed = Feed::new();
        feed.replace(phrases(size));
        let state = {
            let feed = feed.clone();
            tokio::task::spawn_blocking(move || {
                AppState::start(config, ui, feed, Arc::new(Metrics::new()))
            })
            .await??
        };
        let router = routes::router(state);
        print!("{size:>8}");
        for (_, word) in CHECKS {
            let path = format!("/api/phrases/check?word={word}");
            let mut times = Vec::with_capacity(ROUNDS);
            for _ in 0..ROUNDS {
                let request = Request::get(&path)
                    .header(header::HOST, "127.0.0.1")
                    .body(Body::empty())?;
                let started = Instant::now();
                let response = router.clone().oneshot(request).await?;
                let status = response.status();
                let body = response.into_body().collect().await?.to_bytes();
                times.push(started.elapsed());
                anyhow::ensure!(status == StatusCode::OK, "{path}: {status}");
                std::hint::black_box(body);
            }
            print!(" | {}", pair(&mut times));
        }
        let mut next = size;
        let mut add = timed(|| {
            feed.apply(vec![Change::Upsert {
                phrase: phrase(next),
            }]);
            next += 1;
        });
        let mut round = 0;
        let mut edit = timed(|| {
            let mut edited = phrase(round % size);
            edited.word = format!("EDITED {round}");
            feed.apply(vec![Change::Upsert { phrase: edited }]);
            round += 1;
        });
        println!(" | {} | {}", pair(&mut add), pair(&mut edit));
    }
    Ok(())
}

/// `size` phrases like the community's, and DINO ROAR with every variant the checker
/// tries first taken or minted as a look-alike (a zero for an O), so it searches on.
fn phrases(size: usize) -> Vec<Phrase> {
    let crowded = [
        "DINO ROAR",
        "DINO ROAR!",
        "DIN0 ROAR?",
        "ROAR DINO",
        "DINO R0ARS",
        "THE DINO ROAR",
        "MY DIN0 ROAR",
    ];
    let mut all: Vec<Phrase> = (0..size).map(phrase).collect();
    all.extend(crowded.iter().enumerate().map(|(i, word)| Phrase {
        id: format!("crowded{i}"),
        word: (*word).into(),
        name: "Rex".into(),
        created: (size + i) as u64,
        edited: 0,
    }));
    all
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

fn timed(mut run: impl FnMut()) -> Vec<Duration> {
    (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect()
}

fn pair(times: &mut [Duration]) -> String {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e3;
    format!("{:>8.3} / {:>8.3} ms", at(0.5), at(0.99))
}
