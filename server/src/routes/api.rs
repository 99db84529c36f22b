//! The JSON API: the phrase list and a word's availability.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::error::AppError;
use crate::negotiate::not_modified;
use crate::snapshot::Feed;
use crate::text::NormalizedWord;

pub async fn phrases(State(feed): State<Feed>, headers: HeaderMap) -> Response {
    let snapshot = feed.current();
    if !snapshot.loaded {
        return AppError::Unavailable(
            "the list of minted phrases has not loaded yet; try again shortly",
        )
        .into_response();
    }
    let etag = format!("\"v{}\"", snapshot.version);
    let etag_value = HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""));
    if not_modified(&headers, &etag) {
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
    let normalized = NormalizedWord::validated(&word)
        .map_err(|error| AppError::bad_request(error.to_string()))?;
    let snapshot = feed.current();
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
