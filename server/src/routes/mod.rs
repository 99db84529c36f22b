//! The router: every route the site answers, and the layers around them. Apart from any
//! socket, so tests can call it with `.oneshot(request)`.

mod api;
mod card;
mod fast;
mod files;
mod listings;
mod live;
mod ops;
mod pages;
mod phrase;

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tracing::Instrument as _;

use crate::error::{Shed, ToldElsewhere, refusal};
use crate::metrics::Metrics;
use crate::net::client::ClientAddr;
use crate::net::headers;
use crate::net::rate_limit::RateLimit;
use crate::state::AppState;

pub use fast::{FastPath, Hit, Prepared};

/// The whole site as one router.
pub fn router(state: AppState) -> Router {
    let words = state.config.site.words_path();
    let words_capitalised = format!("/{}", state.config.site.product_name);
    let site_files = files::site_files(&state.site_files);
    let router = Router::new()
        .route("/", get(pages::home))
        .route(&words, get(pages::words))
        .route(&words_capitalised, get(pages::words))
        .route(&format!("{words}/"), get(pages::to_words))
        .route(&format!("{words_capitalised}/"), get(pages::to_words))
        .route(&format!("{words}/{{id}}"), get(phrase::phrase))
        .route(&format!("{words_capitalised}/{{id}}"), get(phrase::phrase))
        .route(&format!("{words}/{{id}}/"), get(pages::to_phrase))
        .route(
            &format!("{words_capitalised}/{{id}}/"),
            get(pages::to_phrase),
        )
        .route("/sitemap.xml", get(listings::sitemap))
        .route("/sitemaps/{file}", get(listings::sitemap_child))
        .route(crate::render::site_files::ATOM_FEED, get(listings::atom))
        .route(&format!("{words}/{{id}}/card.png"), get(card::card))
        .route(
            &format!("{words_capitalised}/{{id}}/card.png"),
            get(card::card),
        )
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::scrape))
        .route("/assets/{*path}", get(files::asset))
        .route("/api/phrases", get(api::phrases))
        .route("/api/phrases/check", get(api::check))
        .route("/api/phrases/live", get(live::upgrade))
        .merge(site_files)
        .fallback(pages::not_found);
    let limits = ServiceBuilder::new()
        .layer(middleware::from_fn_with_state(state.clone(), every_request))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            state.config.http.request_timeout,
        ))
        .layer(DefaultBodyLimit::max(headers::MAX_BODY))
        .layer(GlobalConcurrencyLimitLayer::new(
            state.config.http.max_concurrent_requests,
        ));
    router.layer(limits).with_state(state)
}

/// What every request gets, in one layer rather than one each (a `from_fn` layer costs
/// a boxed future and a boxed clone of the service inside it per request, and this is
/// the whole cost of a cached page beside hyper's): its span and count, the refusal of
/// a malformed request, and the security headers (HSTS in production) on every answer,
/// a timeout's or an overload's too.
async fn every_request(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let (app, limit, metrics) = (&state, &state.rate_limit, &state.metrics);
    let api = answers_in_json(request.uri().path());
    let mut response = track(metrics, request, |request| async move {
        if let Some((status, why)) = headers::problem(&request) {
            return if wants_page(&request) {
                pages::broken_address(app, request.uri().path(), status, &why)
            } else {
                refusal(status, why)
            };
        }
        if let Some(refusal) = rate_limited(app, limit, &request) {
            metrics.rate_limited.inc();
            return refusal;
        }
        next.run(request).await
    })
    .await;
    // The timeout layer answers with an empty body; say what happened, as every other
    // refusal does.
    if response.status() == StatusCode::REQUEST_TIMEOUT
        && !response.headers().contains_key(header::CONTENT_TYPE)
    {
        response = crate::error::refusal(
            StatusCode::REQUEST_TIMEOUT,
            format_args!(
                "the request was not answered within {} s; try again",
                state.config.http.request_timeout.as_secs()
            ),
        );
    }
    // axum's 405 has no body: say what is answered, as every other refusal does.
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && !response.headers().contains_key(header::CONTENT_TYPE)
    {
        let allow = response.headers().get(header::ALLOW).cloned();
        response = refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            if api {
                "the API answers GET and HEAD only"
            } else {
                "this address answers GET and HEAD only"
            },
        );
        if let Some(allow) = allow {
            response.headers_mut().insert(header::ALLOW, allow);
        }
    }
    if api {
        response = crate::error::in_json(response);
    }
    // Those not made by `refusal` (axum's 405, a handler's own) are kept by no cache either.
    if (response.status().is_client_error() || response.status().is_server_error())
        && !response.headers().contains_key(header::CACHE_CONTROL)
    {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, crate::error::NOT_STORED);
    }
    headers::add_security_headers(response.headers_mut(), state.config.hsts());
    response
}

/// Whether a path is the JSON API's, whose refusals are JSON too. Not the live feed's,
/// whose clients are WebSockets: a refused handshake says why in a line of text.
fn answers_in_json(path: &str) -> bool {
    path.starts_with("/api/") && path != "/api/phrases/live"
}

