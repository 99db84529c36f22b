//! `/sitemap.xml`, its children under `/sitemaps/` and `/feed.atom`, as
//! [`crate::render::listings`] makes them for the current list.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::pages::{PAGE_CACHE_CONTROL, not_found_html, page_not_modified};
use crate::error::AppError;
use crate::render::listings::{Document, Made};
use crate::render::negotiate::{Encoding, add_coding_headers, not_modified, preferred_encoding};
use crate::state::AppState;

const XML: HeaderValue = HeaderValue::from_static("application/xml; charset=utf-8");
const ATOM: HeaderValue = HeaderValue::from_static("application/atom+xml; charset=utf-8");

pub async fn sitemap(State(state): State<AppState>, headers: HeaderMap) -> Response {
    listing(&state, &headers, Document::Sitemap, XML).await
}

pub async fn sitemap_child(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(file): Path<String>,
) -> Response {
    match Document::child(&file) {
        Some(document) => listing(&state, &headers, document, XML).await,
        None => not_found_html(&state, &headers).await,
    }
}

pub async fn atom(State(state): State<AppState>, headers: HeaderMap) -> Response {
    listing(&state, &headers, Document::Atom, ATOM).await
}

async fn listing(
    state: &AppState,
    headers: &HeaderMap,
    document: Document,
    content_type: HeaderValue,
) -> Response {
    let snapshot = state.feed.current();
    if !snapshot.loaded {
        return AppError::Unavailable("the list of phrases has not loaded yet").into_response();
    }
    let listings = state.listings.clone();
    let config = state.config.clone();
    let wanted = preferred_encoding(headers);
    // Tens of milliseconds for 50,000 URLs (and their compression): off the async threads.
    let made = tokio::task::spawn_blocking(move || {
        let made = listings.document(&config.site, &snapshot, document);
        let body = made.as_ref().map(|page| page.encode(wanted));
        made.zip(body)
    })
    .await;
    let (page, body): (Made, _) = match made {
        Ok(Some(made)) => made,
        Ok(None) => return not_found_html(state, headers).await,
        Err(error) => return AppError::Internal(error.into()).into_response(),
    };
    if not_modified(headers, page.etag(wanted)) {
        return page_not_modified(page.etag_header(wanted).clone());
    }
    respond(&page, body, wanted, content_type)
}

fn respond(
    page: &Arc<crate::render::page_cache::CachedPage>,
    body: bytes::Bytes,
    encoding: Encoding,
    content_type: HeaderValue,
) -> Response {
    let mut response = Response::new(Body::from(body));
    let out = response.headers_mut();
    out.insert(header::CONTENT_TYPE, content_type);
    out.insert(header::CACHE_CONTROL, PAGE_CACHE_CONTROL);
    out.insert(header::ETAG, page.etag_header(encoding).clone());
    add_coding_headers(out, encoding);
    response
}
