//! The JSON API: the phrase list a page at a time (or the phrases that contain some
//! text), and a word's availability (with who took it and what is free instead, or the
//! minted phrase a free word reads like).

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::error::AppError;
use crate::feed::Feed;
use crate::feed::check::{Check, CheckStatus};
use crate::feed::list::PAGE_SIZE;
use crate::feed::paging::{PageRequest, PhrasePage};
use crate::render::negotiate::not_modified;

/// The most phrases one request may ask for.
pub const MAX_LIMIT: usize = 200;

const NOT_LOADED: &str = "the list of minted phrases has not loaded yet; try again shortly";

#[derive(Deserialize)]
pub struct PhrasesQuery {
    after: Option<String>,
    before: Option<String>,
    limit: Option<String>,
    q: Option<String>,
}

pub async fn phrases(
    State(feed): State<Feed>,
    headers: HeaderMap,
    query: Result<Query<PhrasesQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    let limit = match query.limit.as_deref() {
        None | Some("") => PAGE_SIZE,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|limit| (1..=MAX_LIMIT).contains(limit))
            .ok_or_else(|| {
                AppError::bad_request(format!("limit is a whole number from 1 to {MAX_LIMIT}"))
            })?,
    };
    let request = PageRequest::parse(
        query.after.as_deref(),
        query.before.as_deref(),
        query.q.as_deref(),
    )?;
    let snapshot = feed.current();
    if !snapshot.loaded {
        return Err(AppError::Unavailable(NOT_LOADED));
    }
    // The URL says which page; the version says what it holds.
    let etag = format!("\"v{}\"", snapshot.version);
    let etag_value = HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""));
    if not_modified(&headers, &etag) {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [
                (header::ETAG, etag_value),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
        )
            .into_response());
    }
    let page = PhrasePage::cut(&snapshot, &request, limit);
    Ok((
        [
            (header::ETAG, etag_value),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        axum::Json(page),
    )
        .into_response())
}

#[derive(Deserialize)]
pub struct CheckQuery {
    word: Option<String>,
}

pub async fn check(
    State(feed): State<Feed>,
    query: Result<Query<CheckQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    let word = query
        .word
        .ok_or_else(|| AppError::bad_request("give the word to check as ?word=..."))?;
    let snapshot = feed.current();
    let check = Check::new(&word, &snapshot);
    if let Some(problem) = &check.problem {
        return Err(AppError::bad_request(problem.to_string()));
    }
    if check.status == CheckStatus::Unavailable {
        return Err(AppError::Unavailable(NOT_LOADED));
    }
    // Fresh on every ask: a word free now may be minted a moment later.
    Ok((
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))],
        axum::Json(json!({
            "word": check.normalized,
            "length": check.length,
            "available": check.status == CheckStatus::Available,
            "version": snapshot.version,
            "taker": check.taker,
            "alternatives": check.alternatives,
            "lookalike": check.lookalike,
        })),
    )
        .into_response())
}
