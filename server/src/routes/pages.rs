//! The site's pages: what each route passes to React and which [`Head`] it has, which
//! page of the cache it is (the render service, [`crate::render::service`], makes and
//! keeps it), and how it is sent.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;

use crate::error::AppError;
use crate::feed::check::{Check, find_text};
use crate::feed::list::{Anchor, PAGE_SIZE};
use crate::feed::paging::{PageRequest, PhrasePage};
use crate::net::headers::{self, PreparedHead};
use crate::render::head::Head;
use crate::render::negotiate::{Encoding, add_coding_headers, not_modified, preferred_encoding};
use crate::render::page_cache::{CachedPage, PageKey, Span};
use crate::render::props::{Missing, RenderRequest, SiteOnly, WordsProps};
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
    let html = shell::error_document(&state.ui.get().manifest, title, message);
    error_page(&error, html)
}

/// A request no page could answer well (see [`headers::problem`]), from a browser
/// following a link: a page that says why, leading to the list (from its address or a
/// phrase's) or home, rather than a line of text.
pub(super) fn broken_address(
    state: &AppState,
    path: &str,
    status: StatusCode,
    why: &str,
) -> Response {
    let site = &state.config.site;
    let (title, message) = match status {
        StatusCode::BAD_REQUEST => (
            "This link is broken",
            format!("Its address was cut or changed on the way: {why}."),
        ),
        StatusCode::URI_TOO_LONG => ("This link is too long", format!("{}.", capitalised(why))),
        _ => (
            "This request is too large",
            format!("{}.", capitalised(why)),
        ),
    };
    let words = site.words_path();
    let list = format!("All Last {}", site.product_name);
    let under_words = path
        .as_bytes()
        .get(..words.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(words.as_bytes()));
    let back = if under_words {
        (words.as_str(), list.as_str())
    } else {
        ("/", "Back to the home page")
    };
    let html = shell::error_document_back(&state.ui.get().manifest, title, &message, back);
    (status, UNSTORED_HTML, html).into_response()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The headers of a page made without React: HTML, kept by no cache.
const UNSTORED_HTML: [(HeaderName, HeaderValue); 2] = [
    (
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    ),
    (header::CACHE_CONTROL, crate::error::NOT_STORED),
];

/// `html` (a page made without React) as the answer to `error`, kept by no cache.
fn error_page(error: &AppError, html: String) -> Response {
    error.respond((UNSTORED_HTML, html))
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
    let query = query.map_err(|e| AppError::bad_request(e.body_text()));
    let parsed = query.and_then(|Query(query)| {
        let request = PageRequest::parse(query.after.as_deref(), query.before.as_deref(), None)?;
        Ok((query, request))
    });
    let (query, request) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return Ok(broken_link(&state, &error)),
    };
    let check = query.check.unwrap_or_default();
    // A text no phrase could hold finds nothing out; the checker says what is wrong with it.
    let find = find_text(&check).unwrap_or_default();
    let request = PageRequest { find, ..request };
    if past_the_end(&state, &request) {
        return Ok(empty_page(&state));
    }
    let request = if reaches_the_newest(&state, &request) {
        PageRequest {
            before: None,
            ..request
        }
    } else {
        request
    };
    Ok(match words_page(&state, &check, &request).await {
        Ok(page) => page_response(&state, StatusCode::OK, &headers, page).await,
        Err(error) => html_error(&state, error),
    })
}

/// Whether `request` asks for a page of the whole list with nothing on it: its link
/// came after phrases since removed, or its cursor was made up beyond either end.
fn past_the_end(state: &AppState, request: &PageRequest) -> bool {
    let snapshot = state.feed.current();
    !matches!(request.anchor(), Anchor::First)
        && request.find.is_empty()
        && snapshot.loaded
        && snapshot
            .list
            .page(request.anchor(), 1, "")
            .phrases
            .is_empty()
}

/// Whether `request` asks for the page that ends just before a cursor and that page
/// starts at the newest phrase: the first page, which it is then served as, filled,
/// rather than a part of it under the first page's address (a Newer link followed after
/// phrases above it were removed).
fn reaches_the_newest(state: &AppState, request: &PageRequest) -> bool {
    matches!(request.anchor(), Anchor::Before(_))
        && state
            .feed
            .current()
            .list
            .page(request.anchor(), PAGE_SIZE, &request.find)
            .prev
            .is_none()
}

/// The page for [`past_the_end`]: a 404, so that a crawler drops the address, which
/// says why and leads to the newest; the list would have said none was ever minted.
fn empty_page(state: &AppState) -> Response {
    let site = &state.config.site;
    let html = shell::error_document_back(
        &state.ui.get().manifest,
        "This page of the list is empty",
        &format!(
            "The Last {} it listed are no longer there. The list goes on from its first page.",
            site.product_name
        ),
        (
            &site.words_path(),
            &format!("The newest Last {}", site.product_name),
        ),
    );
    (StatusCode::NOT_FOUND, UNSTORED_HTML, html).into_response()
}

/// `/words/`, as a link typed or cut by hand often ends: the list, where it lives.
pub async fn to_words(State(state): State<AppState>, uri: axum::http::Uri) -> Response {
    moved(state.config.site.words_path(), &uri)
}

/// `/words/{id}/`, a phrase's link with a slash after it: the phrase's page; `/words//`
/// names none, and goes to the list in one step rather than by `/words/`.
pub async fn to_phrase(
    State(state): State<AppState>,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let site = &state.config.site;
    if id.is_empty() {
        return moved(site.words_path(), &uri);
    }
    moved(site.phrase_path(&id), &uri)
}