/// Whether a request is a browser's for a page (a GET or HEAD that takes HTML, outside
/// the API and the assets), which is answered a page when it cannot be served.
fn wants_page(request: &Request) -> bool {
    let path = request.uri().path();
    matches!(*request.method(), Method::GET | Method::HEAD)
        && !path.starts_with("/api/")
        && !path.starts_with("/assets/")
        && request
            .headers()
            .get_all(header::ACCEPT)
            .iter()
            .any(|accept| memchr::memmem::find(accept.as_bytes(), b"text/html").is_some())
}

/// 429 with `Retry-After` for a client past its rate; the probes and `/metrics` (for
/// those who may read it) are never limited (a load balancer or Prometheus behind one
/// address asks them often), nor the UI's build under `/assets/`: served from memory, it
/// costs no render, and a page's forty of them, fetched by every cold cache at once
/// behind one address (a school, a carrier's NAT), spent the bucket's burst in a few
/// page views and left the pages without their script and pictures.
fn rate_limited(app: &AppState, limit: &RateLimit, request: &Request) -> Option<Response> {
    match request.uri().path() {
        "/healthz" | "/readyz" => return None,
        "/metrics" if ops::may_scrape(app, request) => return None,
        path if path.starts_with("/assets/") => return None,
        _ => {}
    }
    let ClientAddr(client) = *request.extensions().get::<ClientAddr>()?;
    let wait = limit.check(client).err()?;
    let mut response = refusal(
        StatusCode::TOO_MANY_REQUESTS,
        "too many requests from this address; slow down and try again",
    );
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    Some(response)
}

/// What a connection past the budget is served: the probes and `/metrics` (the moment
/// an operator most wants them), and 503 for the rest, each
/// closing the connection after the answer.
pub fn probe_router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::scrape))
        .fallback(ops::too_many_connections)
        .layer(SetResponseHeaderLayer::overriding(
            header::CONNECTION,
            HeaderValue::from_static("close"),
        ))
        .layer(middleware::from_fn(headers::reject_malformed))
        .layer(middleware::from_fn_with_state(state.clone(), secured))
        .with_state(state)
}

/// The security headers (HSTS in production) on a reserve connection's answers too.
async fn secured(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    headers::add_security_headers(response.headers_mut(), state.config.hsts());
    response
}

/// How often a run of refusals for want of room is told again while it lasts.
const SHEDDING_REPEAT: Duration = Duration::from_secs(60);

/// The run of refusals for want of room under way: when it was last told, how many
/// came since, and when the last came (a minute without one ends the run).
static SHEDDING: Mutex<Shedding> = Mutex::new(Shedding {
    told: None,
    last: None,
    since: 0,
});

struct Shedding {
    told: Option<Instant>,
    last: Option<Instant>,
    since: u64,
}

impl Shedding {
    /// Told at the first refusal of a run, then once a minute with the count while they
    /// go on; the ones at the end of the last run that were not told yet are told with
    /// the next run's first.
    fn refused(&mut self, why: &'static str) {
        let now = Instant::now();
        let new_run = self
            .last
            .is_none_or(|last| now.duration_since(last) >= SHEDDING_REPEAT);
        self.last = Some(now);
        if new_run {
            let untold = std::mem::take(&mut self.since);
            tracing::warn!(
                untold,
                "refusing work for want of room: {why}; told again once a minute while it lasts"
            );
            self.told = Some(now);
        } else if self
            .told
            .is_none_or(|told| now.duration_since(told) >= SHEDDING_REPEAT)
        {
            let refused = std::mem::take(&mut self.since) + 1;
            tracing::warn!(refused, "still refusing work for want of room: {why}");
            self.told = Some(now);
        } else {
            self.since += 1;
        }
    }
}

/// Runs `inner` on `request` and counts its response; a response of 500 or more is
/// logged with the request's method, route, status, latency and client address. Routes are the
/// router's templates, so `/assets/{*path}` is one series, not one per file.
async fn track<F>(metrics: &Metrics, request: Request, inner: impl FnOnce(Request) -> F) -> Response
where
    F: Future<Output = Response>,
{
    // A clone of the matched path is a reference count, not a copy of the text.
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let route = matched.as_ref().map_or("unmatched", |path| path.as_str());
    let method = request.method().clone();
    let client = request
        .extensions()
        .get::<ClientAddr>()
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
    let status = response.status();
    let took = started.elapsed();
    let latency_ms = took.as_secs_f64() * 1000.0;
    // A probe's 503 is its answer (the host draining, or its store down, which is logged
    // where it happens), not a request that failed.
    if let Some(&Shed(why)) = response.extensions().get::<Shed>() {
        SHEDDING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .refused(why);
    } else if status.is_server_error()
        && route != "/readyz"
        && response.extensions().get::<ToldElsewhere>().is_none()
    {
        let client = client.map(tracing::field::display);
        tracing::warn!(method = %method, route, status = status.as_u16(), latency_ms, client, "request failed");
    } else if !span.is_disabled() {
        span.record("status", status.as_u16());
        span.record("latency_ms", latency_ms);
        span.in_scope(|| tracing::debug!("request"));
    }
    metrics.count_request(route, status, took);
    response
}
