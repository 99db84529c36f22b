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
use crate::render::negotiate::{self, Effort, Encoding, not_modified, preferred_encoding};

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
    let Query(query) = query.map_err(unreadable)?;
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
    let page = PhrasePage::cut(&snapshot, &request, limit);
    let json = serde_json::to_vec(&page).map_err(anyhow::Error::from)?;
    let encoding = preferred_encoding(&headers);
    let etag = page_etag(&json, page.version, encoding);
    let mut out = negotiate::coding_headers(encoding);
    out.insert(
        header::ETAG,
        HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\"")),
    );
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if not_modified(&headers, &etag) {
        out.remove(header::CONTENT_ENCODING);
        return Ok((StatusCode::NOT_MODIFIED, out).into_response());
    }
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // A page of 200 phrases is some 20 KB of JSON, a third of that compressed, for a
    // phone scrolling the list.
    let body = negotiate::compressed(&json, encoding, Effort::OneAnswer);
    Ok((out, body).into_response())
}

/// The validator of a page of the list as `json` in `encoding`: what it holds, less the
/// version it was cut at, which numbers one process's changes (as a page of `/words`'s
/// does: `CachedPage::carrying_version`). So another host behind the same load balancer,
/// or this one after a restart, answers a client's copy of the same page with a 304. Weak,
/// since the bodies it names differ in those digits; one per encoding.
fn page_etag(json: &[u8], version: u64, encoding: Encoding) -> String {
    let number = format!("\"version\":{version}");
    // Every string in it escaped: `"version":` is only ever the page's own key.
    let digest = match memchr::memmem::find(json, number.as_bytes()) {
        Some(at) => negotiate::digest(&[&json[..at], &json[at + number.len()..]]),
        None => negotiate::digest(&[json]),
    };
    match encoding.token() {
        None => format!("W/\"{digest}\""),
        Some(coding) => format!("W/\"{digest}-{coding}\""),
    }
}

/// A query the handler's text fields could not take, which is only ever a name given
/// twice, said in the API's own words rather than the parser's.
fn unreadable(rejection: QueryRejection) -> AppError {
    let text = rejection.body_text();
    let twice = text
        .split_once("duplicate field `")
        .and_then(|(_, rest)| rest.split_once('`'));
    match twice {
        Some((name, _)) => AppError::bad_request(format!("{name} is given more than once")),
        None => AppError::bad_request(text),
    }
}

#[derive(Deserialize)]
pub struct CheckQuery {
    word: Option<String>,
}

pub async fn check(
    State(feed): State<Feed>,
    query: Result<Query<CheckQuery>, QueryRejection>,
) -> Result<Response, AppError> {
    let Query(query) = query.map_err(unreadable)?;
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
