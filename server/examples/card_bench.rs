//! What a phrase's card costs: the first draw of a card (layout with the bundled fonts,
//! the framed Dino, PNG encoding) and a cached card through the whole router, in-process,
//! with 100,000 phrases in the list.
//!
//!     cargo run --release --example card_bench [-- --out DIR]
//!
//! With `--out DIR` it also writes the cards of a few telling phrases (the widest, the
//! longest, other scripts, emoji, markup) to DIR, to look at. `scripts/bench card`
//! measures the cached card over HTTP with wrk.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use lastwords::feed::Feed;
use lastwords::feed::list::Phrase;
use lastwords::metrics::Metrics;
use lastwords::routes;
use lastwords::state::AppState;
use tower::ServiceExt as _;

const PHRASES: usize = 100_000;
/// Cards drawn for the first-draw figure, each a phrase of its own.
const FIRST_DRAWS: usize = 40;
/// Requests per timed batch of cached cards.
const BATCH: u32 = 20_000;

/// Phrases worth looking at: id, word, name.
const SAMPLES: &[(&str, &str, &str)] = &[
    (
        "widest",
        "WWWWWWWWWWWWWWWWWWWW",
        "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
    ),
    (
        "longest",
        "THE METEOR IS COMING",
        "Tyrannosaurus rex the Magnificent Jr. II",
    ),
    ("short", "RAWR", "Ann"),
    ("cyrillic", "ПРОЩАЙ МИР", "Дмитрий"),
    ("greek", "ΑΝΤΊΟ ΚΌΣΜΕ", "Νίκος"),
    ("cjk", "再见世界 さようなら", "王小明"),
    ("arabic", "وداعا يا عالم", "محمد"),
    ("korean", "안녕 세상", "김민수"),
    ("hebrew-thai", "שלום ลาก่อน", "नमस्ते"),
    (
        "emoji",
        "🦖🦕☄️🔥🌍🦖🦕☄️🔥🌍🦖🦕☄️🔥🌍🦖🦕☄️🔥🌍",
        "🦖 fan",
    ),
    ("hostile", "<SCRIPT>&\"']]>", "<b>Mallory</b> & \"friends\""),
    ("mixed", "HI مرحبا (شكرا) 再见", "Ann كتاب 🦖"),
];

fn main() -> anyhow::Result<()> {
    let out = std::env::args()
        .skip_while(|arg| arg != "--out")
        .nth(1)
        .map(std::path::PathBuf::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(bench(out))
}

async fn bench(out: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    let config = support::config(data.path())?;
    let ui = support::ui()?;
    let feed = Feed::new();
    let mut phrases: Vec<Phrase> = (0..PHRASES)
        .map(|i| Phrase {
            id: format!("p{i}"),
            word: format!("LAST WORDS NO {i}"),
            name: format!("Dino collector {i}"),
            created: i as u64,
            edited: 0,
        })
        .collect();
    phrases.extend(SAMPLES.iter().map(|(id, word, name)| Phrase {
        id: (*id).into(),
        word: (*word).into(),
        name: (*name).into(),
        created: 0,
        edited: 0,
    }));
    feed.replace(phrases);
    let state = tokio::task::spawn_blocking(move || {
        AppState::start(config, ui, feed, Arc::new(Metrics::new()))
    })
    .await??;
    let painter = state.cards.painter();
    let router = routes::router(state);
    let started = Instant::now();
    tokio::task::spawn_blocking(move || painter.warm()).await?;
    println!(
        "fonts unpacked and backdrop drawn, as `serve` does at start: {:.1} ms",
        ms(started.elapsed())
    );
    let get = |path: String| {
        let router = router.clone();
        async move {
            let response = router
                .oneshot(Request::get(path.as_str()).body(Body::empty())?)
                .await?;
            anyhow::ensure!(
                response.status() == StatusCode::OK,
                "{path} answered {}",
                response.status()
            );
            Ok(response.into_body().collect().await?.to_bytes())
        }
    };

    let started = Instant::now();
    get("/words/p0/card.png".into()).await?;
    println!(
        "first card of the process (its Dino framed too): {:.1} ms",
        ms(started.elapsed())
    );
    // Every Dino framed once, so the figures below are of a card, not of a Dino.
    for i in 1..=40 {
        get(format!("/words/p{i}/card.png")).await?;
    }

    let mut draws = Vec::with_capacity(FIRST_DRAWS);
    let mut bytes = 0;
    for i in 0..FIRST_DRAWS {
        let started = Instant::now();
        bytes += get(format!("/words/p{}/card.png", 1000 + i)).await?.len();
        draws.push(started.elapsed());
    }
    draws.sort();
    println!(
        "first draw of a card ({FIRST_DRAWS} phrases of 100,000, {} KB average): p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        bytes / FIRST_DRAWS / 1000,
        ms(draws[FIRST_DRAWS / 2]),
        ms(draws[FIRST_DRAWS * 9 / 10]),
        ms(draws[FIRST_DRAWS - 1]),
    );
    for (id, _, _) in SAMPLES {
        let started = Instant::now();
        let png = get(format!("/words/{id}/card.png")).await?;
        println!(
            "  {id}: {:.1} ms, {} KB",
            ms(started.elapsed()),
            png.len() / 1000
        );
        if let Some(dir) = &out {
            std::fs::create_dir_all(dir)?;
            std::fs::write(dir.join(format!("{id}.png")), &png)?;
        }
    }

    let mut batches = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        for _ in 0..BATCH {
            std::hint::black_box(get("/words/p1000/card.png".into()).await?);
        }
        batches.push(started.elapsed() / BATCH);
    }
    batches.sort();
    println!(
        "cached card through the router, in-process, one task: fastest batch {:.1} µs per request ({:.0}/s)",
        batches[0].as_secs_f64() * 1e6,
        1.0 / batches[0].as_secs_f64()
    );
    Ok(())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
