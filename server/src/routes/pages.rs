//! The site's pages: what each route passes to React and which [`Head`] it has, how a
//! render is cached and wrapped in the document shell, and how it is sent.

use std::ops::Bound;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::error::AppError;
use crate::feed::Snapshot;
use crate::feed::check::{Check, find_text};
use crate::feed::list::{Anchor, Cursor, PAGE_SIZE};
use crate::feed::paging::{PageRequest, PhrasePage};
use crate::net::headers;
use crate::render::head::Head;
use crate::render::negotiate::{Encoding, add_coding_headers, not_modified, preferred_encoding};
use crate::render::page_cache::{CachedPage, PageKey, Span};
use crate::render::pool::RenderError;
use crate::render::props::{RenderRequest, SiteOnly, WordsProps};
use crate::render::shell;
use crate::state::AppState;

pub async fn home(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match home_page(&state).await {
        Ok(page) => page_response(&state, StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

/// A failed page as an HTML page: visitors get words, not JSON. A refused request keeps
/// the JSON answer, which names what was wrong with it. The cause is logged.
pub(super) fn html_error(state: &AppState, error: AppError) -> Response {
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
    after: Option<String>,
    before: Option<String>,
}

pub async fn words(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<WordsQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    let check = query.check.unwrap_or_default();
    // A text no phrase could hold finds nothing out; the checker says what is wrong with it.
    let find = find_text(&check).unwrap_or_default();
    let request = PageRequest::parse(query.after.as_deref(), query.before.as_deref(), None)?;
    let request = PageRequest { find, ..request };
    Ok(match words_page(&state, &check, &request).await {
        Ok(page) => page_response(&state, StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    })
}

pub async fn not_found(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match not_found_page(&state).await {
        Ok(page) => page_response(&state, StatusCode::NOT_FOUND, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

/// An HTML page with its validator, or 304 when the client has it. This is every
/// cached page view the fast path leaves to the router, so the response takes the
/// page's prepared head for its encoding (see [`page_head`]).
pub(super) async fn page_response(
    state: &AppState,
    status: StatusCode,
    headers: &HeaderMap,
    page: Arc<CachedPage>,
) -> Response {
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
    *response.headers_mut() = page_head(&page, encoding, state.config.hsts()).clone();
    response
}

/// Every header of a page's response in `encoding` but the Date and Content-Length
/// hyper writes: its type, validator, caching and coding, and the security headers
/// (HSTS when `hsts`). Made once per page and encoding.
pub(super) fn page_head(page: &CachedPage, encoding: Encoding, hsts: bool) -> &HeaderMap {
    page.head(encoding, || {
        let mut out = HeaderMap::with_capacity(PAGE_HEADERS);
        out.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        out.insert(header::ETAG, page.etag_header.clone());
        add_coding_headers(&mut out, encoding);
        headers::add_security_headers(&mut out, hsts);
        out
    })
}

/// Headers on a page response: its own five, the security headers and HSTS.
const PAGE_HEADERS: usize = 16;

/// The home page, rendered once.
async fn home_page(state: &AppState) -> Result<Arc<CachedPage>, AppError> {
    let page = || {
        let site = state.site_props();
        (
            Head::home(&state.config.site),
            RenderRequest::Home(SiteOnly { site }),
        )
    };
    cached(state, PageKey::Home, page).await
}

/// One page of the phrases page; with `check`, the checker's answer computed on the
/// server and the phrases that contain it.
async fn words_page(
    state: &AppState,
    check: &str,
    request: &PageRequest,
) -> Result<Arc<CachedPage>, AppError> {
    let snapshot = state.feed.current();
    // Built only when a render is due: a cache hit must not cut a page.
    let page = || {
        let config = &state.config.site;
        let site = state.site_props();
        let cut = PhrasePage::cut(&snapshot, request, PAGE_SIZE);
        let head = Head::words(config, check, request, cut.prev.as_ref(), cut.next.as_ref());
        let props = WordsProps {
            site,
            version: snapshot.version,
            loaded: snapshot.loaded,
            count: cut.count,
            phrases: cut.phrases,
            query: &request.find,
            next: cut.next,
            prev: cut.prev,
            check: Check::new(check, &snapshot),
        };
        (head, RenderRequest::Words(props))
    };
    if !check.is_empty() {
        let _turn = state
            .check_renders
            .acquire()
            .await
            .map_err(|_| AppError::Busy)?;
        let (head, request) = page();
        return render(state, &head, &request).await.map(Arc::new);
    }
    match request.anchor() {
        Anchor::First => {
            let key = PageKey::Words {
                version: snapshot.version,
            };
            cached(state, key, page).await
        }
        Anchor::After(cursor) | Anchor::Before(cursor) => {
            let before = matches!(request.anchor(), Anchor::Before(_));
            let at = format!("{}={cursor}", if before { "before" } else { "after" });
            let snapshot = &snapshot;
            state
                .page_cache
                .get_or_render_further(&at, || async move {
                    let span = if before {
                        before_span(cursor, snapshot, request)
                    } else {
                        after_span(cursor, snapshot, request)
                    };
                    let (head, props) = page();
                    let page = render(state, &head, &props).await?;
                    Ok(page.showing(span, snapshot.version))
                })
                .await
        }
    }
}

/// What a page `after` a cursor shows: the places older than the cursor, down to its
/// last phrase (to the end of the list when it has no next page).
fn after_span(cursor: &Cursor, snapshot: &Snapshot, request: &PageRequest) -> Span {
    let page = snapshot
        .list
        .page(request.anchor(), PAGE_SIZE, &request.find);
    Span {
        newest: Bound::Excluded(cursor.clone()),
        oldest: match (&page.next, page.phrases.last()) {
            (Some(_), Some(last)) => Bound::Included(Cursor::of(last)),
            _ => Bound::Unbounded,
        },
    }
}

/// What a page `before` a cursor shows: the places newer than the cursor, up to its
/// first phrase (to the top of the list when it has no previous page).
fn before_span(cursor: &Cursor, snapshot: &Snapshot, request: &PageRequest) -> Span {
    let page = snapshot
        .list
        .page(request.anchor(), PAGE_SIZE, &request.find);
    Span {
        newest: match (&page.prev, page.phrases.first()) {
            (Some(_), Some(first)) => Bound::Included(Cursor::of(first)),
            _ => Bound::Unbounded,
        },
        oldest: Bound::Excluded(cursor.clone()),
    }
}

/// The 404 page. It does not repeat the path, so one cached render serves every miss.
pub(super) async fn not_found_page(state: &AppState) -> Result<Arc<CachedPage>, AppError> {
    let page = || {
        let site = state.site_props();
        (
            Head::not_found(&state.config.site),
            RenderRequest::NotFound(SiteOnly { site }),
        )
    };
    cached(state, PageKey::NotFound, page).await
}

pub(super) async fn cached<'a>(
    state: &'a AppState,
    key: PageKey,
    page: impl FnOnce() -> (Head, RenderRequest<'a>),
) -> Result<Arc<CachedPage>, AppError> {
    let route = key.route();
    // The head and props are built only on a miss; a hit only reads the cache.
    let fresh = state
        .page_cache
        .get_or_render(key.clone(), || async move {
            let (head, request) = page();
            render(state, &head, &request).await
        })
        .await;
    match fresh {
        Ok(page) => Ok(page),
        Err(AppError::Busy) => Err(AppError::Busy),
        Err(error) => match state.page_cache.last_good(&key) {
            Some(page) => {
                tracing::warn!(route, "serving the last good page after a failed render");
                Ok(page)
            }
            None => Err(error),
        },
    }
}

pub(super) async fn render(
    state: &AppState,
    head: &Head,
    request: &RenderRequest<'_>,
) -> Result<CachedPage, AppError> {
    let route = request.route();
    let mut request = serde_json::to_value(request).map_err(|e| AppError::Internal(e.into()))?;
    let props = request
        .get_mut("props")
        .map(serde_json::Value::take)
        .unwrap_or_default();
    let request = format!(r#"{{"route":"{route}","props":{props}}}"#);
    let started = std::time::Instant::now();
    let rendered = state.renderer.render(request).await;
    match &rendered {
        Ok(_) => state.metrics.observe_render(started.elapsed()),
        Err(RenderError::Busy) => state.metrics.render_overflowed(),
        Err(_) => state.metrics.render_failed(),
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
    let head = head.clone();
    tokio::task::spawn_blocking(move || {
        let html = shell::document(&ui.manifest, &head, &body, &props)
            .map_err(|e| AppError::Internal(e.into()))?;
        Ok(CachedPage::new(html))
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?
}
