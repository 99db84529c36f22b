//! The router and its handlers, apart from any socket so tests can call it directly.

use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;

use crate::assets::{self, Ui};
use crate::config::Config;
use crate::connections::{self, Connections};
use crate::error::AppError;
use crate::http::{self, encoded, page_response};
use crate::hub::Hub;
use crate::live::{self, SocketLimits};
use crate::metrics::{self, Metrics};
use crate::page_cache::PageCache;
use crate::pages;
use crate::renderer::{PoolOptions, RenderError, RendererPool};
use crate::shell;
use crate::site_files::SiteFiles;
use crate::snapshot::Feed;
use crate::text::NormalizedWord;

/// Everything the handlers share.
#[derive(Clone)]
pub struct AppState {
    /// The effective configuration.
    pub config: Arc<Config>,
    /// The threads that run React.
    pub renderer: RendererPool,
    /// Rendered pages by route and data version.
    pub pages: Arc<PageCache>,
    /// The current phrase list.
    pub feed: Feed,
    /// Fans the feed out to every WebSocket.
    pub hub: Hub,
    /// Cancelled when the server stops, so long-lived sockets close with 1001.
    pub shutdown: CancellationToken,
    /// The embedded UI build.
    pub ui: Arc<Ui>,
    /// The site facts every page receives, built once from the configuration.
    site: Arc<serde_json::Value>,
    /// robots.txt, the sitemap, icons and the Open Graph image.
    pub site_files: Arc<SiteFiles>,
    /// Live sockets under their caps.
    pub sockets: Arc<SocketLimits>,
    /// Open TCP connections under the budget and in the reserve.
    pub connections: Arc<Connections>,
    /// Request, render and feed counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Turns for the renders of `/words?check=` (each is a render of its own): one fewer
    /// than the renderers, at least one, so a flood of them always leaves the pages'
    /// own renders a renderer.
    pub check_renders: Arc<Semaphore>,
}

impl AppState {
    /// Starts the renderers (each loads the server bundle; this blocks for a moment)
    /// and the hub. Call it inside a tokio runtime.
    pub fn start(config: Arc<Config>, ui: Ui, feed: Feed) -> Result<Self, RenderError> {
        let renderer = RendererPool::start(
            ui.server_bundle.into(),
            PoolOptions {
                threads: config.render_threads,
                timeout: config.render_timeout,
                queue: config.render_queue,
            },
        )?;
        let site = json!({
            "productName": config.product_name,
            "baseUrl": config.public_url.as_str().trim_end_matches('/'),
            "links": config.links,
            "pressEmail": config.press_email,
        });
        let site_files = Arc::new(SiteFiles::new(&config, ui.icon_svg, ui.images));
        Ok(Self {
            metrics: Arc::default(),
            check_renders: Arc::new(Semaphore::new(config.render_threads.max(2) - 1)),
            sockets: SocketLimits::new(config.max_sockets, config.max_sockets_per_ip),
            connections: Connections::new(connections::budget(config.max_connections)),
            site_files,
            config,
            renderer,
            pages: Arc::default(),
            hub: Hub::start(feed.clone()),
            feed,
            shutdown: CancellationToken::new(),
            ui: Arc::new(ui),
            site: Arc::new(site),
        })
    }

    /// The site facts every page receives.
    pub fn site_props(&self) -> serde_json::Value {
        (*self.site).clone()
    }
}

/// The whole site as one router.
pub fn router(state: AppState) -> Router {
    let words = state.config.words_path();
    let words_capitalised = format!("/{}", state.config.product_name);
    let site_files = state.site_files.routes();
    let mut router = Router::new()
        .route("/", get(home))
        .route(&words, get(words_page))
        .route(&words_capitalised, get(words_page))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::scrape))
        .route("/assets/{*path}", get(asset))
        .route("/api/phrases", get(api_phrases))
        .route("/api/phrases/check", get(api_check))
        .route("/api/phrases/live", get(live::upgrade))
        .merge(site_files)
        .fallback(not_found)
        .layer(middleware::from_fn(http::reject_malformed))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ));
    if state.config.hsts() {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=63072000; includeSubDomains"),
        ));
    }
    let limits = ServiceBuilder::new()
        .layer(middleware::from_fn(http::security_headers))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            state.config.request_timeout,
        ))
        .layer(DefaultBodyLimit::max(http::MAX_BODY))
        .layer(GlobalConcurrencyLimitLayer::new(
            state.config.max_concurrent_requests,
        ));
    router.layer(limits).with_state(state)
}

