//! What the host counts, in Prometheus' text format through the `prometheus` crate.
//!
//! One [`Metrics`] a running app: the requests (counted by `routes`' request layer), the
//! renders, the connections, the live sockets, the rate limit, the page and card caches,
//! the listings and the phrase sources are its counters and histograms, which the parts
//! that count take as handles; the process series are read from `/proc` when scraped
//! ([`process`]). What is a state rather than a count (connections and sockets open, the
//! feed's health, the phrase count) is read from its owner when `/metrics` is scraped
//! and handed to the same encoder (see `routes::ops`), so every line is written, typed
//! and escaped by one library.
mod process;

use std::time::Duration;

use prometheus::proto::{Counter, Gauge, Metric, MetricFamily, MetricType};
use prometheus::{
    Encoder as _, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    Opts, Registry, TextEncoder,
};

/// Upper bounds of the time buckets of both histograms, in seconds.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The host's own series, in one registry per app (tests run several in one process).
#[derive(Debug)]
pub struct Metrics {
    /// Where every series below is registered, for [`Metrics::encode`].
    registry: Registry,
    /// Responses by route template and status.
    requests: IntCounterVec,
    /// Time to a response's head, by route template.
    latency: HistogramVec,
    /// Renders by duration.
    render: Histogram,
    /// Renders refused because the queue was full.
    render_overflows: IntCounter,
    /// Renders that threw or timed out.
    render_failures: IntCounter,
    /// Connections past the budget answered 503 or closed unanswered.
    pub connections_refused: IntCounter,
    /// Connections closed for sending no request within the request timeout.
    pub connections_idle_closed: IntCounter,
    /// Connections closed because the peer read nothing within the request timeout.
    pub connections_write_stalled: IntCounter,
    /// Accepts the kernel refused (out of file descriptors, usually).
    pub accept_failures: IntCounter,
    /// Messages written to live WebSockets.
    pub socket_messages: IntCounter,
    /// Live sockets that fell behind the broadcast and were sent a snapshot (the first page) instead.
    pub socket_resnapshots: IntCounter,
    /// WebSocket upgrades refused by a cap.
    pub sockets_refused: IntCounter,
    /// Requests answered 429.
    pub rate_limited: IntCounter,
    /// Pages served from the page cache.
    pub cache_hits: IntCounter,
    /// Pages that had to be rendered.
    pub cache_misses: IntCounter,
    /// Phrase cards drawn.
    pub card_renders: IntCounter,
    /// Phrase cards served from the card cache.
    pub card_hits: IntCounter,
    /// Sitemaps and feeds made rather than served as kept.
    pub listings_made: IntCounter,
    /// Documents or stored rows the phrase source skipped for breaking the content rules.
    pub feed_skipped: IntCounter,
    /// Times the embedded store's file went bad under the running host.
    pub feed_store_problems: IntCounter,
    /// Times Firestore disagreed with our list and sent it again.
    pub feed_resyncs: IntCounter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new();
        // The names and options below are constants: registering them cannot fail
        // unless two of them collide, which the tests would show at once.
        let requests = IntCounterVec::new(
            Opts::new(
                "lastwords_http_requests_total",
                "HTTP responses by route and status.",
            ),
            &["route", "status"],
        )
        .expect("valid counter options");
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "lastwords_http_request_duration_seconds",
                "Time from a request's arrival to its response's head, by route (a page's body may stream on).",
            )
            .buckets(BUCKETS.to_vec()),
            &["route"],
        )
        .expect("valid histogram options");
        let render = Histogram::with_opts(
            HistogramOpts::new(
                "lastwords_render_seconds",
                "Time React took to render a page (cache misses only).",
            )
            .buckets(BUCKETS.to_vec()),
        )
        .expect("valid histogram options");
        let render_overflows = IntCounter::new(
            "lastwords_render_queue_overflows_total",
            "Renders refused with 503 because the queue was full.",
        )
        .expect("valid counter options");
        let render_failures = IntCounter::new(
            "lastwords_render_failures_total",
            "Renders that threw or ran out of time.",
        )
        .expect("valid counter options");
        let counter =
            |name: &str, help: &str| IntCounter::new(name, help).expect("valid counter options");
        let connections_refused = counter(
            "lastwords_connections_refused_total",
            "Connections past the budget answered 503 or closed unanswered.",
        );
        let connections_idle_closed = counter(
            "lastwords_connections_idle_closed_total",
            "Connections closed for sending no request within the request timeout.",
        );
        let connections_write_stalled = counter(
            "lastwords_connections_write_stalled_total",
            "Connections closed because the peer read nothing within the request timeout.",
        );
        let accept_failures = counter(
            "lastwords_accept_failures_total",
            "Accepts that failed (out of file descriptors, usually); connections wait in the backlog.",
        );
        let socket_messages = counter(
            "lastwords_websocket_messages_sent_total",
            "Messages written to live WebSockets.",
        );
        let socket_resnapshots = counter(
            "lastwords_websocket_resnapshots_total",
            "Sockets that fell behind and were sent a snapshot (the first page) instead.",
        );
        let sockets_refused = counter(
            "lastwords_websocket_refused_total",
            "WebSocket upgrades refused by a connection cap.",
        );
        let rate_limited = counter(
            "lastwords_rate_limited_total",
            "Requests answered 429 because their client address was past its rate.",
        );
        let cache_hits = counter(
            "lastwords_render_cache_hits_total",
            "Pages served from the render cache.",
        );
        let cache_misses = counter(
            "lastwords_render_cache_misses_total",
            "Pages that had to be rendered.",
        );
        let card_renders = counter(
            "lastwords_card_renders_total",
            "Phrase cards drawn (cache misses).",
        );
        let card_hits = counter(
            "lastwords_card_cache_hits_total",
            "Phrase cards served from the cache.",
        );
        let listings_made = counter(
            "lastwords_listings_made_total",
            "Sitemaps and feeds made rather than served as kept.",
        );
        let feed_skipped = counter(
            "lastwords_feed_documents_skipped_total",
            "Documents or stored rows skipped because they break the content rules (a missing or non-string word or name, invisible or control characters, lengths).",
        );
        let feed_store_problems = counter(
            "lastwords_feed_store_problems_total",
            "Times the embedded store's file became unreadable, replaced by something that is not a phrase store, or damaged under the running host.",
        );
        let feed_resyncs = counter(
            "lastwords_feed_resyncs_total",
            "Times Firestore disagreed with our list and sent it again.",
        );
        let engine = if cfg!(feature = "v8") {
            "v8"
        } else {
            "quickjs"
        };
        let build = IntGauge::with_opts(
            Opts::new(
                "lastwords_build_info",
                "The build: its version and JS engine; always 1.",
            )
            .const_label("version", env!("CARGO_PKG_VERSION"))
            .const_label("engine", engine),
        )
        .expect("valid gauge options");
        build.set(1);
        let collectors: [Box<dyn prometheus::core::Collector>; 22] = [
            Box::new(feed_skipped.clone()),
            Box::new(feed_store_problems.clone()),
            Box::new(feed_resyncs.clone()),
            Box::new(connections_refused.clone()),
            Box::new(connections_idle_closed.clone()),
            Box::new(connections_write_stalled.clone()),
            Box::new(accept_failures.clone()),
            Box::new(cache_hits.clone()),
            Box::new(cache_misses.clone()),
            Box::new(card_renders.clone()),
            Box::new(card_hits.clone()),
            Box::new(listings_made.clone()),
            Box::new(rate_limited.clone()),
            Box::new(requests.clone()),
            Box::new(socket_messages.clone()),
            Box::new(socket_resnapshots.clone()),
            Box::new(sockets_refused.clone()),
            Box::new(latency.clone()),
            Box::new(render.clone()),
            Box::new(render_overflows.clone()),
            Box::new(render_failures.clone()),
            Box::new(build),
        ];
        for collector in collectors {
            registry
                .register(collector)
                .expect("metric names are distinct");
        }
        Self {
            registry,
            requests,
            latency,
            render,
            render_overflows,
            render_failures,
            connections_refused,
            connections_idle_closed,
            connections_write_stalled,
            accept_failures,
            socket_messages,
            socket_resnapshots,
            sockets_refused,
            rate_limited,
            cache_hits,
            cache_misses,
            card_renders,
            card_hits,
            listings_made,
            feed_skipped,
            feed_store_problems,
            feed_resyncs,
        }
    }

    pub fn observe_render(&self, took: Duration) {
        self.render.observe(took.as_secs_f64());
    }

    pub fn render_overflowed(&self) {
        self.render_overflows.inc();
    }

    pub fn render_failed(&self) {
        self.render_failures.inc();
    }

    pub fn count_request(&self, route: &str, status: axum::http::StatusCode, took: Duration) {
        self.requests
            .with_label_values(&[route, status.as_str()])
            .inc();
        self.latency
            .with_label_values(&[route])
            .observe(took.as_secs_f64());
    }

    /// The 200s and 304s of `route` (a template), counted without looking the series up
    /// each time.
    pub fn route_ok(&self, route: &str) -> RouteCount {
        RouteCount {
            requests: self.requests.with_label_values(&[route, "200"]),
            not_modified: self.requests.with_label_values(&[route, "304"]),
            latency: self.latency.with_label_values(&[route]),
        }
    }

    /// Every series in the text format: the registry's, then `sampled` (values other
    /// parts keep, read now) and the process's (open and allowed descriptors, which the
    /// connection budget is made of, memory, CPU seconds, threads, start time), in name
    /// order.
    pub fn encode(&self, sampled: Vec<MetricFamily>) -> String {
        let mut families = self.registry.gather();
        families.extend(sampled);
        families.extend(process::families());
        families.sort_by(|a, b| a.name().cmp(b.name()));
        let mut out = Vec::with_capacity(16 * 1024);
        if let Err(error) = TextEncoder::new().encode(&families, &mut out) {
            tracing::warn!(%error, "a metric could not be written");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

/// One route's answers of 200 and 304 and their time, resolved once (see
/// [`Metrics::route_ok`]).
#[derive(Debug, Clone)]
pub struct RouteCount {
    /// The route's series of 200s in `lastwords_http_requests_total`.
    requests: IntCounter,
    /// And of 304s.
    not_modified: IntCounter,
    /// The route's series in `lastwords_http_request_duration_seconds`.
    latency: Histogram,
}

impl RouteCount {
    pub fn observe(&self, took: Duration) {
        self.requests.inc();
        self.latency.observe(took.as_secs_f64());
    }

    pub fn observe_not_modified(&self, took: Duration) {
        self.not_modified.inc();
        self.latency.observe(took.as_secs_f64());
    }
}

/// A gauge's value as it is now, for [`Metrics::encode`].
pub fn gauge(name: &str, help: &str, value: f64) -> MetricFamily {
    let mut gauge = Gauge::default();
    gauge.set_value(value);
    family(name, help, MetricType::GAUGE, Metric::from_gauge(gauge))
}

/// A count kept elsewhere (the kernel's, for [`process`]), as it is now.
fn counter(name: &str, help: &str, value: f64) -> MetricFamily {
    let mut counter = Counter::default();
    counter.set_value(value);
    let mut metric = Metric::default();
    metric.set_counter(counter);
    family(name, help, MetricType::COUNTER, metric)
}

fn family(name: &str, help: &str, kind: MetricType, metric: Metric) -> MetricFamily {
    let mut family = MetricFamily::default();
    family.set_name(name.to_owned());
    family.set_help(help.to_owned());
    family.set_field_type(kind);
    family.set_metric(vec![metric]);
    family
}
