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

/// Upper bounds of the time buckets of both histograms, in seconds.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Durations in [`BUCKETS`]. Each observation adds to its one bucket (three atomic
/// adds on the request path); the cumulative counts Prometheus wants are summed when
/// scraped.
#[derive(Debug, Default)]
struct Histogram {
    /// Observations per bucket, the last for those above every bound.
    buckets: [AtomicU64; BUCKETS.len() + 1],
    micros: AtomicU64,
}

impl Histogram {
    fn observe(&self, took: Duration) {
        let seconds = took.as_secs_f64();
        let bucket = BUCKETS.partition_point(|bound| *bound < seconds);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// The series of `name` with `labels` (`route="/words",` or empty).
    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let mut total = 0;
        for (count, bound) in self.buckets.iter().zip(BUCKETS) {
            total += count.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}le=\"{bound}\"}} {total}");
        }
        total += self.buckets[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}le=\"+Inf\"}} {total}");
        let micros = self.micros.load(Ordering::Relaxed) as f64 / 1e6;
        let labels = labels.trim_end_matches(',');
        let braces = |labels: &str| {
            if labels.is_empty() {
                String::new()
            } else {
                format!("{{{labels}}}")
            }
        };
        let _ = writeln!(out, "{name}_sum{} {micros}", braces(labels));
        let _ = writeln!(out, "{name}_count{} {total}", braces(labels));
    }
}

/// One route's responses by status and their time.
#[derive(Debug, Default)]
struct RouteCounts {
    statuses: Vec<(u16, AtomicU64)>,
    latency: Histogram,
}

/// The host's own counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Responses by route template, then status code, and their time. Keyed by the
    /// route alone so a request's count is found from its `&str` without allocating.
    requests: RwLock<HashMap<String, RouteCounts>>,
    /// Renders by duration.
    render: Histogram,
    /// Renders refused because the queue was full.
    pub render_overflows: AtomicU64,
    /// Renders that threw or timed out.
    pub render_failures: AtomicU64,
}

impl Metrics {
    pub fn observe_render(&self, took: Duration) {
        self.render.observe(took);
    }

    /// Counts one response of `route` (its template) with `status`, which took `took`.
    pub fn count_request(&self, route: &str, status: u16, took: Duration) {
        let count = |counts: &RouteCounts| {
            let counter = counts.statuses.iter().find(|(known, _)| *known == status)?;
            counter.1.fetch_add(1, Ordering::Relaxed);
            counts.latency.observe(took);
            Some(())
        };
        let requests = self.requests.read().unwrap_or_else(|e| e.into_inner());
        if requests.get(route).and_then(count).is_some() {
            return;
        }
        drop(requests);
        let mut requests = self.requests.write().unwrap_or_else(|e| e.into_inner());
        let counts = requests.entry(route.to_owned()).or_default();
        if count(counts).is_none() {
            counts.statuses.push((status, AtomicU64::new(1)));
            counts.latency.observe(took);
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
    let took = started.elapsed();
    let latency_ms = took.as_secs_f64() * 1000.0;
    if status >= 500 {
        tracing::warn!(method = %method, route, status, latency_ms, client = ?client, "request failed");
    } else if !span.is_disabled() {
        span.record("status", status);
        span.record("latency_ms", latency_ms);
        span.in_scope(|| tracing::debug!("request"));
    }
    metrics.count_request(route, status, took);
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
                .flat_map(|(route, counts)| {
                    counts
                        .statuses
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
            help(
                out,
                "lastwords_http_request_duration_seconds",
                "histogram",
                "Time from a request's arrival to its response's head, by route (a page's body may stream on).",
            );
            let mut routes: Vec<_> = requests.iter().collect();
            routes.sort_by_key(|&(route, _)| route);
            for (route, counts) in routes {
                counts.latency.write(
                    out,
                    "lastwords_http_request_duration_seconds",
                    &format!("route=\"{}\",", label(route)),
                );
            }
        }

        help(
            out,
            "lastwords_render_seconds",
            "histogram",
            "Time React took to render a page (cache misses only).",
        );
        m.render.write(out, "lastwords_render_seconds", "");
    }
}

/// The process series every Prometheus client writes (open and allowed descriptors,
/// which the connection budget is made of; resident memory; CPU; start time), read
/// from `/proc` when scraped, and the build.
pub fn write_process(out: &mut String) {
    let ticks = rustix::param::clock_ticks_per_second() as f64;
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which may hold spaces and ends with ") ".
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map_or(Vec::new(), |(_, rest)| rest.split(' ').collect());
    let field = |n: usize| fields.get(n).and_then(|f| f.parse::<f64>().ok());
    // utime and stime are fields 14 and 15 of stat(5), starttime 22; `fields` starts at 3.
    let cpu = field(11)
        .zip(field(12))
        .map(|(user, system)| (user + system) / ticks);
    let boot = std::fs::read_to_string("/proc/stat").ok().and_then(|text| {
        text.lines()
            .find_map(|line| line.strip_prefix("btime "))
            .and_then(|value| value.trim().parse::<f64>().ok())
    });
    let start = boot
        .zip(field(19))
        .map(|(boot, since)| boot + since / ticks);
    let resident = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|value| {
                    value
                        .trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<f64>()
                        .ok()
                })
        })
        .map(|kib| kib * 1024.0);
    let open = std::fs::read_dir("/proc/self/fd")
        .map(|dir| dir.count() as f64)
        .ok();
    let max = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .map(|n| n as f64);
    let series = [
        (
            "process_cpu_seconds_total",
            "counter",
            "User and system CPU time spent, in seconds.",
            cpu,
        ),
        (
            "process_open_fds",
            "gauge",
            "Open file descriptors (connections, WebSockets, files).",
            open,
        ),
        (
            "process_max_fds",
            "gauge",
            "The open-file limit (its soft value).",
            max,
        ),
        (
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory, in bytes.",
            resident,
        ),
        (
            "process_start_time_seconds",
            "gauge",
            "When the process started, in seconds since the Unix epoch.",
            start,
        ),
    ];
    for (name, kind, text, value) in series {
        if let Some(value) = value {
            help(out, name, kind, text);
            let _ = writeln!(out, "{name} {value}");
        }
    }
    help(
        out,
        "lastwords_build_info",
        "gauge",
        "The build: its version and JS engine; always 1.",
    );
    let engine = if cfg!(feature = "v8") {
        "v8"
    } else {
        "quickjs"
    };
    let _ = writeln!(
        out,
        "lastwords_build_info{{version=\"{}\",engine=\"{engine}\"}} 1",
        env!("CARGO_PKG_VERSION")
    );
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
