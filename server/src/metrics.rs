//! What the host counts, written in the Prometheus text format.
//!
//! Counters are plain atomics updated on the request path; the text is written only
//! when `/metrics` is scraped (see `routes::ops`), beside the counts other parts keep.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::response::Response;
use tracing::Instrument as _;

/// Upper bounds of the render time buckets, in seconds.
const RENDER_BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// The host's own counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Responses by route template, then status code. Keyed by the route alone so a
    /// request's count is found from its `&str` without allocating a key.
    requests: RwLock<HashMap<String, Vec<(u16, AtomicU64)>>>,
    /// Renders by duration (cumulative buckets as Prometheus wants them).
    render_buckets: [AtomicU64; RENDER_BUCKETS.len()],
    render_count: AtomicU64,
    render_micros: AtomicU64,
    /// Renders refused because the queue was full.
    pub render_overflows: AtomicU64,
    /// Renders that threw or timed out.
    pub render_failures: AtomicU64,
}

impl Metrics {
    pub fn observe_render(&self, took: Duration) {
        let seconds = took.as_secs_f64();
        for (bucket, bound) in self.render_buckets.iter().zip(RENDER_BUCKETS) {
            if seconds <= bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.render_count.fetch_add(1, Ordering::Relaxed);
        self.render_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    fn count_request(&self, route: &str, status: u16) {
        let count = |statuses: &Vec<(u16, AtomicU64)>| {
            let counter = statuses.iter().find(|(known, _)| *known == status)?;
            Some(counter.1.fetch_add(1, Ordering::Relaxed))
        };
        let requests = self.requests.read().unwrap_or_else(|e| e.into_inner());
        if requests.get(route).and_then(count).is_some() {
            return;
        }
        drop(requests);
        let mut requests = self.requests.write().unwrap_or_else(|e| e.into_inner());
        let statuses = requests.entry(route.to_owned()).or_default();
        if count(statuses).is_none() {
            statuses.push((status, AtomicU64::new(1)));
        }
    }
}

/// Runs `inner` on `request` and counts its response; a response of 500 or more is
/// logged with the request's method, route, status, latency and client address. Routes are the
/// router's templates, so `/assets/{*path}` is one series, not one per file.
pub async fn track<F>(
    metrics: &Metrics,
    request: Request,
    inner: impl FnOnce(Request) -> F,
) -> Response
where
    F: Future<Output = Response>,
{
    // A clone of the matched path is a reference count, not a copy of the text.
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let route = matched.as_ref().map_or("unmatched", |path| path.as_str());
    let method = request.method().clone();
    let client = request
        .extensions()
        .get::<crate::client::ClientAddr>()
        .map(|client| client.0);
    // The span is at debug level: at the host's default (info) a span a request cost
    // 2.5 µs of a cached page's 4.7 (examples/hotpath_bench) and printed nothing.
    let span = tracing::debug_span!(
        "request",
        method = %method,
        route = %route,
        status = tracing::field::Empty,
        latency_ms = tracing::field::Empty,
    );
    let started = Instant::now();
    let response = inner(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    if status >= 500 {
        tracing::warn!(method = %method, route, status, latency_ms, client = ?client, "request failed");
    } else if !span.is_disabled() {
        span.record("status", status);
        span.record("latency_ms", latency_ms);
        span.in_scope(|| tracing::debug!("request"));
    }
    metrics.count_request(route, status);
    response
}

impl Metrics {
    /// Writes the request counters and the render histogram in the text format.
    pub fn write(&self, out: &mut String) {
        let m = self;

        help(
            out,
            "lastwords_http_requests_total",
            "counter",
            "HTTP responses by route and status.",
        );
        {
            let requests = m.requests.read().unwrap_or_else(|e| e.into_inner());
            let mut rows: Vec<_> = requests
                .iter()
                .flat_map(|(route, statuses)| {
                    statuses
                        .iter()
                        .map(move |(status, count)| (route, status, count))
                })
                .collect();
            rows.sort_by_key(|&(route, status, _)| (route, *status));
            for (route, status, count) in rows {
                let _ = writeln!(
                    out,
                    "lastwords_http_requests_total{{route=\"{}\",status=\"{status}\"}} {}",
                    label(route),
                    count.load(Ordering::Relaxed)
                );
            }
        }

        help(
            out,
            "lastwords_render_seconds",
            "histogram",
            "Time React took to render a page (cache misses only).",
        );
        for (bucket, bound) in m.render_buckets.iter().zip(RENDER_BUCKETS) {
            let _ = writeln!(
                out,
                "lastwords_render_seconds_bucket{{le=\"{bound}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = m.render_count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "lastwords_render_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "lastwords_render_seconds_sum {}",
            m.render_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "lastwords_render_seconds_count {count}");
    }
}

/// The `# HELP` and `# TYPE` lines of a metric.
pub fn help(out: &mut String, name: &str, kind: &str, text: &str) {
    let _ = writeln!(out, "# HELP {name} {text}\n# TYPE {name} {kind}");
}

/// A label value as the text format wants it.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
