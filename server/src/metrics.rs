//! What the host counts, and `/metrics` in the Prometheus text format.
//!
//! Counters are plain atomics updated on the request path; the text is assembled only
//! when scraped, from these and from the parts that keep their own counts (page cache,
//! socket limits, feed health).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument as _;

use crate::app::AppState;

/// Upper bounds of the render time buckets, in seconds.
const RENDER_BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// The host's own counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Responses by route template and status code.
    requests: RwLock<HashMap<(String, u16), AtomicU64>>,
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
        let requests = self.requests.read().unwrap_or_else(|e| e.into_inner());
        if let Some(counter) = requests.get(&(route.to_owned(), status)) {
            counter.fetch_add(1, Ordering::Relaxed);
            return;
        }
        drop(requests);
        let mut requests = self.requests.write().unwrap_or_else(|e| e.into_inner());
        requests
            .entry((route.to_owned(), status))
            .or_default()
            .fetch_add(1, Ordering::Relaxed);
    }
}

/// A span per request (method, route, status, latency) and the request counter.
/// Routes are the router's templates, so `/assets/{*path}` is one series, not one per file.
pub async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |path| path.as_str())
        .to_owned();
    let span = tracing::info_span!(
        "request",
        method = %request.method(),
        route = %route,
        status = tracing::field::Empty,
        latency_ms = tracing::field::Empty,
    );
    let started = Instant::now();
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    let latency = started.elapsed();
    span.record("status", status);
    span.record("latency_ms", latency.as_secs_f64() * 1000.0);
    span.in_scope(|| {
        if status >= 500 {
            tracing::warn!("request failed");
        } else {
            tracing::debug!("request");
        }
    });
    state.metrics.count_request(&route, status);
    response
}

/// `GET /metrics`.
pub async fn scrape(State(state): State<AppState>) -> Response {
    let mut out = String::with_capacity(4096);
    let m = &state.metrics;

    help(
        &mut out,
        "lastwords_http_requests_total",
        "counter",
        "HTTP responses by route and status.",
    );
    {
        let requests = m.requests.read().unwrap_or_else(|e| e.into_inner());
        let mut rows: Vec<_> = requests.iter().collect();
        rows.sort_by(|a, b| a.0.cmp(b.0));
        for ((route, status), count) in rows {
            let _ = writeln!(
                out,
                "lastwords_http_requests_total{{route=\"{}\",status=\"{status}\"}} {}",
                label(route),
                count.load(Ordering::Relaxed)
            );
        }
    }

    help(
        &mut out,
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

    let cache = &state.pages;
    let sockets = &state.sockets;
    let health = state.feed.health();
    let snapshot = state.feed.current();
    let connections = &state.connections;
    let simple: [(&str, &str, &str, f64); 18] = [
        (
            "lastwords_connections",
            "gauge",
            "TCP connections open now, WebSockets included.",
            connections.open() as f64,
        ),
        (
            "lastwords_connections_budget",
            "gauge",
            "Connections served in full at once; past it only the probes are answered.",
            connections.budget() as f64,
        ),
        (
            "lastwords_connections_refused_total",
            "counter",
            "Connections past the budget answered 503 or closed unanswered.",
            connections.refused.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_connections_idle_closed_total",
            "counter",
            "Connections closed for sending no request within the request timeout.",
            connections.idle_closed.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_connections_write_stalled_total",
            "counter",
            "Connections closed because the peer read nothing within the request timeout.",
            connections.write_stalled.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_render_cache_hits_total",
            "counter",
            "Pages served from the render cache.",
            cache.hits.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_render_cache_misses_total",
            "counter",
            "Pages that had to be rendered.",
            cache.misses.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_render_queue_overflows_total",
            "counter",
            "Renders refused with 503 because the queue was full.",
            m.render_overflows.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_render_failures_total",
            "counter",
            "Renders that threw or ran out of time.",
            m.render_failures.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_websocket_connections",
            "gauge",
            "Live WebSockets open now.",
            sockets.open() as f64,
        ),
        (
            "lastwords_websocket_messages_sent_total",
            "counter",
            "Messages written to live WebSockets.",
            sockets.sent.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_websocket_refused_total",
            "counter",
            "WebSocket upgrades refused by a connection cap.",
            sockets.refused.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_websocket_resnapshots_total",
            "counter",
            "Sockets that fell behind and were sent the whole list.",
            sockets.resnapshots.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_feed_up",
            "gauge",
            "1 while the phrase source is reachable.",
            if health.down_for().is_some() {
                0.0
            } else {
                1.0
            },
        ),
        (
            "lastwords_feed_synced",
            "gauge",
            "1 once the phrase source delivered a complete list.",
            if health.since_sync().is_some() {
                1.0
            } else {
                0.0
            },
        ),
        (
            "lastwords_feed_seconds_since_sync",
            "gauge",
            "Seconds since the source last delivered a complete list (-1: never).",
            health.since_sync().map_or(-1.0, |d| d.as_secs_f64()),
        ),
        (
            "lastwords_feed_documents_skipped_total",
            "counter",
            "Documents or stored rows skipped because they break the content rules (a missing or non-string word or name, invisible or control characters, lengths).",
            health.skipped.load(Ordering::Relaxed) as f64,
        ),
        (
            "lastwords_phrases",
            "gauge",
            "Phrases in the current list.",
            snapshot.phrases.len() as f64,
        ),
    ];
    for (name, kind, text, value) in simple {
        help(&mut out, name, kind, text);
        let _ = writeln!(out, "{name} {value}");
    }
    help(
        &mut out,
        "lastwords_feed_resyncs_total",
        "counter",
        "Times Firestore disagreed with our list and sent it again.",
    );
    let _ = writeln!(
        out,
        "lastwords_feed_resyncs_total {}",
        health.resyncs.load(Ordering::Relaxed)
    );

    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        out,
    )
        .into_response()
}

fn help(out: &mut String, name: &str, kind: &str, text: &str) {
    let _ = writeln!(out, "# HELP {name} {text}\n# TYPE {name} {kind}");
}

/// A label value as the text format wants it.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