/// What a connection past the budget is served: the probes and `/metrics` (the moment
/// an operator most wants them), and 503 for the rest, each
/// closing the connection after the answer.
pub fn probe_router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::scrape))
        .fallback(too_many_connections)
        .layer(SetResponseHeaderLayer::overriding(
            header::CONNECTION,
            HeaderValue::from_static("close"),
        ))
        .layer(middleware::from_fn(http::reject_malformed))
        .with_state(state)
}

async fn too_many_connections(State(state): State<AppState>) -> Response {
    state
        .connections
        .refused
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "5")],
        "too many connections; try again shortly\n",
    )
        .into_response()
}

async fn home(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match pages::home(&state).await {
        Ok(page) => page_response(StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

/// A failed page as an HTML page: visitors get words, not JSON. The cause is logged.
fn html_error(state: &AppState, error: AppError) -> Response {
    let (status, title, message) = match &error {
        AppError::Busy | AppError::Unavailable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Too busy right now",
            "So many visitors at once that this page could not be prepared. Try again in a moment.",
        ),
        AppError::BadRequest { .. } | AppError::NotFound => return error.into_response(),
        AppError::Internal(cause) => {
            tracing::error!(error = %format!("{cause:#}"), "page failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "This page could not be prepared. It is our fault, not yours; try again in a minute.",
            )
        }
    };
    let html = shell::error_document(&state.ui.manifest, title, message);
    let mut response = (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        html,
    )
        .into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

#[derive(Deserialize)]
struct WordsQuery {
    check: Option<String>,
}

async fn words_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<WordsQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    Ok(match pages::words(&state, query.check.as_deref()).await {
        Ok(page) => page_response(StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    })
}

async fn not_found(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match pages::not_found(&state).await {
        Ok(page) => page_response(StatusCode::NOT_FOUND, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

async fn healthz() -> &'static str {
    "ok"
}

/// Ready once the renderers run (they start before the router exists) and the feed has
/// delivered a complete list, and for as long as the source has not been unreachable
/// longer than `ready_stale_after`. A load balancer stops sending visitors meanwhile.
async fn readyz(State(state): State<AppState>) -> Response {
    let health = state.feed.health();
    let problem = match (health.since_sync(), health.down_for()) {
        (None, _) => Some("the phrase list has not loaded yet".to_owned()),
        (Some(_), Some(down)) if down > state.config.ready_stale_after => Some(format!(
            "the phrase source has been unreachable for {} s",
            down.as_secs()
        )),
        _ => None,
    };
    match problem {
        None => (StatusCode::OK, "ready").into_response(),
        Some(problem) => (StatusCode::SERVICE_UNAVAILABLE, problem).into_response(),
    }
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let Some(asset) = assets::find(&path) else {
        return (StatusCode::NOT_FOUND, "no such asset").into_response();
    };
    let (mut out, body) = encoded(
        &headers,
        asset.body.into(),
        asset.gzip.map(Into::into),
        asset.br.map(Into::into),
    );
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(assets::content_type(&path)),
    );
    out.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    (out, body).into_response()
}

async fn api_phrases(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let snapshot = state.feed.current();
    if !snapshot.loaded {
        return AppError::Unavailable(
            "the list of minted phrases has not loaded yet; try again shortly",
        )
        .into_response();
    }
    let etag = format!("\"v{}\"", snapshot.version);
    let etag_value = HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""));
    if http::not_modified(&headers, &etag) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag_value)]).into_response();
    }
    let body = json!({ "version": snapshot.version, "phrases": snapshot.phrases });
    (
        [
            (header::ETAG, etag_value),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        axum::Json(body),
    )
        .into_response()
}

#[derive(Deserialize)]
struct CheckQuery {
    word: Option<String>,
}

async fn api_check(
    State(state): State<AppState>,
    query: Result<Query<CheckQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    let word = query
        .word
        .ok_or_else(|| AppError::bad_request("give the word to check as ?word=..."))?;
    let normalized = NormalizedWord::validated(&word)
        .map_err(|error| AppError::bad_request(error.to_string()))?;
    let snapshot = state.feed.current();
    if !snapshot.loaded {
        return Err(AppError::Unavailable(
            "the list of minted phrases has not loaded yet; try again shortly",
        ));
    }
    Ok(axum::Json(json!({
        "word": normalized.word,
        "length": normalized.length,
        "available": !snapshot.is_taken(&normalized.word),
        "version": snapshot.version,
    }))
    .into_response())
}
