//! The router: every route the site answers, and the layers around them. Apart from any
//! socket, so tests can call it with `.oneshot(request)`.

mod api;
mod files;
mod live;
mod ops;
mod pages;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware;
use axum::routing::get;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;

use crate::headers;
use crate::metrics;
use crate::state::AppState;

/// The whole site as one router.
pub fn router(state: AppState) -> Router {
    let words = state.config.site.words_path();
    let words_capitalised = format!("/{}", state.config.site.product_name);
    let site_files = files::site_files(&state.site_files);
    let mut router = Router::new()
        .route("/", get(pages::home))
        .route(&words, get(pages::words))
        .route(&words_capitalised, get(pages::words))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::scrape))
        .route("/assets/{*path}", get(files::asset))
        .route("/api/phrases", get(api::phrases))
        .route("/api/phrases/check", get(api::check))
        .route("/api/phrases/live", get(live::upgrade))
        .merge(site_files)
        .fallback(pages::not_found)
        .layer(middleware::from_fn(headers::reject_malformed))
        .layer(middleware::from_fn_with_state(
            state.metrics.clone(),
            metrics::track,
        ));
    if state.config.hsts() {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=63072000; includeSubDomains"),
        ));
    }
    let limits = ServiceBuilder::new()
        .layer(middleware::from_fn(headers::security_headers))
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
        .with_state(state)
}
