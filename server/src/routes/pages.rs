//! The site's pages: what each route passes to React, what its `<head>` says, how a
//! render is cached and wrapped in the document shell, and how it is sent.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::check::Check;
use crate::config::Config;
use crate::error::AppError;
use crate::negotiate::{Encoding, add_coding_headers, not_modified, preferred_encoding};
use crate::page_cache::{Page, PageKey};
use crate::renderer::RenderError;
use crate::shell::{self, Head};
use crate::site_files;
use crate::state::AppState;

pub async fn home(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match home_page(&state).await {
        Ok(page) => page_response(StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

/// A failed page as an HTML page: visitors get words, not JSON. A refused request keeps
/// the JSON answer, which names what was wrong with it. The cause is logged.
fn html_error(state: &AppState, error: AppError) -> Response {
    let (title, message) = match error.status() {
        status if status.is_client_error() => return error.into_response(),
        StatusCode::SERVICE_UNAVAILABLE => (
            "Too busy right now",
            "So many visitors at once that this page could not be prepared. Try again in a moment.",
        ),
        _ => (
            "Something went wrong",
            "This page could not be prepared. It is our fault, not yours; try again in a minute.",
        ),
    };
    error.log("page failed");
    let html = shell::error_document(&state.ui.manifest, title, message);
    error.respond((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        html,
    ))
}

#[derive(Deserialize)]
pub struct WordsQuery {
    check: Option<String>,
}

pub async fn words(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<WordsQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    Ok(match words_page(&state, query.check.as_deref()).await {
        Ok(page) => page_response(StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    })
}

pub async fn not_found(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match not_found_page(&state).await {
        Ok(page) => page_response(StatusCode::NOT_FOUND, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

/// An HTML page with its validator, or 304 when the client has it. This is every
/// cached page view, so the response is written straight into one header map sized
/// for it and the security headers added after (nothing built per request and
/// copied over).
async fn page_response(status: StatusCode, headers: &HeaderMap, page: Arc<Page>) -> Response {
    if status == StatusCode::OK && not_modified(headers, &page.etag) {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        response
            .headers_mut()
            .insert(header::ETAG, page.etag_header.clone());
        return response;
    }
    let wanted = preferred_encoding(headers);
    let (encoding, body) = match page.ready(wanted) {
        Some(body) => (wanted, body),
        // The first client of an encoding has the page compressed, off the async threads.
        None => {
            let compressing = page.clone();
            match tokio::task::spawn_blocking(move || compressing.encode(wanted)).await {
                Ok(body) => (wanted, body),
                Err(_) => (Encoding::Identity, page.html.clone()),
            }
        }
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let out = response.headers_mut();
    out.reserve(PAGE_HEADERS);
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    out.insert(header::ETAG, page.etag_header.clone());
    add_coding_headers(out, encoding);
    response
}

/// Headers on a page response: its own five, the security headers, HSTS and the
/// Date and Content-Length hyper writes.
const PAGE_HEADERS: usize = 16;

/// The home page, rendered once.
async fn home_page(state: &AppState) -> Result<Arc<Page>, AppError> {
    let page = || {
        let head = Head {
            title: "Dinos — the NFT collection that saves the world".into(),
            description: "Dinos is a donation-driven collection of dinosaur NFTs that raises money for climate non-profits. Leave your Last Words before the meteor hits.".into(),
            canonical: state.config.absolute_url("/"),
            indexable: true,
            image: state.config.absolute_url(site_files::OG_IMAGE),
            structured_data: Some(organization(&state.config)),
        };
        (head, json!({ "site": state.site_props() }))
    };
    cached(state, PageKey::Home, "home", page).await
}

/// The phrases page; with `check`, the checker's answer computed on the server.
async fn words_page(state: &AppState, check: Option<&str>) -> Result<Arc<Page>, AppError> {
    let snapshot = state.feed.current();
    // Built only when a render is due: a cache hit must not copy 200 phrases.
    let page = || {
        let config = &state.config;
        let head = Head {
            title: format!("Already-minted Last {} — Dinos", config.product_name),
            description: format!(
                "Every Last {} already minted by the Dinos community, and a checker to see whether yours is still free.",
                config.product_name
            ),
            canonical: config.absolute_url(&config.words_path()),
            indexable: true,
            image: config.absolute_url(site_files::OG_IMAGE),
            structured_data: None,
        };
        let props = json!({
            "site": state.site_props(),
            "version": snapshot.version,
            "phrases": snapshot.phrases,
            "loaded": snapshot.loaded,
            "check": Check::new(check.unwrap_or_default(), &snapshot),
        });
        (head, props)
    };
    // An empty check is the page everyone gets.
    match check.filter(|word| !word.is_empty()) {
        None => {
            let key = PageKey::Words {
                version: snapshot.version,
            };
            cached(state, key, "words", page).await
        }
        Some(_) => {
            let _turn = state
                .check_renders
                .acquire()
                .await
                .map_err(|_| AppError::Busy)?;
            let (head, props) = page();
            render(state, "words", &head, &props).await.map(Arc::new)
        }
    }
}

/// The 404 page. It does not repeat the path, so one cached render serves every miss.
async fn not_found_page(state: &AppState) -> Result<Arc<Page>, AppError> {
    let page = || {
        let head = Head {
            title: "Page not found — Dinos".into(),
            description: "This page does not exist. The meteor may have got it.".into(),
            canonical: state.config.absolute_url("/"),
            indexable: false,
            image: state.config.absolute_url(site_files::OG_IMAGE),
            structured_data: None,
        };
        (head, json!({ "site": state.site_props(), "path": "" }))
    };
    cached(state, PageKey::NotFound, "not_found", page).await
}

/// schema.org's description of who runs the site, for search engines.
fn organization(config: &Config) -> String {
    let links = &config.links;
    shell::inert_json(&json!({
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": "Dinos",
        "url": config.absolute_url("/"),
        "logo": config.absolute_url(site_files::ICON_512),
        "description": "A donation-driven collection of dinosaur NFTs that raises money for climate non-profits.",
        "email": config.press_email,
        "sameAs": [links.chat, links.social, links.marketplace, links.blog],
    }))
}

async fn cached(
    state: &AppState,
    key: PageKey,
    route: &str,
    page: impl FnOnce() -> (Head, serde_json::Value),
) -> Result<Arc<Page>, AppError> {
    // The head and props are built only on a miss; a hit only reads the cache.
    let fresh = state
        .page_cache
        .get_or_render(key, || async move {
            let (head, props) = page();
            render(state, route, &head, &props).await
        })
        .await;
    match fresh {
        Ok(page) => Ok(page),
        Err(AppError::Busy) => Err(AppError::Busy),
        Err(error) => match state.page_cache.last_good(key) {
            Some(page) => {
                tracing::warn!(route, "serving the last good page after a failed render");
                Ok(page)
            }
            None => Err(error),
        },
    }
}

async fn render(
    state: &AppState,
    route: &str,
    head: &Head,
    props: &serde_json::Value,
) -> Result<Page, AppError> {
    let request = json!({ "route": route, "props": props }).to_string();
    let started = std::time::Instant::now();
    let rendered = state.renderer.render(request).await;
    match &rendered {
        Ok(_) => state.metrics.observe_render(started.elapsed()),
        Err(RenderError::Busy) => {
            state
                .metrics
                .render_overflows
                .fetch_add(1, Ordering::Relaxed);
        }
        Err(_) => {
            state
                .metrics
                .render_failures
                .fetch_add(1, Ordering::Relaxed);
        }
    }
    let body = rendered.map_err(|error| match error {
        RenderError::Busy => AppError::Busy,
        RenderError::Js { message, stack } => {
            tracing::error!(route, %message, stack = stack.as_deref().unwrap_or(""), "render threw");
            AppError::Internal(anyhow::anyhow!("render of {route} threw: {message}"))
        }
        other => AppError::Internal(anyhow::anyhow!("render of {route} failed: {other}")),
    })?;
    // The shell, hash and compression take milliseconds of CPU: off the async threads,
    // so sockets and timeouts keep being served meanwhile.
    let ui = state.ui.clone();
    let (head, props) = (head.clone(), props.clone());
    tokio::task::spawn_blocking(move || {
        let html = shell::document(&ui.manifest, &head, &body, &props)
            .map_err(|e| AppError::Internal(e.into()))?;
        Ok(Page::new(html))
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?
}