/// 308 to `path` (our own, encoded), with the query the request came with.
fn moved(path: String, uri: &axum::http::Uri) -> Response {
    let mut to = path.clone();
    if let Some(query) = uri.query() {
        to.push('?');
        to.push_str(query);
    }
    // The query was a valid URI's; were it somehow not, the page without it.
    let location = HeaderValue::try_from(to)
        .or_else(|_| HeaderValue::try_from(path))
        .unwrap_or(HeaderValue::from_static("/"));
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, location)],
    )
        .into_response()
}

/// A link to the list that no page answers (a cursor cut short or made up): a page that
/// says so and leads to the newest, for a visitor; the API says the same in JSON.
fn broken_link(state: &AppState, error: &AppError) -> Response {
    let site = &state.config.site;
    // The parser's words are for a developer (the API gives them); a visitor is told
    // what happened to the link.
    let message = "This address is not one the site makes: it may have been cut short or \
                   changed on the way. The list goes on from its first page.";
    let html = shell::error_document_back(
        &state.ui.get().manifest,
        "This link is broken",
        message,
        (
            &site.words_path(),
            &format!("The newest Last {}", site.product_name),
        ),
    );
    error_page(error, html)
}

pub async fn not_found(
    State(state): State<AppState>,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> Response {
    // The API's clients read JSON, as its other errors are.
    if uri.path() == "/api" || uri.path().starts_with("/api/") {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({
                "error": "no such endpoint; the API has GET /api/phrases, GET /api/phrases/check?word=... and the WebSocket /api/phrases/live"
            })),
        )
            .into_response();
    }
    not_found_html(&state, &headers).await
}

/// The 404 page, for a path the router knows the shape of but not the thing it names.
pub(super) async fn not_found_html(state: &AppState, headers: &HeaderMap) -> Response {
    match not_found_page(state).await {
        Ok(page) => page_response(state, StatusCode::NOT_FOUND, headers, page).await,
        Err(error) => html_error(state, error),
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
    let wanted = preferred_encoding(headers);
    if status == StatusCode::OK && not_modified(headers, page.etag(wanted)) {
        return page_not_modified(page.etag_header(wanted).clone());
    }
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
    let head = page_head(&page, encoding, &body, state.config.hsts());
    let mut response = Response::new(Body::from(body.clone()));
    *response.status_mut() = status;
    *response.headers_mut() = head.headers.clone();
    response
}

/// Every header of a page's response in `encoding` (whose bytes are `body`) but the
/// Date: its type, validator, caching and coding, and the security headers (HSTS when
/// `hsts`). Made once per page and encoding.
pub(super) fn page_head<'a>(
    page: &'a CachedPage,
    encoding: Encoding,
    body: &Bytes,
    hsts: bool,
) -> &'a PreparedHead {
    page.head(encoding, || {
        let mut out = HeaderMap::with_capacity(PAGE_HEADERS);
        out.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        out.insert(header::CACHE_CONTROL, PAGE_CACHE_CONTROL);
        out.insert(header::ETAG, page.etag_header(encoding).clone());
        add_coding_headers(&mut out, encoding);
        headers::add_security_headers(&mut out, hsts);
        PreparedHead::new(out, body.len())
    })
}

/// A 304 for a cached page, with the headers its 200 would have that a cache keeps: the
/// validator, `Cache-Control` and `Vary` (RFC 9110, 15.4.5).
pub(super) fn page_not_modified(etag: HeaderValue) -> Response {
    let mut response = StatusCode::NOT_MODIFIED.into_response();
    let out = response.headers_mut();
    out.insert(header::ETAG, etag);
    out.insert(header::CACHE_CONTROL, PAGE_CACHE_CONTROL);
    out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    response
}

/// A page may be kept, but asked after each time.
pub(super) const PAGE_CACHE_CONTROL: HeaderValue = HeaderValue::from_static("no-cache");

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
    state.pages.cached(PageKey::Home, page).await
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
        let head = Head::words(
            config,
            check,
            cut.start.as_ref(),
            cut.phrases.first().map(|phrase| &**phrase),
            cut.prev.as_ref(),
            cut.next.as_ref(),
        );
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
        return state.pages.render(&head, &request).await.map(Arc::new);
    }
    match request.anchor() {
        Anchor::First => {
            let key = PageKey::Words {
                version: snapshot.version,
            };
            state.pages.cached(key, page).await
        }
        Anchor::After(cursor) | Anchor::Before(cursor) => {
            let way = match request.anchor() {
                Anchor::Before(_) => "before",
                _ => "after",
            };
            let at = format!("{way}={cursor}");
            let further = || {
                let shown = snapshot
                    .list
                    .page(request.anchor(), PAGE_SIZE, &request.find);
                let (head, props) = page();
                (head, props, Span::of_page(request.anchor(), &shown))
            };
            state.pages.further(&at, snapshot.version, further).await
        }
    }
}

/// The 404 page. It does not repeat the path, so one cached render serves every miss.
pub(super) async fn not_found_page(state: &AppState) -> Result<Arc<CachedPage>, AppError> {
    missing_page(state, false).await
}

/// The page of a phrase removed while this host ran: it says so, rather than that the
/// page never was.
pub(super) async fn removed_page(state: &AppState) -> Result<Arc<CachedPage>, AppError> {
    missing_page(state, true).await
}

async fn missing_page(state: &AppState, removed: bool) -> Result<Arc<CachedPage>, AppError> {
    let page = || {
        let site = state.site_props();
        (
            Head::not_found(&state.config.site, removed),
            RenderRequest::NotFound(Missing { site, removed }),
        )
    };
    let key = if removed {
        PageKey::Removed
    } else {
        PageKey::NotFound
    };
    state.pages.cached(key, page).await
}
