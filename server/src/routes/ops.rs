//! The operator's routes: the probes, `/metrics`, and the answer past the connection budget.

use std::sync::atomic::Ordering;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::{NOT_STORED, refusal};
use crate::metrics::gauge;
use crate::net::client::ClientAddr;
use crate::state::AppState;

/// The probes and `/metrics` say how this host is now: a cache between it and the load
/// balancer or Prometheus that kept an answer would hide a drain, an outage, a restart.
const NOW_ONLY: [(header::HeaderName, HeaderValue); 1] = [(header::CACHE_CONTROL, NOT_STORED)];

pub async fn healthz() -> impl IntoResponse {
    (NOW_ONLY, "ok")
}

/// Ready once the renderers run (they start before the router exists) and the feed has
/// delivered a complete list, and for as long as the source has not been unreachable
/// longer than `ready_stale_after`. A load balancer stops sending visitors meanwhile.
/// Why the source cannot be reached (an address, a file's state) is told to the networks
/// that may read `/metrics`; anyone else learns only that it cannot.
pub async fn readyz(State(state): State<AppState>, request: Request) -> Response {
    if state.draining.load(Ordering::Relaxed) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            NOW_ONLY,
            "draining: this host is stopping",
        )
            .into_response();
    }
    let health = state.feed.health();
    let reason = || health.problem().filter(|_| may_scrape(&state, &request));
    let unreachable = |down: std::time::Duration| {
        let mut said = format!(
            "the phrase source has been unreachable for {} s",
            down.as_secs()
        );
        if let Some(reason) = reason() {
            said = format!("{said}: {reason}");
        }
        said
    };
    let problem = match (health.since_sync(), health.down_for()) {
        // A host that never reached its source says so, or the operator of a new
        // deployment reads only that the list has not loaded.
        (None, None) => Some("the phrase list has not loaded yet".to_owned()),
        (None, Some(down)) => Some(format!(
            "the phrase list has not loaded yet: {}",
            unreachable(down)
        )),
        (Some(_), Some(down)) if down > state.config.store.ready_stale_after => {
            Some(unreachable(down))
        }
        _ => None,
    };
    match problem {
        None => (StatusCode::OK, NOW_ONLY, "ready").into_response(),
        Some(problem) => (StatusCode::SERVICE_UNAVAILABLE, NOW_ONLY, problem).into_response(),
    }
}

/// Whether `request` may read `/metrics` (`--metrics-from`); the accept loop names every
/// request's client.
pub fn may_scrape<B>(state: &AppState, request: &axum::http::Request<B>) -> bool {
    request
        .extensions()
        .get::<ClientAddr>()
        .is_some_and(|&ClientAddr(client)| {
            state
                .config
                .http
                .metrics_from
                .allow(client, request.headers())
        })
}

/// `GET /metrics`: the counters and histograms of [`crate::metrics::Metrics`], and the
/// gauges below, read now; 403 for a client `--metrics-from` does not name.
pub async fn scrape(State(state): State<AppState>, request: Request) -> Response {
    if !may_scrape(&state, &request) {
        return refusal(
            StatusCode::FORBIDDEN,
            "/metrics is served to the networks --metrics-from names (by default loopback \
             and private ones, not through a proxy)",
        );
    }
    let cache = state.pages.cache();
    let (page_bytes, card_bytes) = (cache.bytes().await, state.cards.cached_bytes().await);
    let sockets = &state.sockets;
    let health = state.feed.health();
    let snapshot = state.feed.current();
    let connections = &state.connections;
    // Each gauge is a state its owner keeps anyway (connections and sockets held, pages
    // cached, the source's health, the list): read here when scraped, it cannot drift
    // from that state, as a copy kept in step by every change could.
    let sampled = vec![
        gauge(
            "lastwords_connections",
            "TCP connections open now, WebSockets included.",
            connections.open() as f64,
        ),
        gauge(
            "lastwords_connections_budget",
            "Connections served in full at once; past it only the probes are answered.",
            connections.budget() as f64,
        ),
        gauge(
            "lastwords_render_cache_pages",
            "Pages in the render cache now (phrase pages, pages of the list).",
            cache.entries() as f64,
        ),
        gauge(
            "lastwords_render_cache_bytes",
            "What the pages in the render cache weigh now, compressed variants included.",
            page_bytes as f64,
        ),
        gauge(
            "lastwords_card_cache_bytes",
            "Bytes of PNG in the card cache now.",
            card_bytes as f64,
        ),
        gauge(
            "lastwords_websocket_connections",
            "Live WebSockets open now.",
            sockets.open() as f64,
        ),
        gauge(
            "lastwords_feed_up",
            "1 while the phrase source is reachable.",
            if health.down_for().is_some() {
                0.0
            } else {
                1.0
            },
        ),
        gauge(
            "lastwords_feed_synced",
            "1 once the phrase source delivered a complete list.",
            if health.since_sync().is_some() {
                1.0
            } else {
                0.0
            },
        ),
        gauge(
            "lastwords_feed_seconds_since_sync",
            "Seconds since the source last confirmed the list complete (-1: never).",
            health.since_sync().map_or(-1.0, |d| d.as_secs_f64()),
        ),
        gauge(
            "lastwords_draining",
            "1 from SIGTERM on: /readyz answers 503 while the host still serves.",
            if state.draining.load(Ordering::Relaxed) {
                1.0
            } else {
                0.0
            },
        ),
        gauge(
            "lastwords_phrases",
            "Phrases in the current list.",
            snapshot.list.len() as f64,
        ),
    ];
    (
        NOW_ONLY,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics.encode(sampled),
    )
        .into_response()
}

/// A connection past the budget asked for something other than the probes.
pub async fn too_many_connections(State(state): State<AppState>) -> Response {
    state.metrics.connections_refused.inc();
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "too many connections; try again shortly",
    )
}
