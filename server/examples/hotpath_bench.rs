//! What the host's own code costs per cached page view: the whole router (every layer,
//! the handler, the page cache) called in-process for `/words`, with no socket, no
//! hyper and no load tool. On a machine other work shares, this is the steady figure
//! beside wrk's requests/s: one thread, and the fastest of several batches.
//!
//!     cargo run --release --example hotpath_bench
//!
//! It serves the store's sample phrases from a temporary embedded store, as a fresh
//! clone does; the page is cached before timing starts. With RUST_LOG set it logs as
//! the host does in production (JSON lines at that level; the host's default is `info`),
//! so the cost of the request span shows. Then the same through the fast path the
//! connection tries first (`routes::FastPath`), which answers a cached hit without the
//! router.

mod support;

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use lastwords::config::Environment;
use lastwords::routes;
use tower::ServiceExt as _;

/// Requests per timed batch.
const BATCH: u32 = 20_000;
/// Timed batches; the fastest is the figure (the others met other work on the cores).
const BATCHES: usize = 9;

fn main() -> anyhow::Result<()> {
    if std::env::var_os("RUST_LOG").is_some() {
        lastwords::cli::init_tracing(Environment::Production, false);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(bench())
}

async fn bench() -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    let config = support::config(data.path())?;
    let ui = support::ui()?;
    let state = lastwords::app::start(config, ui).await?;
    let router = routes::router(state.clone());
    let fast = routes::FastPath::new(state);
    let client = std::net::IpAddr::from([127, 0, 0, 1]);

    for (label, encoding) in [("identity", None), ("gzip", Some("gzip"))] {
        let request = || {
            let mut request = Request::get("/words").header(header::HOST, "127.0.0.1");
            if let Some(encoding) = encoding {
                request = request.header(header::ACCEPT_ENCODING, encoding);
            }
            request.body(Body::empty()).expect("a valid request")
        };
        // The first request renders and (for gzip) compresses; the rest are hits.
        let first = router.clone().oneshot(request()).await?;
        anyhow::ensure!(
            first.status() == StatusCode::OK,
            "/words answered {}",
            first.status()
        );
        let bytes = first.into_body().collect().await?.to_bytes().len();
        let mut batches = Vec::with_capacity(BATCHES);
        for _ in 0..BATCHES {
            let started = Instant::now();
            for _ in 0..BATCH {
                let response = router.clone().oneshot(request()).await?;
                let body = response.into_body().collect().await?;
                std::hint::black_box(body);
            }
            batches.push(started.elapsed() / BATCH);
        }
        batches.sort();
        println!(
            "cached /words {label} ({bytes} bytes), router in-process: fastest batch {}, median {} per request",
            micros(batches[0]),
            micros(batches[BATCHES / 2]),
        );
        let mut batches = Vec::with_capacity(BATCHES);
        for _ in 0..BATCHES {
            let started = Instant::now();
            for _ in 0..BATCH {
                let answer = fast.answer(&request(), client).await;
                anyhow::ensure!(answer.is_some(), "the fast path left a cached hit");
                std::hint::black_box(answer);
            }
            batches.push(started.elapsed() / BATCH);
        }
        batches.sort();
        println!(
            "cached /words {label} ({bytes} bytes), fast path in-process: fastest batch {}, median {} per request",
            micros(batches[0]),
            micros(batches[BATCHES / 2]),
        );
    }
    Ok(())
}

fn micros(took: Duration) -> String {
    format!("{:.2} µs", took.as_secs_f64() * 1e6)
}
